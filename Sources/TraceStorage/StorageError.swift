import Foundation
import Metrics
import Synchronization

/// What can go wrong with a storage service (catalog or blob store), in storage terms; the server
/// turns it into HTTP in one place. `service` names the service for the person reading the error
/// ("catalog (PostgreSQL)", "object store (S3)").
public enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The service did not answer within its deadline, or refused the connection: retry later.
    case unavailable(service: String, detail: String)
    /// The service answered with an error this server does not expect (the log has the details).
    case failed(service: String, detail: String)
    /// The blob store has no blob with this key.
    case missingBlob(key: String)
    /// A blob's bytes do not hash to its key (damaged in the store or on the way).
    case corruptBlob(key: String)

    public var description: String {
        switch self {
        case let .unavailable(service, detail): "\(service) unavailable: \(detail)"
        case let .failed(service, detail): "\(service) failed: \(detail)"
        case let .missingBlob(key): "no blob \(key)"
        case let .corruptBlob(key): "blob \(key) does not match its hash"
        }
    }
}

/// Runs `operation`, throwing `.unavailable` when it takes longer than `timeout`: a storage call
/// never waits on a service forever. The operation is cancelled then, but not waited for:
/// postgres-nio's pool (seen here) may not return from a cancelled query while the server is
/// coming back, and the caller must get its answer at the deadline all the same.
public func withDeadline<T: Sendable>(
    _ timeout: Duration, service: String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withDeadline(service: service, operation, allowance: { timeout }, reason: { _ in "no answer within \(timeout.shortDescription)" })
}

/// Runs a transfer under a deadline that moves with its bytes: `firstBytes` for nothing to arrive,
/// plus the time `progress`'s bytes take at `minimumThroughput` (bytes/s). A blob's size need
/// not be known before it arrives, and a store that stalls half-way is found as fast as one that
/// never answers.
public func withDeadline<T: Sendable>(
    firstBytes: Duration, minimumThroughput: Int64, progress: TransferProgress, service: String,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let rate = max(1, minimumThroughput)
    return try await withDeadline(service: service, operation, allowance: {
        firstBytes + .milliseconds(progress.bytes.load(ordering: .relaxed) * 1000 / rate)
    }, reason: { elapsed in
        let bytes = progress.bytes.load(ordering: .relaxed)
        return bytes == 0 ? "no answer within \(firstBytes.shortDescription)"
            : "\(bytes >> 10) KB in \(elapsed.shortDescription), slower than \(max(1, rate >> 10)) KB/s"
    })
}

/// Bytes a transfer has moved so far (the deadline above reads it).
public final class TransferProgress: Sendable {
    public let bytes = Atomic<Int64>(0)
    public init() {}
    public func add(_ count: Int) { bytes.add(Int64(count), ordering: .relaxed) }
}

/// The common part: the operation may take `allowance()` (asked again when it runs out, as it may
/// have grown); `reason` says why it was too late.
private func withDeadline<T: Sendable>(
    service: String, _ operation: @escaping @Sendable () async throws -> T,
    allowance: @escaping @Sendable () -> Duration, reason: @escaping @Sendable (Duration) -> String
) async throws -> T {
    let work = Task { try await operation() }
    let outcome = Outcome<T>()
    let started = ContinuousClock.now
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            outcome.set(continuation)
            let timer = Task {
                while !Task.isCancelled {
                    let elapsed = ContinuousClock.now - started
                    let allowed = allowance()
                    if elapsed >= allowed {
                        if outcome.finish(.failure(StorageError.unavailable(service: service, detail: reason(elapsed)))) {
                            work.cancel()
                        }
                        return
                    }
                    try? await Task.sleep(for: allowed - elapsed)
                }
            }
            Task {
                let result = await work.result
                outcome.finish(result)
                timer.cancel()
            }
        }
    } onCancel: {
        work.cancel()
        outcome.finish(.failure(CancellationError()))
    }
}

/// The first of several results, handed to one waiting continuation exactly once.
private final class Outcome<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T, any Error>?, result: Result<T, any Error>?)>((nil, nil))

    func set(_ continuation: CheckedContinuation<T, any Error>) {
        let ready: Result<T, any Error>? = state.withLock { state in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let ready { continuation.resume(with: ready) }
    }

    /// True when this result is the one given.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (continuation, first): (CheckedContinuation<T, any Error>?, Bool) = state.withLock { state in
            guard state.result == nil else { return (nil, false) }
            state.result = result
            let continuation = state.continuation
            state.continuation = nil
            return (continuation, true)
        }
        continuation?.resume(with: result)
        return first
    }
}

extension Duration {
    /// Whole milliseconds, the rest dropped (what deadlines, health answers and log lines say).
    public var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }

    /// `2 s`, `250 ms`.
    var shortDescription: String {
        let ms = wholeMilliseconds
        return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
    }
}

/// Latency and errors of every catalog and blob-store call, by service and operation
/// (`tracesvc_storage_call_duration_seconds`, `tracesvc_storage_call_errors_total` on /metrics).
func measured<T: Sendable>(service: String, operation: String, _ body: () async throws -> T) async throws -> T {
    let started = ContinuousClock.now
    let dimensions = [("service", service), ("operation", operation)]
    do {
        let value = try await body()
        Metrics.Timer(label: "tracesvc_storage_call_duration_seconds", dimensions: dimensions, preferredDisplayUnit: .seconds)
            .record(duration: ContinuousClock.now - started)
        return value
    } catch {
        Metrics.Timer(label: "tracesvc_storage_call_duration_seconds", dimensions: dimensions, preferredDisplayUnit: .seconds)
            .record(duration: ContinuousClock.now - started)
        Counter(label: "tracesvc_storage_call_errors_total", dimensions: dimensions).increment()
        throw error
    }
}
