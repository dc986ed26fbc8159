import Foundation
import TraceCatalog
import TraceModel

/// The catalog's row of a stored trace (`StoredTrace`, the catalog's domain).
public typealias CatalogEntry = StoredTrace

/// What another replica changed, for the model caches to follow.
public enum CatalogChange: Sendable, Equatable {
    case deleted(id: String)
    /// Changes may have been missed (the listening connection was down): check every cached id.
    case resync
}

/// The trace index: what traces exist and their tags (one row a stored trace, `CatalogEntry`).
public protocol TraceIndex: Sendable {
    /// Inserts the row (with its tags and, when given, its measurements stamped `measuredVersion`)
    /// unless one with its id exists; returns the stored row and whether it is new. A new row
    /// that would pass one of `quotas` for one of its tags is not stored: `TagQuotaExceeded`
    /// (checked in the insert's transaction: concurrent inserts on any replica cannot together pass it).
    func insert(_ entry: CatalogEntry, measurements: TraceMeasurements?, measuredVersion: Int, within quotas: [TagQuota]) async throws -> (entry: CatalogEntry, isNew: Bool)

    /// Traces and their bytes of each of `tags` (stored texts); tags no trace has are left out.
    func usage(of tags: [String]) async throws -> [String: TagUsage]

    func entry(id: String) async throws -> CatalogEntry?

    /// The rows `query` matches in its order, at most `limit` after `cursor`, and how many match.
    func page(_ query: CatalogQuery, limit: Int, after cursor: CatalogCursor?) async throws -> CatalogPage

    /// Replaces the trace's tags; returns the row with its new tags, nil when there is no such trace.
    /// A tag it gains that one of `quotas` holds full refuses the edit: `TagQuotaExceeded`, the
    /// tags unchanged (checked in the edit's transaction, as `insert` checks them).
    func setTags(_ tags: [TraceTag], id: String, within quotas: [TagQuota]) async throws -> CatalogEntry?

    /// Removes the row and tells the other replicas; returns the removed row, nil when none.
    func delete(id: String) async throws -> CatalogEntry?

    /// Removes those of `ids` that exist, in one transaction, telling the other replicas; returns
    /// the removed rows (without tags).
    func delete(ids: [String]) async throws -> [CatalogEntry]

    /// Rows and the bytes of their uploads, all together (the storage quota).
    func totals() async throws -> (count: Int, bytes: Int64)

    /// Counts every scope of `trace_counts` again from the rows and repairs the rows that drifted
    /// (a replica older than the counts wrote without counting); returns the repairs. Writes made
    /// meanwhile on any replica are counted exactly once: a repair is one transaction that the
    /// counting writers wait for, or that waits for them.
    func recountTraces() async throws -> [TraceCountRepair]
}

/// What people said of a trace: check verdicts and notes.
public protocol TraceAnnotations: Sendable {
    /// Records (replaces) the latest check verdict of a trace; false when there is no such trace.
    func recordVerdict(_ verdict: CheckVerdict) async throws -> Bool

    func verdicts(of ids: [String]) async throws -> [String: CheckVerdict]

    /// Adds the note unless its trace has `maxPerTrace` notes already: counted and inserted in
    /// one step, so notes added at once never pass the cap.
    func addNote(_ note: TraceNote, maxPerTrace: Int) async throws -> NoteAddition

    /// The trace's notes, oldest first.
    func notes(traceID: String) async throws -> [TraceNote]

    /// True when the note was there.
    func deleteNote(id: String, traceID: String) async throws -> Bool
}

/// What the history reads instead of the traces: each trace's measurements.
public protocol MeasurementStore: Sendable {
    /// Replaces the trace's measurements (a re-measure after a parser or measurement change);
    /// false when there is no such trace.
    func storeMeasurements(_ measurements: TraceMeasurements, id: String, measuredVersion: Int, parserVersion: Int) async throws -> Bool

    /// Rows whose measurements are missing or of another version than `version`, oldest first.
    func unmeasured(version: Int, limit: Int) async throws -> [CatalogEntry]

    /// The measurements of those of `ids` that have them, with the view rows `views` asks for.
    func measurements(of ids: [String], views: MeasuredViews) async throws -> [String: TraceMeasurements]

    /// The views of `ids` by their body time summed over them, the most first, at most `limit`
    /// (the history's view picker), ties by view and module name.
    func topViews(of ids: [String], limit: Int) async throws -> [ViewTotal]
}

