import Foundation
import PostgresNIO

extension PostgresCatalog {
    public func addToken(_ token: AccessToken) async throws -> Bool {
        let scopes = token.scopes.map(\.rawValue).joined(separator: ",")
        return try await call("add token") {
            var added = false
            // The unique index on unrevoked names decides between two replicas adding the same name.
            for try await _ in try await self.client.query("""
                INSERT INTO access_tokens (\(unescaped: CatalogSchema.tokenColumns))
                VALUES (\(token.id), \(token.name), \(scopes), \(token.secretSHA256), \(token.createdAtMicros), \(token.lastUsedAtMicros), \(token.revokedAtMicros))
                ON CONFLICT DO NOTHING RETURNING id
                """, logger: self.logger) { added = true }
            return added
        }
    }

    public func token(secretSHA256: String) async throws -> AccessToken? {
        try await call("token") {
            try await Self.tokens(try await self.client.query("""
                SELECT \(unescaped: CatalogSchema.tokenColumns) FROM access_tokens WHERE secret_sha256 = \(secretSHA256) AND revoked_at_us IS NULL
                """, logger: self.logger)).first
        }
    }

    public func tokens() async throws -> [AccessToken] {
        try await call("tokens") {
            try await Self.tokens(try await self.client.query("""
                SELECT \(unescaped: CatalogSchema.tokenColumns) FROM access_tokens ORDER BY name COLLATE "C", created_at_us DESC, id COLLATE "C"
                """, logger: self.logger))
        }
    }

    public func revokeToken(name: String, at micros: Int64) async throws -> Bool {
        try await call("revoke token") {
            var revoked = false
            for try await _ in try await self.client.query("""
                UPDATE access_tokens SET revoked_at_us = \(micros) WHERE name = \(name) AND revoked_at_us IS NULL RETURNING id
                """, logger: self.logger) { revoked = true }
            return revoked
        }
    }

    public func markTokenUsed(id: String, at micros: Int64) async throws {
        try await call("token used") {
            _ = try await self.client.query("UPDATE access_tokens SET last_used_at_us = \(micros) WHERE id = \(id)", logger: self.logger)
        }
    }

    public func recordAudit(_ events: [AuditEvent]) async throws {
        guard !events.isEmpty else { return }
        try await call("audit") {
            // One statement for any number of events: the columns as arrays, unnested ('' stands for NULL).
            let (traceIDs, traceNames) = (events.map { $0.traceID ?? "" }, events.map { $0.traceName ?? "" })
            _ = try await self.client.query("""
                INSERT INTO audit_events (\(unescaped: CatalogSchema.auditColumns))
                SELECT id, at_us, actor, action, NULLIF(trace_id, ''), NULLIF(trace_name, ''), detail
                FROM unnest(\(events.map(\.id))::text[], \(events.map(\.atMicros))::bigint[], \(events.map(\.actor))::text[],
                    \(events.map(\.action.rawValue))::text[], \(traceIDs)::text[], \(traceNames)::text[], \(events.map(\.detail))::text[])
                    AS e (id, at_us, actor, action, trace_id, trace_name, detail)
                """, logger: self.logger)
        }
    }

    public func auditEvents(_ query: AuditQuery, limit: Int, after cursor: AuditCursor?) async throws -> [AuditEvent] {
        let filter = CatalogSchema.auditFilter(query, after: cursor, collate: " COLLATE \"C\"") { "$\($0)" }
        let text = """
            SELECT \(CatalogSchema.auditColumns) FROM audit_events \(filter.sql) ORDER BY at_us DESC, id COLLATE "C" DESC LIMIT \(max(0, limit))
            """
        return try await call("audit events") {
            var events: [AuditEvent] = []
            for try await (id, at, actor, action, traceID, traceName, detail) in try await self.client.query(
                PostgresQuery(unsafeSQL: text, binds: Self.bindings(filter.values)), logger: self.logger
            ).decode((String, Int64, String, String, String?, String?, String).self) {
                if let action = AuditEvent.Action(rawValue: action) {
                    events.append(AuditEvent(id: id, atMicros: at, actor: actor, action: action, traceID: traceID, traceName: traceName, detail: detail))
                }
            }
            return events
        }
    }

    public func delete(ids: [String]) async throws -> [CatalogEntry] {
        guard !ids.isEmpty else { return [] }
        return try await call("delete many") {
            try await self.client.withTransaction(logger: self.logger) { connection in
                let removed = try await Self.deleteRows(ids, on: connection, logger: self.logger)
                // Delivered to every listener when this transaction commits, one per trace.
                let names = removed.map(\.id)
                if !names.isEmpty {
                    for try await _ in try await connection.query(
                        "SELECT pg_notify(\(Self.deleteChannel), id) FROM unnest(\(names)::text[]) AS id", logger: self.logger) {}
                }
                return removed
            }
        }
    }

    private static func tokens(_ rows: PostgresRowSequence) async throws -> [AccessToken] {
        var tokens: [AccessToken] = []
        for try await (id, name, scopes, secret, created, used, revoked) in rows.decode((String, String, String, String, Int64, Int64?, Int64?).self) {
            tokens.append(AccessToken(id: id, name: name, scopes: AccessScope.list(scopes), secretSHA256: secret, createdAtMicros: created,
                                      lastUsedAtMicros: used, revokedAtMicros: revoked))
        }
        return tokens
    }
}
