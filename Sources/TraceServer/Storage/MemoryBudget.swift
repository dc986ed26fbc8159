import Synchronization

/// The memory the store's traces may take: every trace model alive in the process is counted
/// until the last request using it lets go, whether the store still caches it or has evicted it,
/// and so is every parse or load in flight (by its estimate until it is done).
///
/// Memory is held through `Claim`s: a load claims its estimate before it starts, and its trace
/// keeps the claim (resized to its real footprint) for as long as anyone holds the trace; the
/// claim is given back when the last holder drops it. A load that does not fit waits until
/// enough is given back, first come first served; one that could never fit (a trace larger than
/// the whole budget) runs once nothing else is held, alone.
final class MemoryBudget: Sendable {
    let limit: Int
    /// Loads waiting for memory at most; more are refused (503) rather than queued.
    let maxWaiting: Int
    private let state = Mutex(State())
    private let pressure = Mutex<(@Sendable () -> Void)?>(nil)

    private struct State {
        var used = 0
        var peakUsed = 0
        var nextWaiter = 0
        var waiters: [Waiter] = []
    }

    private struct Waiter {
        var id: Int
        var bytes: Int
        /// Bytes of claims the waiter itself holds (the first trace of a compare): they cannot
        /// be given back while it waits, so they do not count as someone else's.
        var ownBytes: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    init(limit: Int, maxWaiting: Int = 256) {
        self.limit = max(1, limit)
        self.maxWaiting = maxWaiting
    }

    /// Bytes claimed now.
    var used: Int { state.withLock { $0.used } }
    /// Most bytes claimed at once since the start (diagnostics and tests).
    var peakUsed: Int { state.withLock { $0.peakUsed } }
    /// Loads waiting for memory now.
    var waiting: Int { state.withLock { $0.waiters.count } }
    /// A load is waiting for memory: whoever caches traces should evict some.
    var isHoldingBackLoads: Bool { state.withLock { !$0.waiters.isEmpty } }

    /// Called (on any thread) whenever a load has to wait: the cache's owner evicts for it.
    func onPressure(_ handler: @escaping @Sendable () -> Void) {
        pressure.withLock { $0 = handler }
    }

    private func signalPressure() {
        pressure.withLock { $0 }?()
    }

    /// Claims `bytes`, waiting until they fit. `holding` are claims the caller keeps meanwhile.
    func claim(_ bytes: Int, holding: [Claim] = []) async throws -> Claim {
        let ownBytes = holding.reduce(0) { $0 + $1.bytes }
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.waiters.isEmpty, Self.fits(bytes, ownBytes: ownBytes, in: state, limit: limit) {
                        Self.grant(bytes, in: &state)
                        return .success(())
                    }
                    guard state.waiters.count < maxWaiting else {
                        return .failure(StoreError.busy("\(state.waiters.count) trace loads are waiting for memory (--memory-budget-mb); try again in a moment."))
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters.append(Waiter(id: id, bytes: bytes, ownBytes: ownBytes, continuation: continuation))
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
                    signalPressure()
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
            // The waiter gone may have been what held back those behind it.
            self.wakeWaiters()
        }
        return Claim(budget: self, bytes: bytes)
    }

    /// Claims `bytes` at once, without waiting (traces read while the store opens).
    func claimNow(_ bytes: Int) -> Claim {
        state.withLock { Self.grant(bytes, in: &$0) }
        return Claim(budget: self, bytes: bytes)
    }

    private static func fits(_ bytes: Int, ownBytes: Int, in state: State, limit: Int) -> Bool {
        state.used + bytes <= limit || state.used - ownBytes <= 0
    }

    private static func grant(_ bytes: Int, in state: inout State) {
        state.used += bytes
        state.peakUsed = max(state.peakUsed, state.used)
    }

    fileprivate func change(by delta: Int) {
        state.withLock {
            $0.used += delta
            $0.peakUsed = max($0.peakUsed, $0.used)
        }
        if delta < 0 { wakeWaiters() }
    }

    /// Resumes waiters in order while the first one fits.
    private func wakeWaiters() {
        let (ready, stillWaiting) = state.withLock { state -> ([CheckedContinuation<Void, any Error>], Bool) in
            var ready: [CheckedContinuation<Void, any Error>] = []
            while let first = state.waiters.first, Self.fits(first.bytes, ownBytes: first.ownBytes, in: state, limit: limit) {
                Self.grant(first.bytes, in: &state)
                ready.append(state.waiters.removeFirst().continuation)
            }
            return (ready, !state.waiters.isEmpty)
        }
        for continuation in ready { continuation.resume() }
        if stillWaiting { signalPressure() }
    }

    /// Memory held; given back when the last reference goes (a trace keeps its claim, so an
    /// evicted trace still held by a request stays counted until the request ends).
    final class Claim: Sendable {
        private let budget: MemoryBudget
        private let claimed: Atomic<Int>

        fileprivate init(budget: MemoryBudget, bytes: Int) {
            self.budget = budget
            claimed = Atomic(bytes)
        }

        deinit { budget.change(by: -claimed.load(ordering: .relaxed)) }

        var bytes: Int { claimed.load(ordering: .relaxed) }

        /// The estimate replaced by what the trace really takes.
        func resize(to bytes: Int) {
            let old = claimed.exchange(bytes, ordering: .relaxed)
            budget.change(by: bytes - old)
        }
    }
}