/// Which blobs rows name and which are being written: what the sweep may remove.
public protocol BlobLedger: Sendable {
    /// The ones among `keys` that some row names (the sweep keeps those).
    func namedBlobs(among keys: [String]) async throws -> Set<String>

    /// The key of a stored blob holding the content `sha256` (a row names it), nil when none.
    func blobKey(ofContent sha256: String) async throws -> String?

    /// Marks the blob `key` as being written now: called before its PUT, so that a sweep running
    /// at the same moment keeps it (the claim waits while a sweep of that key finishes).
    func claimBlob(_ key: String) async throws

    /// The sweep of one blob: when no row names `key` and nobody claimed it at or after `cutoff`
    /// (microseconds; a blob never claimed counts as claimed at `writtenAt`), runs `remove` (the
    /// blob's deletion) while claims of that key wait, and forgets the claim. True when removed.
    func releaseBlob(_ key: String, writtenAt: Int64, cutoff: Int64, remove: @escaping @Sendable () async throws -> Void) async throws -> Bool
}

/// What other replicas changed, for the model caches to follow.
public protocol ChangeFeed: Sendable {
    /// Deletes made by other replicas, and `.resync` after changes may have been missed.
    func changes() -> AsyncStream<CatalogChange>
}

/// What traces exist (the catalog), apart from their bytes (the blob store), by domain: the
/// trace index, annotations, measurements, the blob ledger, the change feed, and tokens with
/// the audit trail (`AccessCatalog`). Each engine is all of them; each consumer names the facet
/// it needs. Rows are written after their blob; a delete is seen by every replica (`changes`).
public protocol Catalog: TraceIndex, TraceAnnotations, MeasurementStore, BlobLedger, ChangeFeed, AccessCatalog {
    /// Names the service in errors and metrics: "catalog (SQLite)", "catalog (PostgreSQL)".
    var serviceName: String { get }

    /// Answers within the deadline or throws `.unavailable` (readiness).
    func check() async throws
}

/// Which view rows a measurements read returns: a trace-scope metric needs none, a view metric
/// the rows of one view name; only a whole trace's figures need all (bounded per trace by
/// `TraceMeasurements.maxViewRows`).
public enum MeasuredViews: Sendable, Equatable {
    case none
    case named(String)
    case all
}

/// A view's body time summed over some traces (`MeasurementStore.topViews`).
public struct ViewTotal: Sendable, Equatable {
    public var module: String
    public var view: String
    public var totalNs: Int64
}

extension TraceIndex {
    /// A row without measurements (the background measures it).
    public func insert(_ entry: CatalogEntry) async throws -> (entry: CatalogEntry, isNew: Bool) {
        try await insert(entry, measurements: nil, measuredVersion: 0, within: [])
    }

    /// Without quotas.
    public func insert(_ entry: CatalogEntry, measurements: TraceMeasurements?, measuredVersion: Int) async throws -> (entry: CatalogEntry, isNew: Bool) {
        try await insert(entry, measurements: measurements, measuredVersion: measuredVersion, within: [])
    }

    /// Without quotas.
    public func setTags(_ tags: [TraceTag], id: String) async throws -> CatalogEntry? {
        try await setTags(tags, id: id, within: [])
    }

    /// Every row, newest first.
    public func page(limit: Int, after cursor: CatalogCursor?) async throws -> CatalogPage {
        try await page(CatalogQuery(), limit: limit, after: cursor)
    }

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

public enum CatalogEngine: Sendable {
    case sqlite, postgres
}

/// The catalog's tables, one list for both engines: a migration is appended, never edited, and
/// each engine records which versions it ran (GRDB's migrator; `schema_migrations` in PostgreSQL).
public enum CatalogSchema {
    public struct Migration: Sendable {
        public var version: Int
        public var name: String
        /// Run by both engines, before the engine's own.
        public var statements: [String]
        public var postgresStatements: [String] = []
        public var sqliteStatements: [String] = []
        /// PostgreSQL: a migration the catalog works without (an index of an extension the
        /// database may refuse to create). When it fails, it is rolled back, not recorded, said
        /// at start as a warning, and tried again at the next start.
        public var isOptional = false
        /// Then every trace's search text is made again (`SearchFolding` is Swift: no statement can).
        public var refoldsSearchText = false

