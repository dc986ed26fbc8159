// Cause fan-out: how many updates one cause event made run ("@Observable X -> Row.body x12 per
// event"). `tracesvc inspect` prints it, the collection fan-out finding is built on it, the
// comparison matches it between two traces and the fan-out budget limits it.

/// Edges from cause events into nodes whose body ran, merged by (source, target, label, property).
public struct CauseFanOut: Sendable, Equatable {
    /// One cause event (a source node) and the updates its edges of this fan-out made run.
    public struct Event: Sendable, Equatable {
        public var source: Int
        /// Rows of the update table, in edge order (a slice of one buffer shared by all events).
        public var updates: ArraySlice<Int>
    }

    /// Node name of the source, with ".body" for a view body ("@Observable ModelData", "List.body").
    public var source: String
    public var sourceKind: NodeKind
    /// The source node's owner (the view or class holding the value), or "".
    public var sourceOwner: String
    public var target: String
    /// The target node's name without ".body": the view type for a body.
    public var targetName: String
    public var targetKind: NodeKind
    public var label: EdgeLabel
    /// The property whose change travelled along the edges, or "".
    public var property: String
    /// In order of each event's first edge.
    public var events: [Event]

    // Plain loops: a fan-out may have a hundred thousand events, and a comparison asks for these
    // of tens of thousands of fan-outs (key-path maps allocated an array each time).
    public var updateCount: Int {
        var total = 0
        for event in events { total += event.updates.count }
        return total
    }

    public var minPerEvent: Int {
        guard var least = events.first?.updates.count else { return 0 }
        for event in events where event.updates.count < least { least = event.updates.count }
        return least
    }

    public var maxPerEvent: Int {
        var most = 0
        for event in events where event.updates.count > most { most = event.updates.count }
        return most
    }

    /// "×12", or "×1–3" when events fanned out to different numbers of targets.
    public var fanOutText: String { Self.fanOutText(min: minPerEvent, max: maxPerEvent) }

    static func fanOutText(min: Int, max: Int) -> String { min == max ? "×\(min)" : "×\(min)–\(max)" }

    /// How a node is named in a fan-out: "Row.body" for a view body, else its name.
    static func title(name: String, kind: NodeKind) -> String { kind == .viewBody ? "\(name).body" : name }

    /// "@Observable X.items → Row.body ×12 [creation]"
    public var edgeText: String {
        "\(sourceTitle) → \(target) \(fanOutText)\(label == .creation ? " [creation]" : "")"
    }

    /// The source with the property that changed, named once, as the cause graph names it.
    public var sourceTitle: String { Self.sourceTitle(source, property: property) }

    /// "@Observable LandmarkViewModel" with "isFavorite" -> "@Observable LandmarkViewModel.isFavorite";
    /// "@Observable Loader.images" with "images" -> itself; "List.body" with "items" -> "List.body (items)".
    public static func sourceTitle(_ source: String, property: String) -> String {
        if property.isEmpty || source.hasSuffix(".\(property)") || source.hasSuffix(" \(property)") { return source }
        return source.hasPrefix("@") && !source.contains(".") ? "\(source).\(property)" : "\(source) (\(property))"
    }
}

/// What makes edges one fan-out, in the trace's interned names.
struct FanOutKey: Equatable, Sendable {
    var sourceName: StringRef, targetName: StringRef, property: StringRef
    var sourceKind: NodeKind, targetKind: NodeKind, label: EdgeLabel

    /// Each field mixed in turn with a random `seed`: no file can choose names whose keys collide.
    func hash(seed: UInt64) -> UInt64 {
        func mix(_ value: UInt64) -> UInt64 {
            let h = (value ^ (value >> 31)) &* 0x94D0_49BB_1331_11EB
            return h ^ (h >> 29)
        }
        var h = mix(seed ^ UInt64(sourceName))
        h = mix(h ^ (UInt64(targetName) << 32 | UInt64(property)))
        return mix(h ^ (UInt64(sourceKind.rawValue) | UInt64(targetKind.rawValue) << 8 | UInt64(label.rawValue) << 16))
    }
}

/// Ids of fan-out keys, in the order first met: open addressing with linear probing, at most
/// half full. Millions of edges name few distinct keys; this answers without SipHash per lookup.
struct FanOutKeyTable {
    private(set) var keys: [FanOutKey] = []
    /// Id of the key in each slot, or -1.
    private var slots = [Int32](repeating: -1, count: 1 << 10)
    private let seed = UInt64.random(in: .min ... .max)

