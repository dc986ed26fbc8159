import Foundation

/// The uploaded bytes of traces, keyed by the lowercase hex SHA-256 of their content. Writes are
/// idempotent (the same content under the same key); a blob is written before the catalog row
/// that names it, so no row points at a missing blob.
public protocol BlobStore: Sendable {
    /// Names the service in errors and metrics: "data directory", "object store (S3)".
    var serviceName: String { get }

    /// Stores `file` under `key` (its content's SHA-256); false when that content was already
    /// there. `file` is left in place (the caller removes it).
    func put(key: String, file: URL, size: Int64) async throws -> Bool

    /// A local file holding the blob's bytes, for the importer: the stored file itself when the
    /// store keeps files, otherwise a copy fetched into `scratch` (verified against its key),
    /// which the caller deletes.
    func localFile(key: String, scratch: URL) async throws -> BlobFile

    func delete(key: String) async throws

    /// Every stored blob with when it was written, for the sweep of blobs no row names.
    func list() async throws -> [StoredBlob]

    /// Answers within the deadline or throws `.unavailable` (readiness).
    func check() async throws
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

    public init(key: String, size: Int64, modified: Date) {
        self.key = key
        self.size = size
        self.modified = modified
    }
}

/// Whether `key` can name a blob: 64 lowercase hex digits (a SHA-256), nothing that could walk a path.
public func isBlobKey(_ key: String) -> Bool {
    key.utf8.count == 64 && key.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
}