        public func statements(for engine: CatalogEngine) -> [String] {
            statements + (engine == .postgres ? postgresStatements : sqliteStatements)
        }
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
        // What the history reads instead of the traces (`TraceMeasurements`, written at upload;
        // `measured_version` 0 or old: measured again in the background), check verdicts and notes.
        Migration(version: 3, name: "history", statements: [
            "ALTER TABLE traces ADD COLUMN measured_version INTEGER NOT NULL DEFAULT 0",
            "CREATE INDEX traces_by_measured_version ON traces (measured_version)",
            """
            CREATE TABLE trace_totals (
                trace_id TEXT PRIMARY KEY REFERENCES traces (id) ON DELETE CASCADE,
                updates BIGINT NOT NULL,
                hitches BIGINT NOT NULL,
                hitch_ns BIGINT NOT NULL,
                hangs BIGINT NOT NULL,
                hang_ns BIGINT NOT NULL,
                main_actor_busy_ns BIGINT NOT NULL,
                main_actor_wait_ns BIGINT NOT NULL,
                cpu_samples BIGINT NOT NULL,
                cpu_weight BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE view_measurements (
                trace_id TEXT NOT NULL REFERENCES traces (id) ON DELETE CASCADE,
                module TEXT NOT NULL,
                view TEXT NOT NULL,
                bodies BIGINT NOT NULL,
                total_ns BIGINT NOT NULL,
                p95_ns BIGINT NOT NULL,
                orange BIGINT NOT NULL,
                red BIGINT NOT NULL,
                widest_fan_out BIGINT NOT NULL,
                PRIMARY KEY (trace_id, view, module)
            )
            """,
            """
            CREATE TABLE trace_findings (
                trace_id TEXT NOT NULL REFERENCES traces (id) ON DELETE CASCADE,
                finding_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                subject TEXT NOT NULL,
                severity TEXT NOT NULL,
                cost_ns BIGINT NOT NULL,
                PRIMARY KEY (trace_id, finding_id)
            )
            """,
            """
            CREATE TABLE check_verdicts (
                trace_id TEXT PRIMARY KEY REFERENCES traces (id) ON DELETE CASCADE,
                passed INTEGER NOT NULL,
                failed_rules INTEGER NOT NULL,
                rules INTEGER NOT NULL,
                baseline_id TEXT,
                summary TEXT NOT NULL,
                checked_at_us BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE trace_notes (
                id TEXT PRIMARY KEY,
                trace_id TEXT NOT NULL REFERENCES traces (id) ON DELETE CASCADE,
                target_kind TEXT NOT NULL,
                update_row BIGINT,
                range_start BIGINT,
                range_end BIGINT,
                finding_id TEXT,
                text TEXT NOT NULL,
                created_at_us BIGINT NOT NULL
            )
            """,
            "CREATE INDEX trace_notes_by_trace ON trace_notes (trace_id, created_at_us)",
        ]),
        // Uploads streamed to the object store while they arrive are stored under a key of their
        // own (the hash is known only at the end); rows written before keep NULL: their blob's
        // key is their sha256.
        Migration(version: 4, name: "blob keys", statements: [
            "ALTER TABLE traces ADD COLUMN blob_key TEXT",
            "CREATE INDEX traces_by_blob_key ON traces (blob_key)",
        ]),
        // What `q=` searches, one column per trace (`searchText`): one LIKE per row instead of
        // three and a tag subquery, and one trigram index can serve it (migration 6).
        Migration(version: 5, name: "search text", statements: [
            "ALTER TABLE traces ADD COLUMN search_text TEXT NOT NULL DEFAULT ''",
        ], postgresStatements: [searchTextUpdate(.postgres)], sqliteStatements: [searchTextUpdate(.sqlite)]),
        // pg_trgm is trusted since PostgreSQL 13: the database's owner may create it. Without it
        // `q=` and `name=` scan every row (still correct).
        Migration(version: 6, name: "trigram indexes", statements: [], postgresStatements: [
            "CREATE EXTENSION IF NOT EXISTS pg_trgm",
            "CREATE INDEX traces_search_trigrams ON traces USING gin (search_text gin_trgm_ops)",
            "CREATE INDEX traces_name_trigrams ON traces USING gin (name gin_trgm_ops)",
        ], isOptional: true),
        accessMigration,
        // A tag's rows carry their trace's upload time and size: a list filtered by tags reads
        // its first tag's rows in upload order from one index, and a tag's quota sums its bytes
        // from the same index (`CatalogSQL.readsByTag`). It replaces `trace_tags_by_tag`.
        Migration(version: 8, name: "tags in upload order", statements: [
            "ALTER TABLE trace_tags ADD COLUMN uploaded_at_us BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE trace_tags ADD COLUMN size_bytes BIGINT NOT NULL DEFAULT 0",
            "DROP INDEX trace_tags_by_tag",
        ], postgresStatements: [
            "UPDATE trace_tags g SET uploaded_at_us = t.uploaded_at_us, size_bytes = t.size_bytes FROM traces t WHERE t.id = g.trace_id",
            tagsInUploadOrderIndex,
        ], sqliteStatements: [
            "UPDATE trace_tags SET (uploaded_at_us, size_bytes) = (SELECT uploaded_at_us, size_bytes FROM traces WHERE traces.id = trace_tags.trace_id)",
            tagsInUploadOrderIndex,
        ]),
        // `q=` folds every letter's case, not only ASCII's (`SearchFolding`), in both engines alike.
        Migration(version: 9, name: "unicode search text", statements: [], refoldsSearchText: true),
        // Each scope's traces and bytes, kept by the writes (`TraceCountChange`): a list's total
        // and the quotas read a row instead of counting every trace.
        Migration(version: 10, name: "trace counts", statements: [
            "CREATE TABLE trace_counts (scope TEXT PRIMARY KEY, traces BIGINT NOT NULL, bytes BIGINT NOT NULL)",
            "INSERT INTO trace_counts (scope, traces, bytes) SELECT '', COUNT(*), COALESCE(SUM(size_bytes), 0) FROM traces",
            "INSERT INTO trace_counts (scope, traces, bytes) SELECT tag, COUNT(*), SUM(size_bytes) FROM trace_tags GROUP BY tag",
        ]),
    ]