    /// The id of `key`, which becomes `keys.count` when the key is new.
    mutating func id(of key: FanOutKey) -> Int {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: key.hash(seed: seed)) & mask
        while slots[slot] >= 0 {
            if keys[Int(slots[slot])] == key { return Int(slots[slot]) }
            slot = (slot + 1) & mask
        }
        slots[slot] = Int32(keys.count)
        keys.append(key)
        if keys.count * 2 > slots.count { rehash(size: slots.count * 2) }
        return keys.count - 1
    }

    private mutating func rehash(size: Int) {
        slots = [Int32](repeating: -1, count: size)
        for (id, key) in keys.enumerated() {
            var slot = Int(truncatingIfNeeded: key.hash(seed: seed)) & (size - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Int32(id)
        }
    }
}

/// Dense ids of the distinct (name, kind) pairs of graph nodes, found through the first of each
/// name (no hashing): a graph of millions of nodes names a few hundred kinds of thing.
struct NodeClasses {
    /// Above this many (class, class, label) triples the fan-out walk keeps no pair cache (4 MB).
    static let pairCacheLimit = 1 << 19

    private var firstOfName: [Int32]
    private var kind: [NodeKind] = []
    private var next: [Int32] = []
    /// The class of every node: the walks read it instead of finding it again per edge.
    private(set) var ofNode: [Int32]
    var count: Int { kind.count }

    init(names: [StringRef], kinds: [NodeKind], stringCount: Int) {
        firstOfName = [Int32](repeating: -1, count: stringCount)
        ofNode = [Int32](repeating: 0, count: names.count)
        for node in names.indices {
            var id = find(name: names[node], kind: kinds[node])
            if id < 0 {
                kind.append(kinds[node])
                next.append(firstOfName[Int(names[node])])
                id = kind.count - 1
                firstOfName[Int(names[node])] = Int32(id)
            }
            ofNode[node] = Int32(id)
        }
    }

    private func find(name: StringRef, kind wanted: NodeKind) -> Int {
        var id = firstOfName[Int(name)]
        while id >= 0, kind[Int(id)] != wanted { id = next[Int(id)] }
        return Int(id)
    }
}

/// Ids of the fan-out keys of edges, in order first asked for. In front of the key table, when
/// the graph names few kinds of node: the id last found for each (source class, target class,
/// label), with its property. Millions of edges then cost a lookup in a small array each instead
/// of a probe into a table of megabytes.
struct FanOutKeyIDs {
    private var table = FanOutKeyTable()
    let classes: NodeClasses
    private var pairs: [(property: StringRef, id: Int32)]
    var keys: [FanOutKey] { table.keys }

    init(names: [StringRef], kinds: [NodeKind], stringCount: Int) {
        classes = NodeClasses(names: names, kinds: kinds, stringCount: stringCount)
        let pairCount = classes.count <= 1 << 10 ? classes.count * classes.count * 2 : Int.max
        pairs = Array(repeating: (0, -1), count: pairCount <= NodeClasses.pairCacheLimit ? pairCount : 0)
    }

    /// Where the cached ids of a source class's pairs start (meaningless without a pair cache).
    func pairBase(sourceClass: Int32) -> Int { Int(sourceClass) * classes.count * 2 }

    /// The id of `key`, an edge from a node of `pairBase`'s class to a node of `targetClass`.
    @inline(__always)
    mutating func id(of key: FanOutKey, pairBase: Int, targetClass: Int32) -> Int32 {
        if pairs.isEmpty { return Int32(table.id(of: key)) }
        let pair = pairBase + Int(targetClass) * 2 + Int(key.label.rawValue)
        if pairs[pair].id >= 0, pairs[pair].property == key.property { return pairs[pair].id }
        let id = Int32(table.id(of: key))
        pairs[pair] = (key.property, id)
        return id
    }
}

/// A fan-out's numbers while its edges are walked, in one cache line (32 bytes): the event open
/// (its source and edges so far) and the closed events' numbers. Counts fit 32 bits: a graph's
/// edges are numbered in 32 bits.
struct FanOutTally {
    static let unused = StringRef.max
    /// The property of the key counted here (grid cells: `unused` until one is met).
    var property = unused
    var source = UInt32.max
    var open: UInt32 = 0
    var events: UInt32 = 0
    var updates: UInt32 = 0
    var minPerEvent = UInt32.max
    var maxPerEvent: UInt32 = 0
    private var padding: UInt32 = 0

