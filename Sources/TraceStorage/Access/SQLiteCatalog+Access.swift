import Foundation
import GRDB

extension SQLiteCatalog {
    public func addToken(_ token: AccessToken) async throws -> Bool {
        try await call {
            try await self.pool.write { db in
                guard try Int.fetchOne(db, sql: "SELECT 1 FROM access_tokens WHERE name = ? AND revoked_at_us IS NULL", arguments: [token.name]) == nil else {
                    return false
                }
                try db.execute(sql: "INSERT INTO access_tokens (\(CatalogSchema.tokenColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)", arguments: [
                    token.id, token.name, token.scopes.map(\.rawValue).joined(separator: ","), token.secretSHA256, token.createdAtMicros,
                    token.lastUsedAtMicros, token.revokedAtMicros,
                ])
                return true
            }
        }
    }

    public func token(secretSHA256: String) async throws -> AccessToken? {
        try await call {
            try await self.pool.read { db in
                try Row.fetchOne(db, sql: "SELECT \(CatalogSchema.tokenColumns) FROM access_tokens WHERE secret_sha256 = ? AND revoked_at_us IS NULL",
                                 arguments: [secretSHA256]).map(Self.token(from:))
            }
        }
    }

    public func tokens() async throws -> [AccessToken] {
        try await call {
            try await self.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT \(CatalogSchema.tokenColumns) FROM access_tokens ORDER BY name, created_at_us DESC, id")
                    .map(Self.token(from:))
            }
        }
    }

    public func revokeToken(name: String, at micros: Int64) async throws -> Bool {
        try await call {
            try await self.pool.write { db in
                try db.execute(sql: "UPDATE access_tokens SET revoked_at_us = ? WHERE name = ? AND revoked_at_us IS NULL", arguments: [micros, name])
                return db.changesCount > 0
            }
        }
    }

    public func markTokenUsed(id: String, at micros: Int64) async throws {
        try await call {
            try await self.pool.write { db in
                try db.execute(sql: "UPDATE access_tokens SET last_used_at_us = ? WHERE id = ?", arguments: [micros, id])
            }
        }
    }

    public func recordAudit(_ events: [AuditEvent]) async throws {
        guard !events.isEmpty else { return }
        try await call {
            try await self.pool.write { db in
                let insert = try db.makeStatement(sql: "INSERT INTO audit_events (\(CatalogSchema.auditColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)")
                for event in events {
                    try insert.execute(arguments: [event.id, event.atMicros, event.actor, event.action.rawValue, event.traceID, event.traceName, event.detail])
                }
            }
        }
    }

    public func auditEvents(_ query: AuditQuery, limit: Int, after cursor: AuditCursor?) async throws -> [AuditEvent] {
        let filter = CatalogSchema.auditFilter(query, after: cursor) { _ in "?" }
        return try await call {
            try await self.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT \(CatalogSchema.auditColumns) FROM audit_events \(filter.sql) ORDER BY at_us DESC, id DESC LIMIT \(max(0, limit))",
                                 arguments: Self.auditArguments(filter.values)).compactMap { row in
                    AuditEvent.Action(rawValue: row[3]).map { action in
                        AuditEvent(id: row[0], atMicros: row[1], actor: row[2], action: action, traceID: row[4], traceName: row[5], detail: row[6])
                    }
                }
            }
        }
    }

    public func delete(ids: [String]) async throws -> [CatalogEntry] {
        guard !ids.isEmpty else { return [] }
        return try await call {
            try await self.pool.write { db in
                var removed: [CatalogEntry] = []
                var counts = TraceCountChange()
                for slice in Self.slices(ids) {
                    let marks = Array(repeating: "?", count: slice.count).joined(separator: ", ")
                    let rows = try Row.fetchAll(db, sql: "SELECT \(CatalogSchema.columns) FROM traces WHERE id IN (\(marks))", arguments: StatementArguments(slice))
                        .map(Self.entry(from:))
                    for row in rows { counts.count(tags: [], bytes: row.sizeBytes, sign: -1) }
                    for tagRow in try Row.fetchAll(db, sql: "SELECT tag, size_bytes FROM trace_tags WHERE trace_id IN (\(marks))", arguments: StatementArguments(slice)) {
                        counts.count(tags: [tagRow[0] as String], bytes: tagRow[1], sign: -1, everyTrace: false)
                    }
                    removed += rows
                    try db.execute(sql: "DELETE FROM traces WHERE id IN (\(marks))", arguments: StatementArguments(slice))
                }
                try Self.record(counts, db)
                return removed
            }
        }
    }

    private static func token(from row: Row) -> AccessToken {
        AccessToken(id: row[0], name: row[1], scopes: AccessScope.list(row[2]), secretSHA256: row[3], createdAtMicros: row[4],
                    lastUsedAtMicros: row[5], revokedAtMicros: row[6])
    }

    private static func auditArguments(_ values: [SQLValue]) -> StatementArguments {
        StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case let .text(text): text
            case let .integer(number): number
            }
        })
    }
}
