import Foundation

/// One stored trace: what the trace list shows of it, and which blob holds its bytes (the
/// catalog's row; the API's record and the server's cache are made from it). Samples are not in the catalog (each server lists its own read-only samples).
public struct StoredTrace: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    public var app: String
    public var device: String
    public var durationNs: Int64
    public var sizeBytes: Int64
    /// Lowercase hex SHA-256 of the uploaded bytes: the content's identity, and the blob's key
    /// unless `blobKey` names another. Several rows may name one blob (the runs of one
    /// several-run export).
    public var sha256: String
    /// The blob's key when it is not `sha256`: an upload streamed to the object store while it
    /// arrived, before its hash was known (`up-…`, `StreamedBlobKey`). Nil in rows written
    /// before, and for blobs stored by content hash.
    public var blobKey: String?
    public var sourceFormat: String
    public var updateCount: Int
    /// The run of a several-run export read at upload; nil for run 1 or one run.
    public var run: Int?
    /// Microseconds since 1970 (UTC): the order of the list and of its cursor.
    public var uploadedAtMicros: Int64
    public var tags: [String]
    /// `TraceImporter.parserVersion` when the row was written; an older one may be re-read.
    public var parserVersion: Int

    public init(id: String, name: String, app: String, device: String, durationNs: Int64, sizeBytes: Int64, sha256: String,
                sourceFormat: String, updateCount: Int, run: Int?, uploadedAtMicros: Int64, tags: [String] = [], parserVersion: Int,
                blobKey: String? = nil) {
        self.id = id
        self.name = name
        self.app = app
        self.device = device
        self.durationNs = durationNs
        self.sizeBytes = sizeBytes
        self.sha256 = sha256
        self.sourceFormat = sourceFormat
        self.updateCount = updateCount
        self.run = run
        self.uploadedAtMicros = uploadedAtMicros
        self.tags = tags
        self.parserVersion = parserVersion
        self.blobKey = blobKey
    }

    /// The key of the blob that holds this row's bytes.
    public var storedBlobKey: String { blobKey ?? sha256 }
}

extension StoredTrace {
    /// The characters of a name, app or device a list entry carries; the trace's own answer has them all.
    public static let listedLength = 300

    /// `text` as a list shows it: at most `listedLength` characters, then "…" when it was longer.
    public static func listed(_ text: String) -> String {
        text.count > listedLength ? String(text.prefix(listedLength)) + "…" : text
    }

    /// Now, in the catalog's unit.
    public static func nowMicros() -> Int64 { Int64((Date().timeIntervalSince1970 * 1_000_000).rounded()) }

    /// ISO 8601 with milliseconds, as the API shows upload times.
    public var uploadedAtText: String { Self.iso8601(micros: uploadedAtMicros) }

    public static func iso8601(micros: Int64) -> String {
        Date(timeIntervalSince1970: Double(micros) / 1_000_000).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    public static func micros(fromISO8601 text: String) -> Int64? {
        let date = (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))) ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
        return date.map { Int64(($0.timeIntervalSince1970 * 1_000_000).rounded()) }
    }
}