    @inline(__always)
    mutating func count(edgeFrom source: UInt32) {
        if self.source == source {
            open += 1
        } else {
            closeEvent()
            self.source = source
            open = 1
        }
    }

    mutating func closeEvent() {
        guard open > 0 else { return }
        events += 1
        updates += open
        minPerEvent = min(minPerEvent, open)
        maxPerEvent = max(maxPerEvent, open)
        open = 0
    }
}

/// A fan-out's numbers without its events: what the comparison keeps per fan-out.
struct FanOutCount: Sendable {
    var events = 0
    var updates = 0
    var minPerEvent = Int.max
    var maxPerEvent = 0
}

extension Trace {
    /// Every fan-out from a source of `sourceKinds` whose updates overlap `range` (nil = the whole
    /// trace), most updates first (ties in order of first appearance).
    public func causeFanOuts(in range: TimeRange? = nil, from sourceKinds: Set<NodeKind> = Set(NodeKind.allCases)) -> [CauseFanOut] {
        // Every event's updates are a run of one shared buffer (no array per event).
        var buffer: [Int] = []
        buffer.reserveCapacity(graph.edges.count)
        var events: [(fanOut: Int32, source: Int32, end: Int)] = []
        let keys = forEachFanOutEvent(in: range, from: sourceKinds) { fanOut, source, updates in
            for update in updates { buffer.append(Int(update)) }
            events.append((Int32(fanOut), Int32(source), buffer.count))
        }
        var eventsOf = [[CauseFanOut.Event]](repeating: [], count: keys.count)
        var start = 0
        for event in events {
            eventsOf[Int(event.fanOut)].append(CauseFanOut.Event(source: Int(event.source), updates: buffer[start..<event.end]))
            start = event.end
        }
        let nodes = graph.nodes
        let fanOuts = keys.indices.map { id in
            let key = keys[id], firstSource = eventsOf[id][0].source
            return CauseFanOut(
                source: CauseFanOut.title(name: string(key.sourceName), kind: key.sourceKind), sourceKind: key.sourceKind,
                sourceOwner: string(nodes.owner[firstSource]),
                target: CauseFanOut.title(name: string(key.targetName), kind: key.targetKind), targetName: string(key.targetName),
                targetKind: key.targetKind, label: key.label, property: string(key.property), events: eventsOf[id]
            )
        }
        let totals = fanOuts.map(\.updateCount)
        let order = fanOuts.indices.sorted { (totals[$0], $1) > (totals[$1], $0) }
        return order.map { fanOuts[$0] }
    }

