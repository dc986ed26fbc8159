import Foundation

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

/// Whether `key` can name a blob: 64 lowercase hex digits (a SHA-256), or `up-` and 32 (a
/// streamed upload's random key); nothing that could walk a path.
public func isBlobKey(_ key: String) -> Bool {
    let utf8 = key.utf8
    if utf8.count == 64 { return isHex(utf8) }
    return utf8.count == 35 && key.hasPrefix(streamedKeyPrefix) && isHex(utf8.dropFirst(3))
}

/// Whether the blob `key` holds a streamed upload (a key of its own, not its content's hash).
public func isStreamedBlobKey(_ key: String) -> Bool { key.hasPrefix(streamedKeyPrefix) && isBlobKey(key) }

private let streamedKeyPrefix = "up-"

private func isHex<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
    bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
}

/// A fresh key for a streamed upload: `up-` and 128 random bits.
public func makeStreamedBlobKey() -> String { streamedKeyPrefix + RandomName.make() }
