import Foundation
import Synchronization
import Testing
@testable import TraceServer

/// A request whose work does not stop when asked (a builder between two cancellation checks)
/// no longer holds a stopping server past its grace (issue 39: SIGTERM during hostile queries took
/// 16-31 s with a 3 s grace, then 22 s while one `/summary` built; `scripts/bench-hostile.py
/// --sigterm-grace 3` measures it end to end).
@Suite struct ShutdownGraceTests {
    final class Flags: Sendable {
        let release = Atomic(false)
        let ended = Atomic(false)
        var isEnded: Bool { ended.load(ordering: .relaxed) }
    }

    /// Requests are cancelled when the grace is over; nothing has said "stopping" by then (the
    /// store's services stop after the HTTP server), which is how the last build held it to 22 s.
    @Test func aCancelledCallerLeavesAtOnceWhileTheWorkKeepsItsSlot() async throws {
        let flags = Flags()
        let gate = WorkGate(name: "queries", limit: 1, maxWaiting: 4)
        let stubborn = Task {
            try await gate.run {
                // Never checks for cancellation: ends only when released.
                while !flags.release.load(ordering: .relaxed) { Thread.sleep(forTimeInterval: 0.005) }
                flags.ended.store(true, ordering: .relaxed)
                return 1
            }
        }
        while await gate.peakRunning == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let cancelledAt = ContinuousClock.now
        // Released after 3 s at the latest, so a caller that waits for its work fails rather than hangs.
        let backstop = Task { try await Task.sleep(for: .seconds(3)); flags.release.store(true, ordering: .relaxed) }
        defer { backstop.cancel() }
        stubborn.cancel()
        await #expect(throws: CancellationError.self) { try await stubborn.value }
        #expect(ContinuousClock.now - cancelledAt < .seconds(2), "the caller left without waiting for the work")
        #expect(!flags.isEnded)

        // The slot stays with the work until it ends: the next query waits for it.
        let next = Task { try await gate.run { 2 } }
        try await Task.sleep(for: .milliseconds(100))
        #expect(await gate.peakRunning == 1)
        flags.release.store(true, ordering: .relaxed)
        #expect(try await next.value == 2)
        #expect(flags.isEnded)
    }

    @Test func aHistoryWaitingForAnUploadsFiguresStopsWhenCancelled() async throws {
        let flags = Flags()
        let build = Task<Void, Never>.detached {
            while !flags.release.load(ordering: .relaxed) { try? await Task.sleep(for: .milliseconds(5)) }
        }
        defer { flags.release.store(true, ordering: .relaxed) }
        let waiting = Task { await build.valueUnlessCancelled() }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        let value: Void? = await waiting.value
        #expect(value == nil, "gave up waiting")
        flags.release.store(true, ordering: .relaxed)
        let done: Void? = await Task { await build.valueUnlessCancelled() }.value
        #expect(done != nil)
    }
}