    /// The numbers of every fan-out (by id, as `keys`), without their events: the walk of
    /// `forEachFanOutEvent` (same keys, same ids), counted in one pass over the edges.
    ///
    /// A source's edges are one run of the outgoing rows, so the event of (source, key) is open
    /// from its first edge until the key's next edge comes from another source (or the walk
    /// ends): nothing is gathered or regrouped per source, nothing is called per event. The tally
    /// of a key lives in a grid cell of (source class, target class, label), which holds the
    /// first property met there (one cache line per edge: no id lookup before the tally); a
    /// second property of a cell, or a graph naming too many classes for a grid, goes through
    /// the key table.
    func causeFanOutCounts(in range: TimeRange?) -> (keys: [FanOutKey], counts: [FanOutCount]) {
        // Locals read once: a stored property of a struct reached per edge can cost a retain.
        let nodeKind = graph.nodes.kind, nodeName = graph.nodes.name
        let edgeLabel = graph.edges.label, edgeProperty = graph.edges.changedProperty
        let offsets = graph.outgoingOffsets, outgoing = graph.outgoingEdges
        let counted = CountedEdges(self, range: range)
        let classes = NodeClasses(names: nodeName, kinds: nodeKind, stringCount: strings.count)
        let classOfNode = classes.ofNode
        let cells = classes.count <= 1 << 10 ? classes.count * classes.count * 2 : Int.max
        // A grid far larger than the graph would cost more to clear than it saves.
        let gridCount = cells <= NodeClasses.pairCacheLimit && cells <= 8 * graph.edges.count + 4096 ? cells : 0
        // Aligned to cache lines: a tally never straddles two.
        let gridMemory = UnsafeMutableRawPointer.allocate(byteCount: gridCount * MemoryLayout<FanOutTally>.stride, alignment: 64)
        defer { gridMemory.deallocate() }
        let grid = UnsafeMutableBufferPointer(start: gridMemory.bindMemory(to: FanOutTally.self, capacity: gridCount), count: gridCount)
        grid.initialize(repeating: FanOutTally())
        var others: [FanOutTally] = [], otherKeys = FanOutKeyTable()
        // In order first met: each key, and where its tally is (a grid cell, or ~index in `others`).
        var keys: [FanOutKey] = [], tallyOfKey: [Int] = []
        // The counted edges of a batch of sources: their source, edge and grid cell (-1: none).
        // Each batch's cells are first read in a loop of independent loads (the processor has many
        // cache misses in flight at once), then tallied in edge order from the cache.
        var batch: [(source: UInt32, edge: UInt32, cell: Int32)] = []
        let sourcesPerBatch = 256
        var touched: UInt32 = 0
        for batchStart in stride(from: 0, to: graph.nodes.count, by: sourcesPerBatch) {
            batch.removeAll(keepingCapacity: true)
            for source in batchStart..<min(batchStart + sourcesPerBatch, graph.nodes.count) {
                let row = grid.isEmpty ? 0 : Int(classOfNode[source]) * classes.count * 2
                for position in Int(offsets[source])..<Int(offsets[source + 1]) {
                    let edge = Int(outgoing[position])
                    guard let (target, _) = counted.update(of: edge) else { continue }
                    let cell = grid.isEmpty ? -1 : row + Int(classOfNode[target]) * 2 + Int(edgeLabel[edge].rawValue)
                    batch.append((UInt32(truncatingIfNeeded: source), UInt32(truncatingIfNeeded: edge), Int32(truncatingIfNeeded: cell)))
                }
            }
            if !grid.isEmpty {
                for counted in batch { touched &+= grid[Int(counted.cell)].open }
            }
            for counted in batch {
                let edge = Int(counted.edge), property = edgeProperty[edge], cell = Int(counted.cell)
                if cell >= 0 {
                    if grid[cell].property == property {
                        grid[cell].count(edgeFrom: counted.source)
                        continue
                    }
                    if grid[cell].property == FanOutTally.unused {
                        grid[cell].property = property
                        keys.append(fanOutKey(source: Int(counted.source), edge: edge))
                        tallyOfKey.append(cell)
                        grid[cell].count(edgeFrom: counted.source)
                        continue
                    }
                }
                let key = fanOutKey(source: Int(counted.source), edge: edge)
                let other = otherKeys.id(of: key)
                if other == others.count {
                    others.append(FanOutTally())
                    keys.append(key)
                    tallyOfKey.append(~other)
                }
                others[other].count(edgeFrom: counted.source)
            }
        }
        // The reads above must not be optimised away (they are what brings the cells in).
        if touched == 0x9E37_79B9 { keys.reserveCapacity(keys.count + 1) }
        let counts = tallyOfKey.map { at in
            var tally = at >= 0 ? grid[at] : others[~at]
            tally.closeEvent()
            return FanOutCount(
                events: Int(tally.events), updates: Int(tally.updates), minPerEvent: Int(tally.minPerEvent), maxPerEvent: Int(tally.maxPerEvent)
            )
        }
        return (keys, counts)
    }

    /// Which edges a fan-out counts: those whose target's body ran, in an update that overlaps
    /// the range. The columns are copied out once: a stored property of a struct reached per
    /// edge can cost a retain.
    private struct CountedEdges {
        let edgeTarget: [UInt32], nodeUpdate: [Int32], updateStart: [Nanoseconds], updateDuration: [Nanoseconds]
        let range: TimeRange?

        init(_ trace: Trace, range: TimeRange?) {
            edgeTarget = trace.graph.edges.target
            nodeUpdate = trace.graph.nodes.update
            updateStart = trace.updates.start
            updateDuration = trace.updates.duration
            self.range = range
        }

        /// The edge's target and the update it ran, or nil when the edge does not count.
        @inline(__always) func update(of edge: Int) -> (target: Int, update: Int32)? {
            let target = Int(edgeTarget[edge])
            let update = nodeUpdate[target]
            guard update != noRow else { return nil }
            if let range, !range.overlaps(start: updateStart[Int(update)], end: updateStart[Int(update)] + updateDuration[Int(update)]) {
                return nil
            }
            return (target, update)
        }
    }

    /// The key of the fan-out `edge` (from `source`) belongs to.
    private func fanOutKey(source: Int, edge: Int) -> FanOutKey {
        let target = Int(graph.edges.target[edge])
        return FanOutKey(
            sourceName: graph.nodes.name[source], targetName: graph.nodes.name[target], property: graph.edges.changedProperty[edge],
            sourceKind: graph.nodes.kind[source], targetKind: graph.nodes.kind[target], label: graph.edges.label[edge]
        )
    }

