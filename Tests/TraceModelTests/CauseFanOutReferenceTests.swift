import Testing
@testable import TraceModel
import TraceSamples

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

    // MARK: The comparison's counts

    /// `causeFanOutCounts` (one pass, tallies in a grid of class pairs, a key table past it)
    /// against the numbers of the events `forEachFanOutEvent` walks: same keys in the same
    /// order, same events, updates, least and most per event.
    private func expectCountsMatchEvents(_ trace: Trace, in range: TimeRange?, _ comment: String) {
        var expected: [FanOutCount] = []
        let expectedKeys = trace.forEachFanOutEvent(in: range, from: Set(NodeKind.allCases)) { fanOut, _, updates in
            if fanOut == expected.count { expected.append(FanOutCount()) }
            expected[fanOut].events += 1
            expected[fanOut].updates += updates.count
            expected[fanOut].minPerEvent = min(expected[fanOut].minPerEvent, updates.count)
            expected[fanOut].maxPerEvent = max(expected[fanOut].maxPerEvent, updates.count)
        }
        let (keys, counts) = trace.causeFanOutCounts(in: range)
        #expect(keys == expectedKeys, "\(comment)")
        let numbers = { (count: FanOutCount) in [count.events, count.updates, count.minPerEvent, count.maxPerEvent] }
        #expect(counts.map(numbers) == expected.map(numbers), "\(comment)")
    }

    /// A graph written edge by edge: each event is a new source node with edges to new target
    /// nodes (each with an update), in the order given.
    private func graph(_ events: [(source: String, kind: NodeKind, edges: [(target: String, property: String, label: EdgeLabel)])]) throws -> Trace {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "fan-outs", start: 0, end: 10_000_000_000, sourceFormat: "test"))
        let module = builder.intern("App")
        var time: Nanoseconds = 1_000, eventID: Int64 = 1
        for event in events {
            let source = builder.addNode(kind: event.kind, name: builder.intern(event.source), isAppCode: true, eventID: eventID, timestamp: time)
            eventID += 1
            for edge in event.edges {
                let view = builder.intern(edge.target)
                let update = builder.addUpdate(start: time, duration: 1_000, kind: .viewBody, module: module, viewName: view)
                let target = builder.addNode(kind: .viewBody, name: view, isAppCode: true, eventID: eventID, timestamp: time, update: update)
                eventID += 1
                builder.addEdge(source: source, target: target, label: edge.label, changedProperty: builder.intern(edge.property), timestamp: time)
                time += 2_000
            }
        }
        return try builder.build()
    }

    @Test func comparisonCountsMatchTheEventWalk() throws {
        let traces = [SyntheticTraces.trace(updates: 3_000, seed: 7), SyntheticTraces.trace(updates: 5_000, seed: 8)]
            + SampleTraces.names.map(SampleTraces.trace(named:))
        for trace in traces {
            let middle = TimeRange(start: trace.metadata.start + trace.metadata.duration / 3, end: trace.metadata.end - trace.metadata.duration / 3)
            for range in [nil, middle] { expectCountsMatchEvents(trace, in: range, "\(trace.metadata.name) \(String(describing: range))") }
        }
    }

    @Test func comparisonCountsKeepPropertiesOfOnePairApartAndEventsOfOneSourceTogether() throws {
        // One grid cell (@State s → Row, update) with two properties, interleaved within a source
        // and across sources; a creation edge of the same pair; a source whose key comes back
        // after another source used it.
        let trace = try graph([
            ("@State s", .state, [("Row", "x", .update), ("Row", "y", .update), ("Row", "x", .update), ("Row", "x", .creation)]),
            ("@State s", .state, [("Row", "y", .update)]),
            ("@State t", .state, [("Row", "x", .update), ("Cell", "x", .update)]),
            ("@State s", .state, [("Row", "x", .update), ("Row", "x", .update), ("Row", "x", .update)]),
        ])
        expectCountsMatchEvents(trace, in: nil, "two properties")
        let (keys, counts) = trace.causeFanOutCounts(in: nil)
        let rowX = try #require(keys.firstIndex { trace.string($0.sourceName) == "@State s" && trace.string($0.property) == "x" && $0.label == .update })
        #expect((counts[rowX].events, counts[rowX].updates, counts[rowX].minPerEvent, counts[rowX].maxPerEvent) == (2, 5, 2, 3))
        #expect(keys.count == 5)
    }

    @Test func comparisonCountsWithTooManyKindsOfNodeForAGrid() throws {
        // 600 names: a grid of 600² pairs would be larger than the cache of pairs allows.
        var events: [(source: String, kind: NodeKind, edges: [(target: String, property: String, label: EdgeLabel)])] = []
        for index in 0..<300 {
            events.append(("@Observable Model\(index)", .observable, [("Row\(index)", "", .update), ("Row\(index)", "", .update)]))
            events.append(("@Observable Model\(index % 7)", .observable, [("Row\(index % 5)", "p\(index % 3)", .update)]))
        }
        let trace = try graph(events)
        expectCountsMatchEvents(trace, in: nil, "no grid")
        expectCountsMatchEvents(trace, in: TimeRange(start: 100_000, end: 600_000), "no grid, a range")
    }
}
