import Foundation
import GRDB
import TraceModel

/// The embedded catalog: one SQLite file in the data directory (WAL mode: reads never wait for
/// a write), migrated with GRDB's versioned migrator. Never on a network file system: SQLite's
/// locks do not hold there.
public final class SQLiteCatalog: Catalog {
    public let file: URL
    public var serviceName: String { "catalog (SQLite)" }
    let pool: DatabasePool

    public convenience init(file: URL) throws {
        try self.init(file: file, through: nil)
    }

    /// The migrations up to `lastVersion` only (tests: a catalog made by an older tracesvc).
    init(file: URL, through lastVersion: Int?) throws {
        self.file = file
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.label = "tracesvc catalog"
        pool = try DatabasePool(path: file.path, configuration: configuration)
        var migrator = DatabaseMigrator()
        for migration in CatalogSchema.migrations where migration.version <= (lastVersion ?? .max) {
            migrator.registerMigration("v\(migration.version) \(migration.name)") { db in
                for statement in migration.statements(for: .sqlite) { try db.execute(sql: statement) }
                if migration.refoldsSearchText {
                    for id in try String.fetchAll(db, sql: "SELECT id FROM traces") { try Self.updateSearchText(db, id: id) }
                }
            }
        }
        try CatalogSchema.refuseNewer(applied: try pool.read { db in
            try DatabaseMigrator().appliedIdentifiers(db).compactMap { Int($0.dropFirst().prefix { $0.isNumber }) }
        }, service: "catalog (SQLite)")
        try migrator.migrate(pool)
    }

    /// Tests: `statements` in order, as they are.
    func execute(_ statements: [String]) async throws {
        try await pool.write { db in for statement in statements { try db.execute(sql: statement) } }
    }

    /// Versions applied to this file (for tests and `tracesvc migrate`).
    public func appliedMigrations() async throws -> [String] {
        try await pool.read { db in try DatabaseMigrator().appliedIdentifiers(db).sorted() }
    }

