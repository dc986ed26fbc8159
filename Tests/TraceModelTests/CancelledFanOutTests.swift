import Testing
@testable import TraceModel

/// The cause fan-out walks check cancellation as they go: a client that leaves (or a stopping
/// server) does not keep a walk over every edge running, and a side built meanwhile is not kept.
@Suite struct CancelledFanOutTests {
    /// Ledger's 20,000 row bodies, each made to run by a change of its own (20,000 fan-out
    /// sources, 50 views), then one change of `LedgerModel.filter` that makes all of them run again.
    private func ledger() throws -> Trace {
        var b = TraceBuilder(metadata: TraceMetadata(name: "ledger", app: "Ledger", start: 0, end: 100_000_000_000, sourceFormat: "test"))
        let process = b.addProcess(TraceProcess(pid: 9, name: "Ledger"))
        let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
        let module = b.intern("Ledger"), state = b.intern("@Observable LedgerModel"), filter = b.intern("@Observable LedgerModel.filter")
        let refilter = b.addNode(kind: .observable, name: filter, owner: module, isAppCode: true, eventID: 1, timestamp: 0)
        for i in 0..<20_000 {
            let start = Int64(i) * 4_000_000
            let view = b.intern("Entry\(i % 50)Row")
            let row = b.addUpdate(start: start, duration: 1_000_000, kind: .viewBody, module: module, viewName: view, thread: main)
            let body = b.addNode(kind: .viewBody, name: view, isAppCode: true, eventID: Int64(2 * i + 2), timestamp: start, update: row)
            let change = b.addNode(kind: .observable, name: state, owner: module, isAppCode: true, eventID: Int64(2 * i + 3), timestamp: start)
            b.addEdge(source: change, target: body, label: .update, timestamp: start)
            b.addEdge(source: refilter, target: body, label: .update, timestamp: start)
        }
        return try b.build()
    }


    @Test func aCancelledFanOutWalkStopsAtItsFirstCheck() async throws {
        let trace = try ledger()
        let whole = trace.causeFanOuts()
        #expect(whole.count == 100 && whole.allSatisfy { $0.updateCount == 400 })
        #expect(whole.filter { $0.source == "@Observable LedgerModel.filter" }.allSatisfy { $0.events.count == 1 })
        #expect(trace.causeFanOutCounts(in: nil).keys.count == 100)
        // Cancelled before its first source: no fan-out walked, none counted.
        #expect(await cancelled { trace.causeFanOuts() }.isEmpty)
        #expect(await cancelled { trace.causeFanOutCounts(in: nil).keys.count } == 0)
        #expect(trace.causeFanOuts() == whole, "the next walk is whole")
    }

    @Test func aComparisonSideBuiltWhileCancelledIsNotKept() async throws {
        let trace = try ledger()
        let cache = ComparisonSideCache()
        #expect(await cancelled { cache.side(of: trace, findings: []).fanOutKeys.count } == 0)
        #expect(cache.side(of: trace, findings: []).fanOutKeys.count == 100, "built whole when asked again")
    }

    @Test func aCancelledCauseGraphWalkStopsAtItsFocus() async throws {
        let trace = try ledger()
        // Row 0's graph: its two causes, and what the filter's change made run besides (folded).
        let whole = try #require(trace.causeGraph(ofUpdate: 0))
        #expect(whole.nodes.contains { $0.title == "@Observable LedgerModel.filter" } && whole.edges.count >= 2)
        let partial = try #require(await cancelled { trace.causeGraph(ofUpdate: 0) })
        #expect(partial.nodes.map(\.title) == ["Entry0Row"] && partial.edges.isEmpty, "\(partial.nodes.map(\.title))")
    }
}
