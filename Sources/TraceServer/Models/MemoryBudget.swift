import Synchronization

/// The memory the store's traces may take: every trace model alive in the process is counted
/// until the last request using it lets go, whether the store still caches it or has evicted it,
/// and so is every parse or load in flight (by its estimate until it is done).
///
/// Memory is held through `Claim`s: a load claims its estimate before it starts, and its trace
/// keeps the claim (resized to its real footprint) for as long as anyone holds the trace; the
/// claim is given back when the last holder drops it. A load that does not fit waits until
/// enough is given back; one that could never fit (a trace larger than the whole budget) runs
/// once nothing else is held, alone.
///
/// Fair share: waiters are served by client (the request's, `WorkClient.currentKey`), the client
/// served least recently first and each client's own in order, so one client's flood of loads
/// delays another client's load by one load, not by the flood; and one client may have at most
/// `maxWaitingPerClient` loads waiting. The waiter chosen is served once it fits (no one
/// overtakes it, so a large load is not starved by small ones).
///
/// No wait is forever: a waiter whose memory is not given back within `maxWait` (the memory is
/// held by requests that themselves wait, as compares in a ring would) is refused with
/// `StoreError.busy`, and `close()` (the server stopping) refuses every waiter at once.
final class MemoryBudget: Sendable {
    let limit: Int
    /// Loads waiting for memory at most; more are refused (503) rather than queued.
    let maxWaiting: Int
    /// ...and from one client.
    let maxWaitingPerClient: Int
    /// How long a claim waits for memory before it is refused.
    let maxWait: Duration
    static let busyDetail = "busy: the memory budget is held by other requests; try again in a moment."
    private let state = Mutex(State())
    private let pressure = Mutex<(@Sendable () -> Void)?>(nil)

    private struct State {
        var used = 0
        var peakUsed = 0
        var nextWaiter = 0
        var waiters: [Waiter] = []
        var isClosed = false
        /// When each client with waiters was last granted a claim (a count of grants).
        var lastGranted: [String: Int] = [:]
        var grants = 0

        /// The waiter to serve next: of the client granted least recently, its oldest.
        var next: Int? {
            waiters.indices.min { a, b in
                let (servedA, servedB) = (lastGranted[waiters[a].client, default: 0], lastGranted[waiters[b].client, default: 0])
                return servedA != servedB ? servedA < servedB : waiters[a].id < waiters[b].id
            }
        }
    }

    private struct Waiter {
        var id: Int
        var client: String
        var bytes: Int
        /// Bytes of claims the waiter itself holds (the first trace of a compare): they cannot
        /// be given back while it waits, so they do not count as someone else's.
        var ownBytes: Int
        /// Claims held by the other requests that wait for this claim (a load they share).
        var sharers: Sharers?
        var continuation: CheckedContinuation<Void, any Error>

        var heldByWaiters: Int { ownBytes + (sharers?.bytes ?? 0) }
    }

