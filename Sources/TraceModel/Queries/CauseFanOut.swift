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

    /// "@Observable X (items) → Row.body ×12 [creation]"
    public var edgeText: String {
        let changed = property.isEmpty ? "" : " (\(property))"
        return "\(source)\(changed) → \(target) \(fanOutText)\(label == .creation ? " [creation]" : "")"
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
    var count: Int { kind.count }

    init(names: [StringRef], kinds: [NodeKind], stringCount: Int) {
        firstOfName = [Int32](repeating: -1, count: stringCount)
        for node in names.indices where find(name: names[node], kind: kinds[node]) < 0 {
            kind.append(kinds[node])
            next.append(firstOfName[Int(names[node])])
            firstOfName[Int(names[node])] = Int32(kind.count - 1)
        }
    }

    private func find(name: StringRef, kind wanted: NodeKind) -> Int {
        var id = firstOfName[Int(name)]
        while id >= 0, kind[Int(id)] != wanted { id = next[Int(id)] }
        return Int(id)
    }

    /// The id of a (name, kind) some node has.
    func id(name: StringRef, kind: NodeKind) -> Int { find(name: name, kind: kind) }
}

/// A fan-out's numbers without its events: what the comparison keeps per fan-out.
struct FanOutCount: Sendable {
    var events = 0
    var updates = 0
    var minPerEvent = Int.max
    var maxPerEvent = 0

    mutating func add(event updates: Int) {
        events += 1
        self.updates += updates
        minPerEvent = min(minPerEvent, updates)
        maxPerEvent = max(maxPerEvent, updates)
    }
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

    /// The numbers of every fan-out (by id, as `keys`), without their events.
    func causeFanOutCounts(in range: TimeRange?) -> (keys: [FanOutKey], counts: [FanOutCount]) {
        var counts: [FanOutCount] = []
        let keys = forEachFanOutEvent(in: range, from: Set(NodeKind.allCases)) { fanOut, _, updates in
            // A new id's first event comes before any later id's (both are in order first met).
            if fanOut == counts.count { counts.append(FanOutCount()) }
            counts[fanOut].add(event: updates.count)
        }
        return (keys, counts)
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
        let nodeKind = graph.nodes.kind, nodeName = graph.nodes.name, nodeUpdate = graph.nodes.update
        let edgeTarget = graph.edges.target, edgeLabel = graph.edges.label, edgeProperty = graph.edges.changedProperty
        let offsets = graph.outgoingOffsets, outgoing = graph.outgoingEdges
        let updateStart = updates.start, updateDuration = updates.duration
        let wanted = NodeKind.allCases.map(sourceKinds.contains)
        var maxDegree = 0
        for node in 0..<graph.nodes.count { maxDegree = max(maxDegree, Int(offsets[node + 1] - offsets[node])) }
        // One source's counted edges: fan-out id and update of each, and one key's run of them.
        let ids = UnsafeMutableBufferPointer<Int32>.allocate(capacity: maxDegree)
        let hits = UnsafeMutableBufferPointer<Int32>.allocate(capacity: maxDegree)
        let run = UnsafeMutableBufferPointer<Int32>.allocate(capacity: maxDegree)
        defer { ids.deallocate(); hits.deallocate(); run.deallocate() }
        var table = FanOutKeyTable()
        // In front of the table, when the graph names few kinds of node: the id last found for
        // each (source class, target class, label), with its property. Millions of edges then
        // cost a lookup in a small array each instead of a probe into a table of megabytes.
        let classes = NodeClasses(names: nodeName, kinds: nodeKind, stringCount: strings.count)
        let pairCount = classes.count <= 1 << 10 ? classes.count * classes.count * 2 : Int.max
        let pairs = UnsafeMutableBufferPointer<(property: StringRef, id: Int32)>.allocate(
            capacity: pairCount <= NodeClasses.pairCacheLimit ? pairCount : 0
        )
        defer { pairs.deallocate() }
        pairs.initialize(repeating: (0, -1))
        for source in 0..<graph.nodes.count where wanted[Int(nodeKind[source].rawValue)] {
            let sourceName = nodeName[source], sourceKind = nodeKind[source]
            let sourcePairs = pairs.isEmpty ? 0 : classes.id(name: sourceName, kind: sourceKind) * classes.count * 2
            var count = 0, mixed = false
            for position in Int(offsets[source])..<Int(offsets[source + 1]) {
                let edge = Int(outgoing[position]), target = Int(edgeTarget[edge])
                let update = nodeUpdate[target]
                guard update != noRow else { continue }
                if let range, !range.overlaps(start: updateStart[Int(update)], end: updateStart[Int(update)] + updateDuration[Int(update)]) {
                    continue
                }
                let key = FanOutKey(
                    sourceName: sourceName, targetName: nodeName[target], property: edgeProperty[edge],
                    sourceKind: sourceKind, targetKind: nodeKind[target], label: edgeLabel[edge]
                )
                let id: Int32
                if pairs.isEmpty {
                    id = Int32(table.id(of: key))
                } else {
                    let pair = sourcePairs + classes.id(name: key.targetName, kind: key.targetKind) * 2 + Int(key.label.rawValue)
                    if pairs[pair].id >= 0, pairs[pair].property == key.property {
                        id = pairs[pair].id
                    } else {
                        id = Int32(table.id(of: key))
                        pairs[pair] = (key.property, id)
                    }
                }
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
            // Several keys: the first remaining key's updates (in edge order), then the rest.
            while count > 0 {
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
        }
        return table.keys
    }
}