    public var journalMode: String {
        get async throws { try await pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" } }
    }

    public func insert(_ entry: CatalogEntry, measurements: TraceMeasurements?, measuredVersion: Int, within quotas: [TagQuota]) async throws -> (entry: CatalogEntry, isNew: Bool) {
        try await call {
            try await self.pool.write { db in
                if let existing = try Self.fetch(db, id: entry.id) { return (existing, false) }
                // One writer at a time: what this transaction counts is what is stored.
                try Self.checkQuotas(quotas, gaining: entry.tags, bytes: entry.sizeBytes, db)
                try db.execute(sql: "INSERT INTO traces (\(CatalogSchema.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", arguments: [
                    entry.id, entry.name, entry.app, entry.device, entry.durationNs, entry.sizeBytes, entry.sha256,
                    entry.sourceFormat, entry.updateCount, entry.run, entry.uploadedAtMicros, entry.parserVersion, entry.blobKey,
                ])
                for tag in Set(entry.tags) {
                    try db.execute(sql: "INSERT INTO trace_tags (trace_id, tag, uploaded_at_us, size_bytes) VALUES (?, ?, ?, ?)",
                                   arguments: [entry.id, tag, entry.uploadedAtMicros, entry.sizeBytes])
                }
                try Self.updateSearchText(db, id: entry.id)
                if let measurements { try Self.writeMeasurements(db, measurements, id: entry.id, version: measuredVersion) }
                var counts = TraceCountChange()
                counts.count(tags: entry.tags, bytes: entry.sizeBytes)
                try Self.record(counts, db)
                return (entry, true)
            }
        }
    }

    public func entry(id: String) async throws -> CatalogEntry? {
        try await call { try await self.pool.read { db in try Self.fetch(db, id: id) } }
    }

    public func page(_ query: CatalogQuery, limit: Int, after cursor: CatalogCursor?) async throws -> CatalogPage {
        try await call {
            try await self.pool.read { db in
                let query = query.tags.count > 1 ? query.rarestTagFirst(try Self.counted(db, scopes: Set(query.tags.map(\.text)))) : query
                var sql = Self.sql()
                // Read straight off the statement (a cursor), not copied into rows first: a history reads 2,000.
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT \(CatalogSchema.listedColumnsOfT) \(sql.fromClause(query)) \(sql.whereClause(query, after: cursor)) \(sql.orderClause(query)) LIMIT \(limit + 1)
                    """, arguments: Self.arguments(sql.binds))
                var entries: [CatalogEntry] = []
                var more = false
                while let row = try rows.next() {
                    guard entries.count < limit else {
                        more = true
                        break
                    }
                    entries.append(try Self.entry(from: row))
                }
                // A first page that holds every match is its own count (a sparse or empty match: one scan, not two).
                var total = entries.count
                if cursor != nil || more {
                    if let scope = CatalogSQL.countedScope(query) {
                        total = try Self.counted(db, scopes: [scope])[scope]?.traces ?? 0
                    } else {
                        sql = Self.sql()
                        total = try Int.fetchOne(db, sql: sql.countQuery(query), arguments: Self.arguments(sql.binds)) ?? 0
                    }
                }
                try Self.attachTags(db, to: &entries, prefixes: query.carriedTagPrefixes)
                return CatalogPage(entries: entries, next: more ? entries.last.map { CatalogCursor(after: $0, sort: query.sort) } : nil, total: total)
            }
        }
    }

    public func usage(of tags: [String]) async throws -> [String: TagUsage] {
        try await call { try await self.pool.read { db in try Self.usage(db, of: tags) } }
    }

    private static func usage(_ db: Database, of tags: [String]) throws -> [String: TagUsage] {
        try counted(db, scopes: Set(tags).filter { $0 != TraceCountChange.everyTrace })
    }

    /// Throws the refusal of the first of `quotas` that one of `tags` would pass with a trace of `bytes` more.
    private static func checkQuotas(_ quotas: [TagQuota], gaining tags: some Sequence<String>, bytes: Int64, _ db: Database) throws {
        for (quota, tag) in TagQuota.applying(quotas, to: Array(tags)) {
            let usage = try Self.usage(db, of: [tag])[tag] ?? TagUsage()
            if let refusal = quota.refusal(tag: tag, usage: usage, adding: bytes) { throw refusal }
        }
    }

    /// The scopes of `scopes` that hold traces, from `trace_counts`.
    static func counted(_ db: Database, scopes: some Collection<String>) throws -> [String: TagUsage] {
        guard !scopes.isEmpty else { return [:] }
        var found: [String: TagUsage] = [:]
        let marks = Array(repeating: "?", count: scopes.count).joined(separator: ", ")
        for row in try Row.fetchAll(db, sql: "SELECT scope, traces, bytes FROM trace_counts WHERE scope IN (\(marks)) AND traces > 0", arguments: StatementArguments(Array(scopes))) {
            found[row[0]] = TagUsage(traces: row[1], bytes: row[2])
        }
        return found
    }

    /// Adds what a write changed to `trace_counts`, in the write's transaction (a scope left empty
    /// keeps its row of zeros, as in PostgreSQL: readers skip it).
    static func record(_ change: TraceCountChange, _ db: Database) throws {
        for (scope, traces, bytes) in change.rows {
            try db.execute(sql: """
                INSERT INTO trace_counts (scope, traces, bytes) VALUES (?, ?, ?)
                ON CONFLICT (scope) DO UPDATE SET traces = traces + excluded.traces, bytes = bytes + excluded.bytes
                """, arguments: [scope, traces, bytes])
        }
    }

    public func setTags(_ tags: [TraceTag], id: String, within quotas: [TagQuota]) async throws -> CatalogEntry? {
        try await call {
            try await self.pool.write { db in
                guard let existing = try Self.fetch(db, id: id) else { return nil }
                try Self.checkQuotas(quotas, gaining: Set(tags.map(\.text)).subtracting(existing.tags), bytes: existing.sizeBytes, db)
                try db.execute(sql: "DELETE FROM trace_tags WHERE trace_id = ?", arguments: [id])
                for tag in Set(tags) {
                    try db.execute(sql: """
                        INSERT INTO trace_tags (trace_id, tag, uploaded_at_us, size_bytes) SELECT id, ?, uploaded_at_us, size_bytes FROM traces WHERE id = ?
                        """, arguments: [tag.text, id])
                }
                try Self.updateSearchText(db, id: id)
                var counts = TraceCountChange()
                counts.count(tags: existing.tags, bytes: existing.sizeBytes, sign: -1, everyTrace: false)
                counts.count(tags: tags.map(\.text), bytes: existing.sizeBytes, everyTrace: false)
                try Self.record(counts, db)
                return try Self.fetch(db, id: id)
            }
        }
    }

    private static func updateSearchText(_ db: Database, id: String) throws {
        guard let source = try String.fetchOne(db, sql: "SELECT \(CatalogSchema.searchTextSource(.sqlite)) FROM traces WHERE id = ?", arguments: [id]) else { return }
        try db.execute(sql: "UPDATE traces SET search_text = ? WHERE id = ?", arguments: [SearchFolding.fold(source), id])
    }

    // MARK: Notes

    public func addNote(_ note: TraceNote, maxPerTrace: Int) async throws -> NoteAddition {
        try await call {
            // One write transaction: writes are serialized, so the count cannot change before the insert.
            try await self.pool.write { db in
                guard try Self.fetch(db, id: note.traceID) != nil else { return .unknownTrace }
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM trace_notes WHERE trace_id = ?", arguments: [note.traceID]) ?? 0
                guard count < maxPerTrace else { return .full }
                let target = note.targetColumns
                try db.execute(sql: "INSERT INTO trace_notes (\(CatalogSchema.noteColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", arguments: [
                    note.id, note.traceID, target.kind, target.update, target.start, target.end, target.finding, note.text, note.createdAtMicros,
                ])
                return .added
            }
        }
    }

    public func notes(traceID: String) async throws -> [TraceNote] {
        try await call {
            try await self.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT \(CatalogSchema.noteColumns) FROM trace_notes WHERE trace_id = ? ORDER BY created_at_us, id",
                                 arguments: [traceID]).compactMap { row in
                    TraceNote(id: row[0], traceID: row[1], kind: row[2], update: row[3], start: row[4], end: row[5], finding: row[6], text: row[7],
                              createdAtMicros: row[8])
                }
            }
        }
    }

    public func deleteNote(id: String, traceID: String) async throws -> Bool {
        try await call {
            try await self.pool.write { db in
                try db.execute(sql: "DELETE FROM trace_notes WHERE id = ? AND trace_id = ?", arguments: [id, traceID])
                return db.changesCount > 0
            }
        }
    }

    public func delete(id: String) async throws -> CatalogEntry? {
        try await call {
            try await self.pool.write { db in
                guard let existing = try Self.fetch(db, id: id) else { return nil }
                try db.execute(sql: "DELETE FROM traces WHERE id = ?", arguments: [id])
                var counts = TraceCountChange()
                counts.count(tags: existing.tags, bytes: existing.sizeBytes, sign: -1)
                try Self.record(counts, db)
                return existing
            }
        }
    }

    public func totals() async throws -> (count: Int, bytes: Int64) {
        try await call {
            try await self.pool.read { db in
                let every = try Self.counted(db, scopes: [TraceCountChange.everyTrace])[TraceCountChange.everyTrace] ?? TagUsage()
                return (every.traces, every.bytes)
            }
        }
    }

    public func namedBlobs(among keys: [String]) async throws -> Set<String> {
        guard !keys.isEmpty else { return [] }
        return try await call {
            try await self.pool.read { db in
                var named: Set<String> = []
                for slice in Self.slices(keys) {
                    let marks = Array(repeating: "?", count: slice.count).joined(separator: ", ")
                    named.formUnion(try String.fetchAll(
                        db, sql: "SELECT DISTINCT COALESCE(blob_key, sha256) FROM traces WHERE blob_key IN (\(marks)) OR (blob_key IS NULL AND sha256 IN (\(marks)))",
                        arguments: StatementArguments(slice + slice)))
                }
                return named
            }
        }
    }

    public func blobKey(ofContent sha256: String) async throws -> String? {
        try await call {
            try await self.pool.read { db in
                try String.fetchOne(db, sql: "SELECT COALESCE(blob_key, sha256) FROM traces WHERE sha256 = ? LIMIT 1", arguments: [sha256])
            }
        }
    }

    public func claimBlob(_ key: String) async throws {
        let now = CatalogEntry.nowMicros()
        try await call {
            try await self.pool.write { db in
                try db.execute(sql: """
                    INSERT INTO blob_claims (sha256, claimed_at_us) VALUES (?, ?)
                    ON CONFLICT (sha256) DO UPDATE SET claimed_at_us = excluded.claimed_at_us
                    """, arguments: [key, now])
            }
        }
    }

    /// One process owns an embedded catalog; the store keeps its own claims and sweeps of a key
    /// apart, so the blob is removed after the claim is forgotten, outside the transaction.
    public func releaseBlob(_ key: String, writtenAt: Int64, cutoff: Int64, remove: @escaping @Sendable () async throws -> Void) async throws -> Bool {
        let released: Bool = try await call {
            try await self.pool.write { db in
                try db.execute(sql: "INSERT INTO blob_claims (sha256, claimed_at_us) VALUES (?, ?) ON CONFLICT (sha256) DO NOTHING", arguments: [key, writtenAt])
                let claimedAt = try Int64.fetchOne(db, sql: "SELECT claimed_at_us FROM blob_claims WHERE sha256 = ?", arguments: [key]) ?? writtenAt
                guard claimedAt < cutoff, try Int.fetchOne(db, sql: "SELECT 1 FROM traces WHERE blob_key = ? OR (blob_key IS NULL AND sha256 = ?) LIMIT 1", arguments: [key, key]) == nil else { return false }
                try db.execute(sql: "DELETE FROM blob_claims WHERE sha256 = ?", arguments: [key])
                return true
            }
        }
        if released { try await remove() }
        return released
    }

    public func check() async throws {
        try await call { try await self.pool.read { db in _ = try Int.fetchOne(db, sql: "SELECT 1") } }
    }

    /// One process owns an embedded catalog: nobody else deletes.
    public func changes() -> AsyncStream<CatalogChange> { AsyncStream { $0.finish() } }

    func call<T: Sendable>(_ operation: String = #function, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await measured(service: serviceName, operation: String(operation.prefix { $0 != "(" }), body)
        } catch let error as DatabaseError {
            throw StorageError.failed(service: serviceName, detail: "\(error.resultCode): \(error.message ?? "")")
        }
    }

    /// SQLite allows a bounded number of parameters: long lists are asked in slices.
    static func slices(_ values: [String]) -> [[String]] {
        stride(from: 0, to: values.count, by: 500).map { Array(values[$0..<min(values.count, $0 + 500)]) }
    }

    private static func sql() -> CatalogSQL { CatalogSQL(.sqlite) }

    private static func arguments(_ binds: [SQLValue]) -> StatementArguments {
        StatementArguments(binds.map { bind -> (any DatabaseValueConvertible)? in
            switch bind {
            case let .text(value): value
            case let .integer(value): value
            }
        })
    }

    static func fetch(_ db: Database, id: String) throws -> CatalogEntry? {
        guard let row = try Row.fetchOne(db, sql: "SELECT \(CatalogSchema.columns) FROM traces WHERE id = ?", arguments: [id]) else { return nil }
        var entries = [try entry(from: row)]
        try attachTags(db, to: &entries)
        return entries[0]
    }

    /// Each entry's tags; with `prefixes`, only the tags that start with one of them (none: no tag).
    private static func attachTags(_ db: Database, to entries: inout [CatalogEntry], prefixes: [String]? = nil) throws {
        guard !entries.isEmpty, prefixes?.isEmpty != true else { return }
        // Filtered in SQL: the rows left out are never read into strings.
        let carried = prefixes.map { " AND (" + $0.map { "substr(x.tag, 1, \($0.count)) = ?" }.joined(separator: " OR ") + ")" } ?? ""
        var tags: [String: [String]] = [:]
        tags.reserveCapacity(entries.count)
        let rows = try Row.fetchCursor(db, sql: "SELECT x.trace_id, x.tag \(joiningIDList("trace_tags"))\(carried)",
                                       arguments: [idList(entries.map(\.id))] + StatementArguments(prefixes ?? []))
        while let row = try rows.next() { tags[row[0], default: []].append(row[1]) }
        // In byte order, as the engines' ORDER BY tag gives them (a trace has a few: sorted here,
        // not by a sort of every page's tags in SQL).
        for index in entries.indices {
            entries[index].tags = (tags[entries[index].id] ?? []).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
    }

    static func entry(from row: Row) throws -> CatalogEntry {
        CatalogEntry(
            id: row[0], name: row[1], app: row[2], device: row[3], durationNs: row[4], sizeBytes: row[5], sha256: row[6],
            sourceFormat: row[7], updateCount: row[8], run: row[9], uploadedAtMicros: row[10], parserVersion: row[11], blobKey: row[12]
        )
    }
}
