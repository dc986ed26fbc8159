import Testing
import TraceFormats
import TraceModel

/// `Trace.causeFanOuts` (an open-addressing key table over interned names, shared by findings,
/// budgets, inspect and the comparison) against the definition written plainly: per source node,
/// its edges grouped by (source, target, label, property) in order first met.
@Suite struct CauseFanOutReferenceTests {
    private struct Reference: Equatable {
        var source: String, sourceKind: NodeKind, target: String, targetKind: NodeKind, label: EdgeLabel, property: String
        var owner = ""
        var events: [(source: Int, updates: [Int])] = []

        static func == (x: Reference, y: Reference) -> Bool {
            (x.source, x.sourceKind, x.target, x.targetKind, x.label, x.property) == (y.source, y.sourceKind, y.target, y.targetKind, y.label, y.property)
                && x.owner == y.owner
                && x.events.map(\.source) == y.events.map(\.source) && x.events.map(\.updates) == y.events.map(\.updates)
        }
    }

    private func reference(_ trace: Trace, in range: TimeRange?, from kinds: Set<NodeKind>) -> [Reference] {
        let nodes = trace.graph.nodes, edges = trace.graph.edges
        func title(_ node: Int) -> String { nodes.kind[node] == .viewBody ? trace.string(nodes.name[node]) + ".body" : trace.string(nodes.name[node]) }
        var fanOuts: [Reference] = []
        var indexOfKey: [[String]: Int] = [:]
        for source in 0..<nodes.count where kinds.contains(nodes.kind[source]) {
            var events: [(fanOut: Reference, updates: [Int])] = []
            for edge in trace.graph.outgoing(source).map(Int.init) {
                let target = Int(edges.target[edge]), update = Int(nodes.update[target])
                guard update >= 0 else { continue }
                if let range, !range.overlaps(start: trace.updates.start[update], end: trace.updates.end(update)) { continue }
                let key = Reference(source: title(source), sourceKind: nodes.kind[source], target: title(target), targetKind: nodes.kind[target],
                                    label: edges.label[edge], property: trace.string(edges.changedProperty[edge]), owner: trace.string(nodes.owner[source]))
                if let index = events.firstIndex(where: { $0.fanOut == key }) { events[index].updates.append(update) } else { events.append((key, [update])) }
            }
            for (key, updates) in events {
                // The owner is the first event's source's: fan-outs are told apart without it.
                let identity = [key.source, "\(key.sourceKind)", key.target, "\(key.targetKind)", "\(key.label)", key.property]
                if let index = indexOfKey[identity] {
                    fanOuts[index].events.append((source, updates))
                } else {
                    indexOfKey[identity] = fanOuts.count
                    var fanOut = key
                    fanOut.events = [(source, updates)]
                    fanOuts.append(fanOut)
                }
            }
        }
        let totals = fanOuts.map { $0.events.reduce(0) { $0 + $1.updates.count } }
        return fanOuts.indices.sorted { (totals[$0], $1) > (totals[$1], $0) }.map { fanOuts[$0] }
    }

    private func fast(_ trace: Trace, in range: TimeRange?, from kinds: Set<NodeKind>) -> [Reference] {
        trace.causeFanOuts(in: range, from: kinds).map { fanOut in
            Reference(source: fanOut.source, sourceKind: fanOut.sourceKind, target: fanOut.target, targetKind: fanOut.targetKind,
                      label: fanOut.label, property: fanOut.property, owner: fanOut.sourceOwner,
                      events: fanOut.events.map { ($0.source, Array($0.updates)) })
        }
    }

    @Test func matchesThePlainDefinitionOnSyntheticAndSampleTraces() throws {
        let traces = [SyntheticTraces.trace(updates: 3_000, seed: 7)] + SampleTraces.names.map(SampleTraces.trace(named:))
        for trace in traces {
            let middle = TimeRange(start: trace.metadata.start + trace.metadata.duration / 3, end: trace.metadata.end - trace.metadata.duration / 3)
            for (range, kinds) in [(nil, Set(NodeKind.allCases)), (middle, Set(NodeKind.allCases)), (nil, [NodeKind.state, .observable])] {
                let expected = reference(trace, in: range, from: kinds)
                #expect(!expected.isEmpty || range != nil || kinds.count < NodeKind.allCases.count, "\(trace.metadata.name) has no fan-outs")
                #expect(fast(trace, in: range, from: kinds) == expected, "\(trace.metadata.name) \(String(describing: range)) \(kinds)")
            }
        }
    }
}
