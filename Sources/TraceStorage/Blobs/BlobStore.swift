import Foundation
import TraceCatalog

/// The uploaded bytes of traces, keyed by the lowercase hex SHA-256 of their content (writes are
/// idempotent: the same content under the same key), or by a random key for a blob streamed while
/// it arrived (`StreamingBlobStore`). A blob is written before the catalog row that names it, so
/// no row points at a missing blob.
public protocol BlobStore: Sendable {
    /// Names the service in errors and metrics: "data directory", "object store (S3)".
    var serviceName: String { get }

    /// Stores `file` under `key` (its content's SHA-256); false when that content was already
    /// there. `file` is left in place (the caller removes it).
    func put(key: String, file: URL, size: Int64) async throws -> Bool

    /// A local file holding the blob's bytes, for the importer: the stored file itself when the
    /// store keeps files, otherwise a copy fetched into `scratch` (verified against `sha256`,
    /// its content's hash), which the caller deletes.
    func localFile(key: String, sha256: String, scratch: URL) async throws -> BlobFile

    func delete(key: String) async throws

    /// Every stored blob with when it was written, for the sweep of blobs no row names.
    func list() async throws -> [StoredBlob]

    /// Answers within the deadline or throws `.unavailable` (readiness).
    func check() async throws
}

/// A store whose blobs come over the network (S3): a copy can be read while it arrives, so a cold
/// load parses as the bytes come instead of after the last one.
public protocol FetchingBlobStore: BlobStore {
    /// Writes the blob's bytes into `target` (an existing empty file the caller deletes), calling
    /// `arrived` with the bytes written so far after each write; throws `.corruptBlob` after the
    /// last one when they do not hash to `sha256`. A reader must not trust them before it returns.
    func fetch(key: String, sha256: String, into target: URL, arrived: @escaping @Sendable (Int64) -> Void) async throws
}

public struct BlobFile: Sendable {
    public var url: URL
    /// True when `url` is a copy the caller must delete.
    public var isTemporary: Bool

    public init(url: URL, isTemporary: Bool) {
        self.url = url
        self.isTemporary = isTemporary
    }
}

public struct StoredBlob: Sendable, Equatable {
    public var key: String
    public var size: Int64
    public var modified: Date
}

/// Whether `key` can name a blob (`BlobKey`: a SHA-256, or a streamed upload's key); nothing
/// that could walk a path.
public func isBlobKey(_ key: String) -> Bool { BlobKey(key) != nil }

/// Whether the blob `key` holds a streamed upload (a key of its own, not its content's hash).
public func isStreamedBlobKey(_ key: String) -> Bool { BlobKey(key)?.isStreamed == true }

/// A fresh key for a streamed upload: `up-` and 128 random bits.
public func makeStreamedBlobKey() -> String { BlobKey(streamed: RandomName.make())!.text }
