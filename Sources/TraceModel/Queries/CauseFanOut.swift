// Cause fan-out: how many updates one cause event made run ("@Observable X -> Row.body x12 per
// event"). `tracesvc inspect` prints it, the collection fan-out finding is built on it, the
// comparison matches it between two traces and the fan-out budget limits it.

/// Edges from cause events into nodes whose body ran, merged by (source, target, label, property).
public struct CauseFanOut: Sendable, Equatable {
    /// One cause event (a source node) and the updates its edges of this fan-out made run.
    public struct Event: Sendable, Equatable {
        public var source: Int
        /// Rows of the update table, in edge order.
        public var updates: [Int]
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

    public var updateCount: Int { events.reduce(0) { $0 + $1.updates.count } }
    public var minPerEvent: Int { events.map(\.updates.count).min() ?? 0 }
    public var maxPerEvent: Int { events.map(\.updates.count).max() ?? 0 }

    /// What identifies the same fan-out in another trace.
    public struct Key: Sendable, Hashable {
        public var source: String, target: String, label: String, property: String
    }

    public var key: Key { Key(source: source, target: target, label: label.wireName, property: property) }

    /// "×12", or "×1–3" when events fanned out to different numbers of targets.
    public var fanOutText: String { minPerEvent == maxPerEvent ? "×\(minPerEvent)" : "×\(minPerEvent)–\(maxPerEvent)" }

    /// "@Observable X (items) → Row.body ×12 [creation]"
    public var edgeText: String {
        let changed = property.isEmpty ? "" : " (\(property))"
        return "\(source)\(changed) → \(target) \(fanOutText)\(label == .creation ? " [creation]" : "")"
    }
}

extension Trace {
    /// Every fan-out whose updates overlap `range` (nil = the whole trace), most updates first
    /// (ties in order of first appearance).
    public func causeFanOuts(in range: TimeRange? = nil) -> [CauseFanOut] {
        struct Key: Hashable {
            var sourceName: StringRef, sourceKind: NodeKind, targetName: StringRef, targetKind: NodeKind
            var label: EdgeLabel, property: StringRef
        }
        struct EventKey: Hashable { var fanOut: Int, source: UInt32 }
        let nodes = graph.nodes
        let edges = graph.edges
        var indexOfKey: [Key: Int] = [:]
        var fanOuts: [CauseFanOut] = []
        var indexOfEvent: [EventKey: Int] = [:]
        for edge in 0..<edges.count {
            let target = Int(edges.target[edge])
            let update = nodes.update[target]
            guard update != noRow else { continue }
            if let range, !range.overlaps(start: updates.start[Int(update)], end: updates.end(Int(update))) { continue }
            let source = edges.source[edge]
            let key = Key(
                sourceName: nodes.name[Int(source)], sourceKind: nodes.kind[Int(source)],
                targetName: nodes.name[target], targetKind: nodes.kind[target],
                label: edges.label[edge], property: edges.changedProperty[edge]
            )
            let fanOut: Int
            if let known = indexOfKey[key] {
                fanOut = known
            } else {
                fanOut = fanOuts.count
                indexOfKey[key] = fanOut
                fanOuts.append(CauseFanOut(
                    source: fanOutTitle(Int(source)), sourceKind: key.sourceKind, sourceOwner: string(nodes.owner[Int(source)]),
                    target: fanOutTitle(target), targetName: string(key.targetName), targetKind: key.targetKind,
                    label: key.label, property: string(key.property), events: []
                ))
            }
            let eventKey = EventKey(fanOut: fanOut, source: source)
            if let event = indexOfEvent[eventKey] {
                fanOuts[fanOut].events[event].updates.append(Int(update))
            } else {
                indexOfEvent[eventKey] = fanOuts[fanOut].events.count
                fanOuts[fanOut].events.append(CauseFanOut.Event(source: Int(source), updates: [Int(update)]))
            }
        }
        let totals = fanOuts.map(\.updateCount)
        let order = fanOuts.indices.sorted { (totals[$0], $1) > (totals[$1], $0) }
        return order.map { fanOuts[$0] }
    }

    private func fanOutTitle(_ node: Int) -> String {
        let name = string(graph.nodes.name[node])
        return graph.nodes.kind[node] == .viewBody ? "\(name).body" : name
    }
}
