import Foundation
import NIOPosix

/// At most `limit` pieces of heavy work at once, shared fairly between clients, and a bounded
/// queue behind them; beyond it the request is refused with 503 rather than piling up memory and
/// latency. Waiters hold no thread: they are suspended on this actor.
///
/// Fairness: when a slot frees, it goes to the waiting client running the fewest pieces of work,
/// and among equals to the one served least recently (round robin), so one client's flood of
/// compares delays another client's summary by one piece of work, not by the whole flood. Each
/// client may queue at most `maxWaitingPerClient`.
///
/// Cancellation: work runs in a task of its own on NIO's blocking thread pool; it is cancelled
/// when the request is (the server is stopping) or the client's connection closes, and the
/// model's long loops poll `Task.isCancelled` and stop. A cancelled waiter leaves the queue.
actor WorkGate {
    let name: String
    let limit: Int
    let maxWaiting: Int
    let maxWaitingPerClient: Int
    private var running: [String: Int] = [:]
    private var runningTotal = 0
    /// Most pieces of work that ran at once (diagnostics and tests).
    private(set) var peakRunning = 0
    private var queues: [String: [Waiter]] = [:]
    private var waitingTotal = 0
    private var nextWaiter = 0
    /// When each client running or waiting last got a slot (a count of slots given).
    private var lastServed: [String: Int] = [:]
    private var slotsGiven = 0

    private struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    init(name: String, limit: Int, maxWaiting: Int, maxWaitingPerClient: Int? = nil) {
        self.name = name
        self.limit = max(1, limit)
        self.maxWaiting = max(0, maxWaiting)
        self.maxWaitingPerClient = max(0, maxWaitingPerClient ?? maxWaiting)
    }

    /// Refused: too much of this work is running and waiting already.
    struct Busy: Error, Sendable {
        var detail: String
    }

    /// Takes a slot for `client`, waiting for one if needed; a wait ends with CancellationError
    /// when the caller is cancelled or `connection` closes.
    func enter(_ client: String = WorkClient.server.key, connection: ConnectionWatch? = nil) async throws {
        if runningTotal < limit, waitingTotal == 0 {
            start(client)
            return
        }
        guard waitingTotal < maxWaiting else {
            throw Busy(detail: "\(runningTotal) \(name) are running and \(waitingTotal) are waiting; try again in a moment.")
        }
        guard queues[client, default: []].count < maxWaitingPerClient else {
            throw Busy(detail: "You have \(queues[client, default: []].count) \(name) waiting already; try again when they are answered.")
        }
        nextWaiter += 1
        let id = nextWaiter
        let watching = connection?.onClose { Task { await self.cancelWaiter(id, of: client) } }
        defer { if let watching { connection?.remove(watching) } }
        // The slot is handed over by `leave()`: `running` already counts this caller when it resumes.
        let started = ContinuousClock.now
        defer { TraceMetrics.gateWait(name, ContinuousClock.now - started) }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled || connection?.isClosed == true {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                queues[client, default: []].append(Waiter(id: id, continuation: continuation))
                waitingTotal += 1
            }
        } onCancel: {
            Task { await self.cancelWaiter(id, of: client) }
        }
    }

    func leave(_ client: String = WorkClient.server.key) {
        running[client, default: 1] -= 1
        if running[client] == 0 {
            running[client] = nil
            if queues[client] == nil { lastServed[client] = nil }
        }
        runningTotal -= 1
        // The waiting client running the least gets the slot; among equals, the one served least recently.
        guard let next = queues.keys.min(by: { a, b in
            let (runningA, runningB) = (running[a, default: 0], running[b, default: 0])
            return runningA != runningB ? runningA < runningB : lastServed[a, default: 0] < lastServed[b, default: 0]
        }) else { return }
        let waiter = dequeue(next)
        start(next)
        waiter.continuation.resume()
    }

    private func start(_ client: String) {
        running[client, default: 0] += 1
        slotsGiven += 1
        lastServed[client] = slotsGiven
        runningTotal += 1
        peakRunning = max(peakRunning, runningTotal)
    }

    private func dequeue(_ client: String) -> Waiter {
        let waiter = queues[client]!.removeFirst()
        if queues[client]!.isEmpty { queues[client] = nil }
        waitingTotal -= 1
        return waiter
    }

    private func cancelWaiter(_ id: Int, of client: String) {
        guard let index = queues[client]?.firstIndex(where: { $0.id == id }) else { return }
        let waiter = queues[client]!.remove(at: index)
        if queues[client]!.isEmpty {
            queues[client] = nil
            if running[client] == nil { lastServed[client] = nil }
        }
        waitingTotal -= 1
        waiter.continuation.resume(throwing: CancellationError())
    }

    /// Runs `work` for `client` on NIO's blocking thread pool once a slot is free: CPU-heavy
    /// queries and parsing never occupy the cooperative pool, so cheap requests stay fast meanwhile.
    func run<T: Sendable>(for client: WorkClient = .server, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await enter(client.key, connection: client.connection)
        do {
            let result = try await Self.execute(work, until: client.connection)
            leave(client.key)
            return result
        } catch {
            leave(client.key)
            throw error
        }
    }

    /// Runs `work`, which awaits other services (the catalog) rather than computing, once a slot
    /// is free: it counts against the same limit and fair share as the queries that compute.
    nonisolated func admit<T: Sendable>(for client: WorkClient = .server, _ work: @Sendable () async throws -> T) async throws -> T {
        try await enter(client.key, connection: client.connection)
        do {
            let result = try await work()
            await leave(client.key)
            return result
        } catch {
            await leave(client.key)
            throw error
        }
    }

    /// Runs `work` on a thread of its own once a slot is free: for work that also waits for its
    /// input (an upload still arriving), which must not hold one of the blocking pool's few
    /// threads meanwhile. It is not cancelled: its input stops it (`GrowingFile.abandon`).
    func runOnOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await enter()
        defer { leave(WorkClient.server.key) }
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    /// `work` in a task of its own on the blocking pool, cancelled with the caller or when
    /// `connection` closes. A cancelled piece of work may return early with a partial answer:
    /// it is never used.
    private static func execute<T: Sendable>(_ work: @escaping @Sendable () throws -> T, until connection: ConnectionWatch?) async throws -> T {
        let task = Task(executorPreference: BlockingPoolExecutor.shared) { () throws -> T in
            let value = try work()
            try Task.checkCancellation()
            return value
        }
        let watching = connection?.onClose { task.cancel() }
        defer { if let watching { connection?.remove(watching) } }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }
}

/// Runs tasks' jobs on NIO's blocking thread pool (`NIOThreadPool.singleton`), so synchronous
/// heavy work can run in a task (and see its cancellation) without occupying the cooperative pool.
final class BlockingPoolExecutor: TaskExecutor {
    static let shared = BlockingPoolExecutor(pool: .singleton)
    private let pool: NIOThreadPool

    init(pool: NIOThreadPool) { self.pool = pool }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        // Run even when the pool is stopping (the work item says so): a job never run is a task never finished.
        pool.submit { _ in job.runSynchronously(on: executor) }
    }
}
