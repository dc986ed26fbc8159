import Foundation
import Metrics

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

/// Runs `operation`, cancelling it and throwing `.unavailable` when it takes longer than
/// `timeout`: a storage call never waits on a service forever (postgres-nio's pool, for one,
/// retries an unreachable server without end).
public func withDeadline<T: Sendable>(
    _ timeout: Duration, service: String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw StorageError.unavailable(service: service, detail: "no answer within \(timeout.shortDescription)")
        }
        return value
    }
}

extension Duration {
    /// `2 s`, `250 ms`.
    var shortDescription: String {
        let ms = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
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
        Metrics.Timer(label: "tracesvc_storage_call_duration", dimensions: dimensions, preferredDisplayUnit: .seconds)
            .record(duration: ContinuousClock.now - started)
        return value
    } catch {
        Metrics.Timer(label: "tracesvc_storage_call_duration", dimensions: dimensions, preferredDisplayUnit: .seconds)
            .record(duration: ContinuousClock.now - started)
        Counter(label: "tracesvc_storage_call_errors", dimensions: dimensions).increment()
        throw error
    }
}
