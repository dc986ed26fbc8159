import Foundation
import Logging
import Synchronization
import Testing
@testable import TraceStorage

/// The circuit breaker and the transfer deadline, without a network: what a request sees while
/// a service is down, and when a slow transfer counts as down.
struct FailFastTests {
    final class Calls: Sendable {
        let count = Atomic<Int>(0)
        let serviceIsUp = Atomic<Bool>(false)
    }

    @Test func afterAnUnavailableCallTheNextFailsAtOnceUntilTheProbeFindsTheServiceBack() async throws {
        let breaker = CircuitBreaker(service: "object store (test)", probeInterval: .milliseconds(50), logger: Logger(label: "test"))
        let calls = Calls()
        let probe: @Sendable () async throws -> Void = {
            guard calls.serviceIsUp.load(ordering: .relaxed) else { throw StorageError.unavailable(service: "object store (test)", detail: "refused") }
        }
        await #expect(throws: StorageError.self) {
            try await breaker.run(probe: probe) { () async throws -> Int in
                calls.count.add(1, ordering: .relaxed)
                throw StorageError.unavailable(service: "object store (test)", detail: "no answer within 2 s")
            }
        }
        // The probe confirms the outage in the background.
        let confirmBy = ContinuousClock.now + .seconds(5)
        while !breaker.isOpen, ContinuousClock.now < confirmBy { try await Task.sleep(for: .milliseconds(10)) }
        #expect(breaker.isOpen)
        // Open: the call is not made, and the error names the service and why.
        let started = ContinuousClock.now
        do {
            _ = try await breaker.run(probe: probe) { () async throws -> Int in calls.count.add(1, ordering: .relaxed); return 1 }
            Issue.record("an open breaker let a call through")
        } catch let StorageError.unavailable(service, detail) {
            #expect(service == "object store (test)")
            #expect(detail.contains("no answer within 2 s") || detail.contains("refused"))
        }
        #expect(ContinuousClock.now - started < .milliseconds(50))
        #expect(calls.count.load(ordering: .relaxed) == 1)

        calls.serviceIsUp.store(true, ordering: .relaxed)
        let deadline = ContinuousClock.now + .seconds(5)
        while breaker.isOpen, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!breaker.isOpen)
        #expect(try await breaker.run(probe: probe) { 7 } == 7)
    }

    @Test func aCallThatWasOnlySlowLeavesTheBreakerClosedWhenTheProbeAnswers() async throws {
        let breaker = CircuitBreaker(service: "catalog (test)", probeInterval: .milliseconds(50), logger: Logger(label: "test"))
        let probes = Calls()
        let probe: @Sendable () async throws -> Void = { probes.count.add(1, ordering: .relaxed) }
        // A query past its deadline (a slow plan, say) while the service answers a probe at once.
        await #expect(throws: StorageError.self) {
            try await breaker.run(probe: probe) { () async throws -> Int in
                throw StorageError.unavailable(service: "catalog (test)", detail: "no answer within 2 s")
            }
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while probes.count.load(ordering: .relaxed) == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        #expect(probes.count.load(ordering: .relaxed) == 1)
        #expect(!breaker.isOpen)
        // The next call runs.
        #expect(try await breaker.run(probe: probe) { 7 } == 7)
    }

    @Test func anErrorThatIsNotAnOutageLeavesTheBreakerClosed() async throws {
        let breaker = CircuitBreaker(service: "catalog (test)", logger: Logger(label: "test"))
        await #expect(throws: StorageError.self) {
            try await breaker.run(probe: {}) { () async throws -> Int in throw StorageError.failed(service: "catalog (test)", detail: "syntax") }
        }
        #expect(!breaker.isOpen)
    }

    @Test func aTransferThatKeepsItsRateOutlivesTheFirstBytesDeadlineAndAStalledOneDoesNot() async throws {
        // 30 chunks of 10 KB every 20 ms (~500 KB/s) for 600 ms, against 3 s for the first bytes and 100 KB/s
        // (the first-bytes allowance is wide: the suites beside this one load traces on the same two
        // cooperative threads, and a sleep of 20 ms was measured to resume after more than 500 ms).
        let flowing = TransferProgress()
        let moved = try await withDeadline(firstBytes: .seconds(3), minimumThroughput: 100 << 10, progress: flowing, service: "store") {
            for _ in 0..<30 {
                try await Task.sleep(for: .milliseconds(20))
                flowing.add(10 << 10)
            }
            return flowing.bytes.load(ordering: .relaxed)
        }
        #expect(moved == 300 << 10)

        // The same start, then nothing: unavailable soon after its bytes' allowance, long before the end.
        let stalling = TransferProgress()
        let started = ContinuousClock.now
        do {
            _ = try await withDeadline(firstBytes: .seconds(3), minimumThroughput: 100 << 10, progress: stalling, service: "store") {
                stalling.add(20 << 10)
                try await Task.sleep(for: .seconds(30))
                return 0
            }
            Issue.record("a stalled transfer was not cut")
        } catch let StorageError.unavailable(service, detail) {
            #expect(service == "store")
            #expect(detail.contains("slower than"), "\(detail)")
        }
        // Cut at about 3.2 s (3 s + 20 KB at 100 KB/s), long before the 30 s the work would take.
        #expect(ContinuousClock.now - started < .seconds(15))
    }
}
