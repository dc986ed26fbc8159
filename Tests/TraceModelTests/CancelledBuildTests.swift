import Testing
@testable import TraceModel

/// Issue 39: every long builder checks cancellation. A findings build or a view-list build whose
/// request went away (its client left, the server stops) stops early and keeps nothing, as the
/// summary and the stack chart already did; the next request builds it whole.
@Suite struct CancelledBuildTests {
    /// 20,000 long bodies (3 ms) of 50 views, each view 8 times in a transaction: long-body and
    /// repeated-body findings, and lists to sort.
    private func longBodies() throws -> Trace {
        var b = TraceBuilder(metadata: TraceMetadata(name: "ledger", app: "Ledger", start: 0, end: 100_000_000_000, sourceFormat: "test"))
        let process = b.addProcess(TraceProcess(pid: 9, name: "Ledger"))
        let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
        let module = b.intern("Ledger"), label = b.intern("Transaction"), state = b.intern("@Observable LedgerModel")
        var group: Int32 = noRow
        for i in 0..<20_000 {
            let start = Int64(i) * 4_000_000
            if i % 8 == 0 { group = b.addUpdateGroup(start: start, duration: 32_000_000, label: label, thread: main) }
            let view = b.intern("Entry\(i / 8 % 50)Row")
            let row = b.addUpdate(start: start, duration: 3_000_000 + Int64(i % 17), kind: .viewBody, module: module,
                                  viewName: view, thread: main, group: group)
            // Each run caused by a change of its own: the view runs again, not a sibling instance.
            let body = b.addNode(kind: .viewBody, name: view, isAppCode: true, eventID: Int64(2 * i + 1), timestamp: start, update: row)
            let change = b.addNode(kind: .observable, name: state, owner: module, isAppCode: true, eventID: Int64(2 * i + 2), timestamp: start)
            b.addEdge(source: change, target: body, label: .update, timestamp: start, group: group)
        }
        return try b.build()
    }


    @Test func aCancelledFindingsBuildStopsInsideItsRules() async throws {
        let trace = try longBodies()
        let whole = trace.findings()
        #expect(whole.contains { $0.kind == .longBody } && whole.contains { $0.kind == .repeatedBody }, "\(whole.map(\.id))")
        // The whole build answers nothing; each long rule on its own stops inside its loop over the updates.
        #expect(await cancelled { trace.findings() }.isEmpty)
        #expect(await cancelled { var context = FindingsContext(trace: trace, options: FindingsOptions()); return trace.longBodyFindings(&context) }.isEmpty)
        #expect(await cancelled { var context = FindingsContext(trace: trace, options: FindingsOptions()); return trace.repeatedBodyFindings(&context) }.isEmpty)
        #expect(trace.findings() == whole, "nothing left behind: the next build is whole")
    }

    @Test func aCancelledViewListBuildStopsAndIsNotKept() async throws {
        let trace = try longBodies()
        let lists = trace.indexes.lists
        let partial = await cancelled { lists.viewLists(trace) }
        #expect(partial.viewByStart.allSatisfy { $0 == 0 }, "no update placed: stopped at the first check")
        let partialRows = await cancelled { lists.summaryRows(trace) }
        #expect(partialRows.rowOfUpdate[4096...].allSatisfy { $0 == 0 }, "stopped at update 4096, its first check after the first update")
        #expect(lists.memoryFootprint == 0, "neither is kept")
        // Asked again, uncancelled: whole, and kept.
        let built = lists.viewLists(trace)
        #expect(Set(built.viewByStart).count == 20_000)
        let rows = lists.summaryRows(trace)
        #expect(rows.rows.count == 50 && !rows.rowOfUpdate[4096...].allSatisfy { $0 == 0 })
        #expect(lists.memoryFootprint > 0)
    }
}

/// Runs `work` in a task cancelled before it starts.
func cancelled<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    let task = Task { () -> T in
        while !Task.isCancelled { await Task.yield() }
        return work()
    }
    task.cancel()
    return await task.value
}
