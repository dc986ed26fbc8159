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

    /// What identifies the same fan-out in another trace.
    public struct Key: Sendable, Hashable {
        public var source: String, target: String, label: String, property: String
    }

    public var key: Key { Key(source: source, target: target, label: label.wireName, property: property) }

    /// "×12", or "×1–3" when events fanned out to different numbers of targets.
    public var fanOutText: String { Self.fanOutText(min: minPerEvent, max: maxPerEvent) }

    static func fanOutText(min: Int, max: Int) -> String { min == max ? "×\(min)" : "×\(min)–\(max)" }

    /// "@Observable X (items) → Row.body ×12 [creation]"
    public var edgeText: String {
        let changed = property.isEmpty ? "" : " (\(property))"
        return "\(source)\(changed) → \(target) \(fanOutText)\(label == .creation ? " [creation]" : "")"
    }
}

extension Trace {
    /// Every fan-out from a source of `sourceKinds` whose updates overlap `range` (nil = the whole
    /// trace), most updates first (ties in order of first appearance).
    public func causeFanOuts(in range: TimeRange? = nil, from sourceKinds: Set<NodeKind> = Set(NodeKind.allCases)) -> [CauseFanOut] {
        struct Key: Hashable {
            var sourceName: StringRef, sourceKind: NodeKind, targetName: StringRef, targetKind: NodeKind
            var label: EdgeLabel, property: StringRef
        }
        // Walks the edges source by source (the graph's outgoing rows), so one source's edges of
        // one kind are one event: one dictionary lookup per event, and every event's updates are
        // a run of one shared buffer (no array per event).
        struct Edge { var key: Key, update: Int }
        let nodes = graph.nodes, edges = graph.edges, causes = graph, table = updates
        var indexOfKey: [Key: Int] = [:]
        var fanOuts: [CauseFanOut] = []
        var eventRuns: [[(source: Int, run: Range<Int>)]] = []
        var buffer: [Int] = []
        buffer.reserveCapacity(edges.count)
        var scratch: [Edge] = []
        let wanted = NodeKind.allCases.map(sourceKinds.contains)
        for source in 0..<nodes.count where wanted[Int(nodes.kind[source].rawValue)] {
            scratch.removeAll(keepingCapacity: true)
            for edge in causes.outgoing(source) {
                let target = Int(edges.target[Int(edge)])
                let update = Int(nodes.update[target])
                guard update != Int(noRow) else { continue }
                if let range, !range.overlaps(start: table.start[update], end: table.end(update)) { continue }
                scratch.append(Edge(key: Key(
                    sourceName: nodes.name[source], sourceKind: nodes.kind[source], targetName: nodes.name[target],
                    targetKind: nodes.kind[target], label: edges.label[Int(edge)], property: edges.changedProperty[Int(edge)]
                ), update: update))
            }
            // Usually one kind of edge per source: take the first edge's key with its edges, keep the rest (in order).
            while let key = scratch.first?.key {
                let runStart = buffer.count
                var kept = 0
                for index in scratch.indices {
                    if scratch[index].key == key {
                        buffer.append(scratch[index].update)
                    } else {
                        scratch[kept] = scratch[index]
                        kept += 1
                    }
                }
                scratch.removeLast(scratch.count - kept)
                let fanOut: Int
                if let known = indexOfKey[key] {
                    fanOut = known
                } else {
                    fanOut = fanOuts.count
                    indexOfKey[key] = fanOut
                    fanOuts.append(CauseFanOut(
                        source: fanOutTitle(source), sourceKind: key.sourceKind, sourceOwner: string(nodes.owner[source]),
                        target: fanOutTitle(name: key.targetName, kind: key.targetKind), targetName: string(key.targetName),
                        targetKind: key.targetKind, label: key.label, property: string(key.property), events: []
                    ))
                    eventRuns.append([])
                }
                eventRuns[fanOut].append((source, runStart..<buffer.count))
            }
        }
        for fanOut in fanOuts.indices {
            fanOuts[fanOut].events = eventRuns[fanOut].map { CauseFanOut.Event(source: $0.source, updates: buffer[$0.run]) }
        }
        let totals = fanOuts.map(\.updateCount)
        let order = fanOuts.indices.sorted { (totals[$0], $1) > (totals[$1], $0) }
        return order.map { fanOuts[$0] }
    }

    private func fanOutTitle(_ node: Int) -> String {
        fanOutTitle(name: graph.nodes.name[node], kind: graph.nodes.kind[node])
    }

    private func fanOutTitle(name: StringRef, kind: NodeKind) -> String {
        kind == .viewBody ? "\(string(name)).body" : string(name)
    }
}
