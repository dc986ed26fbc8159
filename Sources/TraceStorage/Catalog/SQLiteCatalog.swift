import Foundation
import GRDB

/// The embedded catalog: one SQLite file in the data directory (WAL mode: reads never wait for
/// a write), migrated with GRDB's versioned migrator. Never on a network file system: SQLite's
/// locks do not hold there.
public final class SQLiteCatalog: Catalog {
    public let file: URL
    public var serviceName: String { "catalog (SQLite)" }
    private let pool: DatabasePool

    public init(file: URL) throws {
        self.file = file
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.label = "tracesvc catalog"
        pool = try DatabasePool(path: file.path, configuration: configuration)
        var migrator = DatabaseMigrator()
        for migration in CatalogSchema.migrations {
            migrator.registerMigration("v\(migration.version) \(migration.name)") { db in
                for statement in migration.statements { try db.execute(sql: statement) }
            }
        }
        try migrator.migrate(pool)
    }

    /// Versions applied to this file (for tests and `tracesvc migrate`).
    public func appliedMigrations() async throws -> [String] {
        try await pool.read { db in try DatabaseMigrator().appliedIdentifiers(db).sorted() }
    }

    public var journalMode: String {
        get async throws { try await pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" } }
    }

    public func insert(_ entry: CatalogEntry) async throws -> (entry: CatalogEntry, isNew: Bool) {
        try await call {
            try await self.pool.write { db in
                if let existing = try Self.fetch(db, id: entry.id) { return (existing, false) }
                try db.execute(sql: "INSERT INTO traces (\(CatalogSchema.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", arguments: [
                    entry.id, entry.name, entry.app, entry.device, entry.durationNs, entry.sizeBytes, entry.sha256,
                    entry.sourceFormat, entry.updateCount, entry.run, entry.uploadedAtMicros, entry.parserVersion,
                ])
                for tag in Set(entry.tags) {
                    try db.execute(sql: "INSERT INTO trace_tags (trace_id, tag) VALUES (?, ?)", arguments: [entry.id, tag])
                }
                return (entry, true)
            }
        }
    }

    public func entry(id: String) async throws -> CatalogEntry? {
        try await call { try await self.pool.read { db in try Self.fetch(db, id: id) } }
    }

    public func page(limit: Int, after cursor: CatalogCursor?) async throws -> CatalogPage {
        try await call {
            try await self.pool.read { db in
                let rows: [Row]
                if let cursor {
                    rows = try Row.fetchAll(db, sql: """
                        SELECT \(CatalogSchema.columns) FROM traces WHERE (uploaded_at_us, id) < (?, ?)
                        ORDER BY uploaded_at_us DESC, id DESC LIMIT ?
                        """, arguments: [cursor.uploadedAtMicros, cursor.id, limit + 1])
                } else {
                    rows = try Row.fetchAll(db, sql: "SELECT \(CatalogSchema.columns) FROM traces ORDER BY uploaded_at_us DESC, id DESC LIMIT ?", arguments: [limit + 1])
                }
                var entries = try rows.prefix(limit).map(Self.entry(from:))
                try Self.attachTags(db, to: &entries)
                return CatalogPage(entries: entries, next: rows.count > limit ? entries.last.map(CatalogCursor.init(after:)) : nil)
            }
        }
    }

    public func delete(id: String) async throws -> CatalogEntry? {
        try await call {
            try await self.pool.write { db in
                guard let existing = try Self.fetch(db, id: id) else { return nil }
                try db.execute(sql: "DELETE FROM traces WHERE id = ?", arguments: [id])
                return existing
            }
        }
    }

    public func totals() async throws -> (count: Int, bytes: Int64) {
        try await call {
            try await self.pool.read { db in
                let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(size_bytes), 0) FROM traces")
                return (row?[0] ?? 0, row?[1] ?? 0)
            }
        }
    }

    public func namedBlobs(among keys: [String]) async throws -> Set<String> {
        guard !keys.isEmpty else { return [] }
        return try await call {
            try await self.pool.read { db in
                var named: Set<String> = []
                // SQLite allows a bounded number of parameters: ask in slices.
                for start in stride(from: 0, to: keys.count, by: 500) {
                    let slice = Array(keys[start..<min(keys.count, start + 500)])
                    let marks = Array(repeating: "?", count: slice.count).joined(separator: ", ")
                    named.formUnion(try String.fetchAll(db, sql: "SELECT DISTINCT sha256 FROM traces WHERE sha256 IN (\(marks))", arguments: StatementArguments(slice)))
                }
                return named
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
                guard claimedAt < cutoff, try Int.fetchOne(db, sql: "SELECT 1 FROM traces WHERE sha256 = ? LIMIT 1", arguments: [key]) == nil else { return false }
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

    private func call<T: Sendable>(_ operation: String = #function, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await measured(service: serviceName, operation: String(operation.prefix { $0 != "(" }), body)
        } catch let error as DatabaseError {
            throw StorageError.failed(service: serviceName, detail: "\(error.resultCode): \(error.message ?? "")")
        }
    }

    private static func fetch(_ db: Database, id: String) throws -> CatalogEntry? {
        guard let row = try Row.fetchOne(db, sql: "SELECT \(CatalogSchema.columns) FROM traces WHERE id = ?", arguments: [id]) else { return nil }
        var entries = [try entry(from: row)]
        try attachTags(db, to: &entries)
        return entries[0]
    }

    private static func attachTags(_ db: Database, to entries: inout [CatalogEntry]) throws {
        guard !entries.isEmpty else { return }
        let marks = Array(repeating: "?", count: entries.count).joined(separator: ", ")
        var tags: [String: [String]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT trace_id, tag FROM trace_tags WHERE trace_id IN (\(marks)) ORDER BY tag",
                                    arguments: StatementArguments(entries.map(\.id))) {
            tags[row[0], default: []].append(row[1])
        }
        for index in entries.indices { entries[index].tags = tags[entries[index].id] ?? [] }
    }

    private static func entry(from row: Row) throws -> CatalogEntry {
        CatalogEntry(
            id: row[0], name: row[1], app: row[2], device: row[3], durationNs: row[4], sizeBytes: row[5], sha256: row[6],
            sourceFormat: row[7], updateCount: row[8], run: row[9], uploadedAtMicros: row[10], parserVersion: row[11]
        )
    }
}
