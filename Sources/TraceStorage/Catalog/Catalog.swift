import Foundation

/// One stored trace as the catalog knows it: what the trace list shows, and which blob holds
/// its bytes. Samples are not in the catalog (each server lists its own read-only samples).
public struct CatalogEntry: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    public var app: String
    public var device: String
    public var durationNs: Int64
    public var sizeBytes: Int64
    /// Lowercase hex SHA-256 of the uploaded bytes: the blob's key. Several rows may name one
    /// blob (the runs of one several-run export).
    public var sha256: String
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
                sourceFormat: String, updateCount: Int, run: Int?, uploadedAtMicros: Int64, tags: [String] = [], parserVersion: Int) {
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
    }
}

/// Where a page of the list ends: the last row's upload time and id (newest first).
public struct CatalogCursor: Sendable, Equatable, Hashable {
    public var uploadedAtMicros: Int64
    public var id: String

    public init(uploadedAtMicros: Int64, id: String) {
        self.uploadedAtMicros = uploadedAtMicros
        self.id = id
    }

    public init(after entry: CatalogEntry) {
        self.init(uploadedAtMicros: entry.uploadedAtMicros, id: entry.id)
    }

    /// The opaque text clients pass back (`?cursor=`): `<micros>.<id>`.
    public var token: String { "\(uploadedAtMicros).\(id)" }

    public init?(token: String) {
        let parts = token.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let micros = Int64(parts[0]), !parts[1].isEmpty,
              parts[1].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else { return nil }
        self.init(uploadedAtMicros: micros, id: String(parts[1]))
    }
}

public struct CatalogPage: Sendable, Equatable {
    public var entries: [CatalogEntry]
    /// Where the next page starts; nil on the last page.
    public var next: CatalogCursor?

    public init(entries: [CatalogEntry], next: CatalogCursor?) {
        self.entries = entries
        self.next = next
    }
}

/// What another replica changed, for the model caches to follow.
public enum CatalogChange: Sendable, Equatable {
    case deleted(id: String)
    /// Changes may have been missed (the listening connection was down): check every cached id.
    case resync
}

/// What traces exist (the catalog), apart from their bytes (the blob store). Rows are written
/// after their blob; a delete is seen by every replica (`changes`).
public protocol Catalog: Sendable {
    /// Names the service in errors and metrics: "catalog (SQLite)", "catalog (PostgreSQL)".
    var serviceName: String { get }

    /// Inserts the row unless one with its id exists; returns the stored row and whether it is new.
    func insert(_ entry: CatalogEntry) async throws -> (entry: CatalogEntry, isNew: Bool)

    func entry(id: String) async throws -> CatalogEntry?

    /// Newest first, at most `limit` rows after `cursor`.
    func page(limit: Int, after cursor: CatalogCursor?) async throws -> CatalogPage

    /// Removes the row and tells the other replicas; returns the removed row, nil when none.
    func delete(id: String) async throws -> CatalogEntry?

    /// Rows and the bytes of their uploads, all together (the storage quota).
    func totals() async throws -> (count: Int, bytes: Int64)

    /// The ones among `keys` that some row names (the sweep keeps those).
    func namedBlobs(among keys: [String]) async throws -> Set<String>

    /// Marks the blob `key` as being written now: called before its PUT, so that a sweep running
    /// at the same moment keeps it (the claim waits while a sweep of that key finishes).
    func claimBlob(_ key: String) async throws

    /// The sweep of one blob: when no row names `key` and nobody claimed it at or after `cutoff`
    /// (microseconds; a blob never claimed counts as claimed at `writtenAt`), runs `remove` (the
    /// blob's deletion) while claims of that key wait, and forgets the claim. True when removed.
    func releaseBlob(_ key: String, writtenAt: Int64, cutoff: Int64, remove: @escaping @Sendable () async throws -> Void) async throws -> Bool

    /// Answers within the deadline or throws `.unavailable` (readiness).
    func check() async throws

    /// Deletes made by other replicas, and `.resync` after changes may have been missed.
    func changes() -> AsyncStream<CatalogChange>
}

extension Catalog {
    /// Every row, newest first, a page at a time.
    public func all(pageSize: Int = 1000) async throws -> [CatalogEntry] {
        var entries: [CatalogEntry] = []
        var cursor: CatalogCursor?
        repeat {
            let page = try await page(limit: pageSize, after: cursor)
            entries += page.entries
            cursor = page.next
        } while cursor != nil
        return entries
    }
}

/// The catalog's tables, one list for both engines: a migration is appended, never edited, and
/// each engine records which versions it ran (GRDB's migrator; `schema_migrations` in PostgreSQL).
public enum CatalogSchema {
    public struct Migration: Sendable {
        public var version: Int
        public var name: String
        public var statements: [String]
    }

    public static let migrations: [Migration] = [
        Migration(version: 1, name: "traces and tags", statements: [
            """
            CREATE TABLE traces (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                app TEXT NOT NULL,
                device TEXT NOT NULL,
                duration_ns BIGINT NOT NULL,
                size_bytes BIGINT NOT NULL,
                sha256 TEXT NOT NULL,
                source_format TEXT NOT NULL,
                update_count BIGINT NOT NULL,
                run INTEGER,
                uploaded_at_us BIGINT NOT NULL,
                parser_version INTEGER NOT NULL
            )
            """,
            "CREATE INDEX traces_newest_first ON traces (uploaded_at_us DESC, id DESC)",
            "CREATE INDEX traces_by_blob ON traces (sha256)",
            """
            CREATE TABLE trace_tags (
                trace_id TEXT NOT NULL REFERENCES traces (id) ON DELETE CASCADE,
                tag TEXT NOT NULL,
                PRIMARY KEY (trace_id, tag)
            )
            """,
            "CREATE INDEX trace_tags_by_tag ON trace_tags (tag, trace_id)",
        ]),
        // Uploads claim their blob before writing it, so the sweep of unnamed blobs never deletes
        // one that a row is about to name.
        Migration(version: 2, name: "blob claims", statements: [
            "CREATE TABLE blob_claims (sha256 TEXT PRIMARY KEY, claimed_at_us BIGINT NOT NULL)",
        ]),
    ]

    /// The columns of `traces` in the order the catalogs select them.
    static let columns = "id, name, app, device, duration_ns, size_bytes, sha256, source_format, update_count, run, uploaded_at_us, parser_version"
}

extension CatalogEntry {
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