    init(limit: Int, maxWaiting: Int = 256, maxWaitingPerClient: Int? = nil, maxWait: Duration = .seconds(30)) {
        self.limit = max(1, limit)
        self.maxWaiting = maxWaiting
        self.maxWaitingPerClient = maxWaitingPerClient ?? max(1, maxWaiting / 4)
        self.maxWait = maxWait
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

    /// Claims `bytes` for `client`, waiting until they fit (at most `maxWait`). `holding` are claims the caller
    /// keeps meanwhile; `sharers`, those of other requests waiting for the same claim (a load they share).
    func claim(_ bytes: Int, holding: [Claim] = [], sharers: Sharers? = nil, client: String = WorkClient.currentKey) async throws -> Claim {
        let ownBytes = holding.reduce(0) { $0 + $1.bytes }
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.waiters.isEmpty, Self.fits(bytes, ownBytes: ownBytes + (sharers?.bytes ?? 0), in: state, limit: limit) {
                        Self.grant(bytes, to: client, in: &state)
                        return .success(())
                    }
                    if state.isClosed { return .failure(StoreError.shuttingDown) }
                    guard state.waiters.count < maxWaiting else {
                        return .failure(StoreError.busy("\(state.waiters.count) trace loads are waiting for memory (--memory-budget-mb); try again in a moment."))
                    }
                    let yours = state.waiters.count { $0.client == client }
                    guard yours < maxWaitingPerClient else {
                        return .failure(StoreError.busy("You have \(yours) trace loads waiting for memory already (--memory-budget-mb); try again when they are answered."))
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters.append(Waiter(id: id, client: client, bytes: bytes, ownBytes: ownBytes, sharers: sharers, continuation: continuation))
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
                    let maxWait = maxWait
                    Task { [weak self] in
                        try? await Task.sleep(for: maxWait)
                        self?.refuseWaiter(id, with: StoreError.busy(Self.busyDetail))
                    }
                    signalPressure()
                }
            }
        } onCancel: {
            self.refuseWaiter(id, with: CancellationError())
        }
        return Claim(budget: self, bytes: bytes)
    }

    /// Ends one wait with `error` (when it still waits).
    private func refuseWaiter(_ id: Int, with error: any Error) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            let waiter = state.waiters.remove(at: index)
            if !state.waiters.contains(where: { $0.client == waiter.client }) { state.lastGranted[waiter.client] = nil }
            return waiter
        }
        waiter?.continuation.resume(throwing: error)
        // The waiter gone may have been what held back those behind it.
        if waiter != nil { wakeWaiters() }
    }

    /// The server is stopping: every waiter is refused, and so is every later claim that would wait.
    func close() {
        let waiters = state.withLock { state -> [Waiter] in
            state.isClosed = true
            defer { (state.waiters, state.lastGranted) = ([], [:]) }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(throwing: StoreError.shuttingDown) }
    }

    /// Whether `close()` was called: the server is stopping.
    var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Claims of other requests joined a waiting claim (`Sharers`): it may fit now.
    func sharersChanged() {
        wakeWaiters()
    }

    /// Claims `bytes` at once, without waiting (traces read while the store opens).
    func claimNow(_ bytes: Int) -> Claim {
        state.withLock { Self.grant(bytes, to: nil, in: &$0) }
        return Claim(budget: self, bytes: bytes)
    }

    private static func fits(_ bytes: Int, ownBytes: Int, in state: State, limit: Int) -> Bool {
        state.used + bytes <= limit || state.used - ownBytes <= 0
    }

    private static func grant(_ bytes: Int, to client: String?, in state: inout State) {
        state.used += bytes
        state.peakUsed = max(state.peakUsed, state.used)
        guard let client else { return }
        state.grants += 1
        // Remembered only while the client waits for more (a client that comes back later is new again).
        if state.waiters.contains(where: { $0.client == client }) {
            state.lastGranted[client] = state.grants
        } else {
            state.lastGranted[client] = nil
        }
    }

    fileprivate func change(by delta: Int) {
        state.withLock {
            $0.used += delta
            $0.peakUsed = max($0.peakUsed, $0.used)
        }
        if delta < 0 { wakeWaiters() }
    }

    /// Resumes waiters in turn (`State.next`) while the next one fits.
    private func wakeWaiters() {
        let (ready, stillWaiting) = state.withLock { state -> ([CheckedContinuation<Void, any Error>], Bool) in
            var ready: [CheckedContinuation<Void, any Error>] = []
            while let next = state.next, Self.fits(state.waiters[next].bytes, ownBytes: state.waiters[next].heldByWaiters, in: state, limit: limit) {
                let waiter = state.waiters.remove(at: next)
                Self.grant(waiter.bytes, to: waiter.client, in: &state)
                ready.append(waiter.continuation)
            }
            return (ready, !state.waiters.isEmpty)
        }
        for continuation in ready { continuation.resume() }
        if stillWaiting { signalPressure() }
    }

    /// The claims held by the requests that share one load while they wait for it: they cannot
    /// be given back before the load is done, so the load's claim does not wait for them. Kept
    /// (and so counted) until the load ends; one claim held by two sharers counts once.
    final class Sharers: Sendable {
        private let claims = Mutex<[ObjectIdentifier: Claim]>([:])

        init(_ held: [Claim] = []) { add(held) }

        func add(_ held: [Claim]) {
            claims.withLock { claims in for claim in held { claims[ObjectIdentifier(claim)] = claim } }
        }

        var bytes: Int { claims.withLock { $0.values.reduce(0) { $0 + $1.bytes } } }
    }

    /// Takes `bytes` of `reservation` (claimed before for several loads at once) as a claim of
    /// their own, without waiting: nil when the reservation holds less.
    func take(_ bytes: Int, from reservation: Claim) -> Claim? {
        reservation.give(bytes) ? Claim(budget: self, bytes: bytes) : nil
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

        /// Hands `bytes` of this claim to another (`MemoryBudget.take`): false when it holds less.
        fileprivate func give(_ bytes: Int) -> Bool {
            var current = claimed.load(ordering: .relaxed)
            while current >= bytes {
                let (exchanged, original) = claimed.compareExchange(expected: current, desired: current - bytes, ordering: .relaxed)
                if exchanged { return true }
                current = original
            }
            return false
        }

        /// The estimate replaced by what the trace really takes.
        func resize(to bytes: Int) {
            let old = claimed.exchange(bytes, ordering: .relaxed)
            budget.change(by: bytes - old)
        }
    }
}
