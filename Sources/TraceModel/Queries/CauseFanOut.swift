// The cause fan-out: which cause made which view bodies run, and how many per cause event
// ("@Observable ModelData.favoritesCollection → LandmarkListItemView.body ×12 per event").
// `tracesvc inspect` prints it; the comparison matches it between two traces.

/// Edges from one kind of cause to one kind of target, merged over the trace: each cause event
/// (a source node) made `minPerEvent...maxPerEvent` targets run.
public struct CauseFanOut: Sendable, Equatable, Hashable, Encodable {
    /// Node titles; a view body's ends in ".body".
    public var source: String
    public var target: String
    /// "update" or "creation".
    public var label: String
    /// The property whose change travelled along the edges, or "".
    public var property: String
    /// Cause events (source nodes) with at least one such edge.
    public var events: Int
    /// Target updates caused, over all events.
    public var updates: Int
    public var minPerEvent: Int
    public var maxPerEvent: Int

    /// What identifies the same fan-out in another trace.
    public struct Key: Sendable, Hashable {
        public var source: String, target: String, label: String, property: String
    }

    public var key: Key { Key(source: source, target: target, label: label, property: property) }

    /// "×12", or "×1–3" when events fanned out to different numbers of targets.
    public var fanOutText: String { minPerEvent == maxPerEvent ? "×\(minPerEvent)" : "×\(minPerEvent)–\(maxPerEvent)" }

    /// "@Observable X (items) → Row.body ×12 [creation]"
    public var edgeText: String {
        let changed = property.isEmpty ? "" : " (\(property))"
        return "\(source)\(changed) → \(target) \(fanOutText)\(label == EdgeLabel.creation.wireName ? " [creation]" : "")"
    }
}

extension Trace {
    /// Edges into nodes whose body ran (and whose update overlaps `range`), grouped by cause
    /// event and merged by (source title, target title, label, property); most updates first.
    public func causeFanOuts(in range: TimeRange? = nil) -> [CauseFanOut] {
        struct Key: Hashable {
            var source: StringRef, target: StringRef, property: StringRef
            var sourceIsBody: Bool, targetIsBody: Bool, label: EdgeLabel
        }
        struct Totals { var key: Key, events = 0, updates = 0, minPerEvent = Int.max, maxPerEvent = 0 }
        let nodes = graph.nodes, edges = graph.edges
        var ids: [Key: Int] = [:]
        var totals: [Totals] = []
        // Walk by source node (one node is one cause event), counting each event's targets per
        // key in `eventCount` (reset through `touched`) instead of a (key, event) table.
        var eventCount: [Int] = []
        var touched: [Int] = []
        for source in 0..<nodes.count {
            for edge in graph.outgoing(source) {
                let target = Int(edges.target[Int(edge)])
                let update = nodes.update[target]
                guard update != noRow else { continue }
                if let range, !range.overlaps(start: updates.start[Int(update)], end: updates.end(Int(update))) { continue }
                let key = Key(
                    source: nodes.name[source], target: nodes.name[target], property: edges.changedProperty[Int(edge)],
                    sourceIsBody: nodes.kind[source] == .viewBody, targetIsBody: nodes.kind[target] == .viewBody, label: edges.label[Int(edge)]
                )
                let id: Int
                if let known = ids[key] {
                    id = known
                } else {
                    id = totals.count
                    ids[key] = id
                    totals.append(Totals(key: key))
                    eventCount.append(0)
                }
                if eventCount[id] == 0 { touched.append(id) }
                eventCount[id] += 1
            }
            for id in touched {
                let count = eventCount[id]
                eventCount[id] = 0
                totals[id].events += 1
                totals[id].updates += count
                totals[id].minPerEvent = min(totals[id].minPerEvent, count)
                totals[id].maxPerEvent = max(totals[id].maxPerEvent, count)
            }
            touched.removeAll(keepingCapacity: true)
        }
        let rows = totals.map { total in
            let key = total.key
            return CauseFanOut(
                source: string(key.source) + (key.sourceIsBody ? ".body" : ""), target: string(key.target) + (key.targetIsBody ? ".body" : ""),
                label: key.label.wireName, property: string(key.property), events: total.events, updates: total.updates,
                minPerEvent: total.minPerEvent, maxPerEvent: total.maxPerEvent
            )
        }
        return rows.sorted { ($0.updates, $1.source, $1.target, $1.property) > ($1.updates, $0.source, $0.target, $0.property) }
    }
}