    /// After the rows are filled (one index build, not an update per row).
    static let tagsInUploadOrderIndex = "CREATE INDEX trace_tags_newest_first ON trace_tags (tag, uploaded_at_us DESC, trace_id DESC, size_bytes)"

    /// `UPDATE traces SET search_text = …` (a `WHERE` may follow): name, app, device and tags, one
    /// a line. A word of `q=` holds no line break, so no match spans two of them: a word is in
    /// the text exactly when it is in one of them, as the query matched them one by one before.
    /// As migration 5 wrote it (a migration is never edited): since migration 9 the text is
    /// `searchTextSource` folded by `SearchFolding`.
    static func searchTextUpdate(_ engine: CatalogEngine) -> String {
        switch engine {
        case .postgres:
            """
            UPDATE traces SET search_text = lower(name || chr(10) || app || chr(10) || device
                || COALESCE((SELECT string_agg(chr(10) || g.tag, '' ORDER BY g.tag) FROM trace_tags g WHERE g.trace_id = traces.id), ''))
            """
        case .sqlite:
            """
            UPDATE traces SET search_text = name || char(10) || app || char(10) || device
                || COALESCE((SELECT group_concat(char(10) || g.tag, '') FROM trace_tags g WHERE g.trace_id = traces.id), '')
            """
        }
    }

    /// What a row of `traces` searches, unfolded: name, app, device and tags, one a line. A word
    /// of `q=` holds no line break, so no match spans two of them.
    static func searchTextSource(_ engine: CatalogEngine) -> String {
        switch engine {
        case .postgres:
            "name || chr(10) || app || chr(10) || device || COALESCE((SELECT string_agg(chr(10) || g.tag, '' ORDER BY g.tag) FROM trace_tags g WHERE g.trace_id = traces.id), '')"
        case .sqlite:
            "name || char(10) || app || char(10) || device || COALESCE((SELECT group_concat(char(10) || g.tag, '') FROM trace_tags g WHERE g.trace_id = traces.id), '')"
        }
    }

    /// The columns of `traces` in the order the catalogs select them.
    static let columns = "id, name, app, device, duration_ns, size_bytes, sha256, source_format, update_count, run, uploaded_at_us, parser_version, blob_key"
    /// The same, of the table aliased `t`.
    static let columnsOfT = columns.split(separator: ",").map { "t." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
    /// The same for a list page: app and device read no further than `CatalogEntry.listedLength`
    /// and one character more (so the list can tell it cut them), whatever a trace put in them.
    static let listedColumnsOfT = columnsOfT
        .replacingOccurrences(of: "t.app,", with: "substr(t.app, 1, \(CatalogEntry.listedLength + 1)),")
        .replacingOccurrences(of: "t.device,", with: "substr(t.device, 1, \(CatalogEntry.listedLength + 1)),")
    static let noteColumns = "id, trace_id, target_kind, update_row, range_start, range_end, finding_id, text, created_at_us"
}
