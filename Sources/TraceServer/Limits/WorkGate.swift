import Foundation
import NIOPosix
import Synchronization

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
    /// Pieces of work running and waiting now (`/metrics`).
    var load: (running: Int, waiting: Int) { (runningTotal, waitingTotal) }
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
    /// A cancelled caller leaves at once, whether or not its work has reached a point where it
    /// checks (a builder holding a lock others wait on does not), so a stopping server keeps its
    /// grace: requests are cancelled when the grace is over, and the stop cannot be told apart
    /// earlier (Hummingbird stops its services one by one, the HTTP server first, so a flag the
    /// store's services raise comes after the requests, too late). The work keeps its slot until
    /// it ends, so no more than `limit` runs.
    func run<T: Sendable>(for client: WorkClient = .server, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await enter(client.key, connection: client.connection)
        let task = Task(executorPreference: BlockingPoolExecutor.shared) { () throws -> T in
            let value = try work()
            try Task.checkCancellation()
            return value
        }
        let result: Result<T, any Error>
        if let answered = await Self.result(of: task, unlessCancelledOr: client.connection) {
            result = answered
        } else if Task.isCancelled {
            let key = client.key
            Task { _ = await task.result; self.leave(key) }
            throw CancellationError()
        } else {
            // The client left: its work stops at its next check, and the slot is free once it has.
            result = await task.result
        }
        leave(client.key)
        return try result.get()
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
    /// input (an upload still arriving, a cold open's blob), which must not hold one of the
    /// blocking pool's few threads meanwhile. It is not cancelled: its input stops it
    /// (`GrowingFile.abandon`). It waits its turn as the client of the request it is for (the
    /// task's `WorkClient.currentKey`), as `run` does: charged to the server, one client's
    /// flood of cold opens would go around the fair share.
    func runOnOwnThread<T: Sendable>(for client: String = WorkClient.currentKey, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await enter(client)
        defer { leave(client) }
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    /// `task`'s result; nil as soon as the caller is cancelled or `connection` closes (the task is
    /// cancelled then, and may still be running: a cancelled piece of work may return early with a
    /// partial answer, which is never used).
    private static func result<T: Sendable>(of task: Task<T, any Error>, unlessCancelledOr connection: ConnectionWatch?) async -> Result<T, any Error>? {
        let waiter = OneAnswer<Result<T, any Error>?>()
        let watching = connection?.onClose {
            task.cancel()
            waiter.answer(nil)
        }
        defer { if let watching { connection?.remove(watching) } }
        Task { waiter.answer(await task.result) }
        return await withTaskCancellationHandler {
            await waiter.value()
        } onCancel: {
            task.cancel()
            waiter.answer(nil)
        }
    }
}

extension Task where Failure == any Error {
    /// The task's result, or nil as soon as the caller is cancelled (the task itself runs on).
    func resultUnlessCancelled() async -> Result<Success, any Error>? {
        let waiter = OneAnswer<Result<Success, any Error>?>()
        Task<Void, Never> { waiter.answer(await self.result) }
        return await withTaskCancellationHandler { await waiter.value() } onCancel: { waiter.answer(nil) }
    }
}

extension Task where Failure == Never {
    /// The task's value, or nil as soon as the caller is cancelled (the task itself runs on).
    func valueUnlessCancelled() async -> Success? {
        let waiter = OneAnswer<Success?>()
        Task<Void, Never> { waiter.answer(await self.value) }
        return await withTaskCancellationHandler { await waiter.value() } onCancel: { waiter.answer(nil) }
    }
}

/// A value given once (later answers are ignored) and awaited once.
final class OneAnswer<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, Never>)
        case answered(Value)
        case done
    }

    private let state = Mutex(State.empty)

    func answer(_ value: Value) {
        let waiting = state.withLock { state -> CheckedContinuation<Value, Never>? in
            switch state {
            case .empty:
                state = .answered(value)
                return nil
            case let .waiting(continuation):
                state = .done
                return continuation
            case .answered, .done:
                return nil
            }
        }
        waiting?.resume(returning: value)
    }

    func value() async -> Value {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Value? in
                if case let .answered(value) = state {
                    state = .done
                    return value
                }
                state = .waiting(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
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