    /// Calls `body` once per cause event of each fan-out: the event's source node and the updates
    /// its edges of that fan-out made run, in edge order. Walks the edges source by source (the
    /// graph's outgoing rows): one source's edges of one key are one event. An edge counts when its
    /// target's body ran and that update overlaps `range`. Returns the keys by id, in order first
    /// met; a source's events come in the order their keys first appear among its edges.
    func forEachFanOutEvent(
        in range: TimeRange?, from sourceKinds: Set<NodeKind>,
        _ body: (_ fanOut: Int, _ source: Int, _ updates: UnsafeBufferPointer<Int32>) -> Void
    ) -> [FanOutKey] {
        // Locals read once: a stored property of a struct reached per edge can cost a retain.
        let nodeKind = graph.nodes.kind, nodeName = graph.nodes.name
        let edgeLabel = graph.edges.label, edgeProperty = graph.edges.changedProperty
        let offsets = graph.outgoingOffsets, outgoing = graph.outgoingEdges
        let counted = CountedEdges(self, range: range)
        let wanted = NodeKind.allCases.map(sourceKinds.contains)
        var maxDegree = 0
        for node in 0..<graph.nodes.count { maxDegree = max(maxDegree, Int(offsets[node + 1] - offsets[node])) }
        // One source's counted edges: fan-out id and update of each, and one key's run of them.
        let ids = UnsafeMutableBufferPointer<Int32>.allocate(capacity: maxDegree)
        let hits = UnsafeMutableBufferPointer<Int32>.allocate(capacity: maxDegree)
        let run = UnsafeMutableBufferPointer<Int32>.allocate(capacity: maxDegree)
        defer { ids.deallocate(); hits.deallocate(); run.deallocate() }
        var keyIDs = FanOutKeyIDs(names: nodeName, kinds: nodeKind, stringCount: strings.count)
        let classOfNode = keyIDs.classes.ofNode
        for source in 0..<graph.nodes.count where wanted[Int(nodeKind[source].rawValue)] {
            let sourceName = nodeName[source], sourceKind = nodeKind[source]
            let pairBase = keyIDs.pairBase(sourceClass: classOfNode[source])
            var count = 0, mixed = false
            for position in Int(offsets[source])..<Int(offsets[source + 1]) {
                let edge = Int(outgoing[position])
                guard let (target, update) = counted.update(of: edge) else { continue }
                let key = FanOutKey(
                    sourceName: sourceName, targetName: nodeName[target], property: edgeProperty[edge],
                    sourceKind: sourceKind, targetKind: nodeKind[target], label: edgeLabel[edge]
                )
                let id = keyIDs.id(of: key, pairBase: pairBase, targetClass: classOfNode[target])
                mixed = mixed || (count > 0 && id != ids[0])
                ids[count] = id
                hits[count] = update
                count += 1
            }
            if count == 0 { continue }
            if !mixed {
                body(Int(ids[0]), source, UnsafeBufferPointer(rebasing: hits[0..<count]))
                continue
            }
            // Several keys: the first remaining key's updates (in edge order), then the rest. Run
            // by run for a few keys; a source of many keys (a change of thousands of differently
            // named views) is grouped in one sort, run by run would cost edges x keys.
            var runs = 0
            while count > 0, runs < 8 {
                runs += 1
                let id = ids[0]
                var kept = 0, taken = 0
                for index in 0..<count {
                    if ids[index] == id {
                        run[taken] = hits[index]
                        taken += 1
                    } else {
                        ids[kept] = ids[index]
                        hits[kept] = hits[index]
                        kept += 1
                    }
                }
                count = kept
                body(Int(id), source, UnsafeBufferPointer(rebasing: run[0..<taken]))
            }
            if count > 0 {
                var rank: [Int32: Int] = [:]
                for index in 0..<count where rank[ids[index]] == nil { rank[ids[index]] = rank.count }
                let order = (0..<count).sorted { (rank[ids[$0]]!, $0) < (rank[ids[$1]]!, $1) }
                var first = 0
                while first < order.count {
                    let id = ids[order[first]]
                    var taken = 0
                    while first + taken < order.count, ids[order[first + taken]] == id {
                        run[taken] = hits[order[first + taken]]
                        taken += 1
                    }
                    first += taken
                    body(Int(id), source, UnsafeBufferPointer(rebasing: run[0..<taken]))
                }
            }
        }
        return keyIDs.keys
    }
}
