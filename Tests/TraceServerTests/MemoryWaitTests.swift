import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TraceServer

/// Waits for memory end: by a deadline (503 busy), when the server stops, and never in a ring
/// of compares each holding one side.
@Suite struct MemoryWaitTests {
    @Test func aClaimThatCannotFitIsRefusedAfterItsWaitAndWhenTheBudgetCloses() async throws {
        let budget = MemoryBudget(limit: 100, maxWait: .milliseconds(300))
        let held = budget.claimNow(100)
        let started = ContinuousClock.now
        await #expect(throws: StoreError.busy(MemoryBudget.busyDetail)) { _ = try await budget.claim(50) }
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(budget.waiting == 0)

        let closing = MemoryBudget(limit: 100, maxWait: .seconds(600))
        let heldToo = closing.claimNow(100)
        let waiter = Task { try await closing.claim(50) }
        while closing.waiting == 0 { try await Task.sleep(for: .milliseconds(5)) }
        closing.close()
        await #expect(throws: StoreError.shuttingDown) { _ = try await waiter.value }
        await #expect(throws: StoreError.shuttingDown) { _ = try await closing.claim(50) }
        withExtendedLifetime((held, heldToo)) {}
    }

    @Test func aSharedLoadDoesNotWaitForWhatItsSharersHold() async throws {
        let budget = MemoryBudget(limit: 100, maxWait: .seconds(600))
        let held = budget.claimNow(100)
        let sharers = MemoryBudget.Sharers()
        let load = Task { try await budget.claim(60, sharers: sharers) }
        while budget.waiting == 0 { try await Task.sleep(for: .milliseconds(5)) }
        // Another request joins the load holding the memory in use: waiting for it would be forever.
        sharers.add([held])
        budget.sharersChanged()
        let claim = try await load.value
        #expect(claim.bytes == 60 && budget.used == 160)
        // A reservation hands its bytes to the loads without waiting again.
        let reservation = budget.claimNow(30)
        let part = try #require(budget.take(20, from: reservation))
        #expect(budget.take(20, from: reservation) == nil)
        #expect(part.bytes == 20 && reservation.bytes == 10 && budget.used == 190)
    }

    @Test func comparesInARingOverTracesThatDoNotAllFitAllAnswer() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // Each trace alone takes more than the budget: one runs at a time, alone.
        var options = scratch.options(memoryBudgetBytes: 1 << 20)
        options.memoryWait = .seconds(3)
        try await scratch.withServer(options) { client in
            var ids: [String] = []
            for app in ["Orders", "Maps", "Notes"] { ids.append(try await client.uploadedID(nativeTrace(updates: 20_000, app: app), name: "\(app).json")) }
            let pairs = (0..<6).map { (ids[$0 % 3], ids[($0 + 1) % 3]) }
            let started = ContinuousClock.now
            let statuses = try await withThrowingTaskGroup(of: (UInt, String).self) { group in
                for (a, b) in pairs {
                    group.addTask {
                        let response = try await client.get("/api/compare?a=\(a)&b=\(b)")
                        return (UInt(response.status.code), response.headers[.retryAfter] ?? "")
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(ContinuousClock.now - started < .seconds(90))
            #expect(statuses.count == 6)
            for (status, retryAfter) in statuses {
                #expect(status == 200 || (status == 503 && retryAfter == "5"), "a compare answered \(status)")
            }
            #expect(statuses.contains { $0.0 == 200 })
            // Nothing is left waiting: a later load answers.
            #expect(try await client.get("/api/traces/\(ids[1])/summary").status == .ok)
        }
    }
}
