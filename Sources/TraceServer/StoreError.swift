import Foundation
import NIOPosix
import TraceFormats
import TraceModel
import TraceStorage

/// What can go wrong with stored traces, in the store's terms; `APIError.init(_:)` is the one
/// place that turns it into HTTP.
public enum StoreError: Error, Sendable, Equatable {
    case unknownTrace(id: String)
    case readOnlySample(name: String)
    /// An upload's tags could not all be stored (`TagOutcome` says which and why); `onSample`: its bytes are a sample's.
    case tagsNotStored(TagOutcome, onSample: Bool)
    /// The file is not a trace (or not one we can read): where and why.
    case unreadable(TraceFormatError)
    /// The stored file no longer has the content its id was derived from (replaced or damaged).
    case fileChanged(id: String)
    /// The trace has its most notes already.
    case tooManyNotes(id: String, limit: Int)
    /// Storing this upload would pass the quota or leave the disk too full.
    case storageFull(String)
    /// One of the upload's tags is at its quota (`serve --tag-quota`).
    case tagQuotaExceeded(TagQuotaExceeded)
    /// The data directory could not be read or written (the log has the system's error).
    case storageFailure(String)
    /// Too many loads running and waiting.
    case busy(String)
    case shuttingDown
    /// The request went away while it waited or worked: its client left, or the server is stopping.
    case cancelled
    /// The catalog or the blob store is down, or answered with an error (named in it).
    case service(StorageError)
    /// A change could not be recorded in the audit trail: what became of it, and why.
    case auditUnavailable(String)
}

extension TraceStore {

    static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError: error
        // The file could not be opened or read: a server condition (no descriptor left, a disk
        // error), not a fault of the file.
        case let error as TraceFormatError where error.systemError != nil:
            SystemFailure(code: error.systemError ?? 0, action: "read a trace file").storeError
        case let error as TraceFormatError: .unreadable(error)
        case let error as SystemFailure: error.storeError
        case is CancellationError: .cancelled
        case let error as StorageError: .service(error)
        case let refusal as TagQuotaExceeded: .tagQuotaExceeded(refusal)
        case let error as WorkGate.Busy: .busy(error.detail)
        case is NIOThreadPoolError.ThreadPoolInactive: .shuttingDown
        default: .storageFailure("The server could not read the trace from its storage.")
        }
    }

    /// Runs a storage call; its failure in the store's terms.
    nonisolated func service<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws(StoreError) -> T {
        do {
            return try await body()
        } catch {
            throw Self.storeError(error)
        }
    }
}
