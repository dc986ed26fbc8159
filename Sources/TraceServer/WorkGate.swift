import NIOPosix

/// At most `limit` pieces of heavy work at once, and at most `maxWaiting` queued behind them;
/// beyond that the request is refused with 503 rather than piling up memory and latency.
/// Waiters hold no thread: they are suspended on this actor.
actor WorkGate {
    let name: String
    let limit: Int
    let maxWaiting: Int
    private var running = 0
    /// Most pieces of work that ran at once (diagnostics and tests).
    private(set) var peakRunning = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(name: String, limit: Int, maxWaiting: Int) {
        self.name = name
        self.limit = max(1, limit)
        self.maxWaiting = max(0, maxWaiting)
    }

    /// Refused: too much of this work is running and waiting already.
    struct Busy: Error, Sendable {
        var detail: String
    }

    func enter() async throws(Busy) {
        if running < limit {
            running += 1
            peakRunning = max(peakRunning, running)
            return
        }
        guard waiters.count < maxWaiting else {
            throw Busy(detail: "\(running) \(name) are running and \(waiters.count) are waiting; try again in a moment.")
        }
        // The slot is handed over by `leave()`: `running` already counts this caller when it resumes.
        let started = ContinuousClock.now
        await withCheckedContinuation { waiters.append($0) }
        TraceMetrics.gateWait(name, ContinuousClock.now - started)
    }

    func leave() {
        if waiters.isEmpty {
            running -= 1
        } else {
            waiters.removeFirst().resume()
        }
    }

    /// Runs `work` on NIO's blocking thread pool once a slot is free: CPU-heavy queries and
    /// parsing never occupy the cooperative pool, so cheap requests stay fast meanwhile.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await enter()
        do {
            let result = try await NIOThreadPool.singleton.runIfActive(work)
            leave()
            return result
        } catch {
            leave()
            throw error
        }
    }
}
