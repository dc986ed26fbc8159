import Foundation
import Logging
import PostgresNIO

// The recount of `trace_counts` (`TraceIndex.recountTraces`), in PostgreSQL.
extension PostgresCatalog {
    /// A look without locks first (most passes find nothing, and writers never wait for them);
    /// a drift found is counted again, and repaired, under a lock of `trace_counts` that every
    /// counting writer's last statement waits for. A writer that counted before the lock has
    /// committed by the time it is granted (this count sees its rows); one that counts after adds
    /// its change to the repaired row. A replica older than the counts writes past the lock: what
    /// it commits meanwhile is left to the next pass.
    public func recountTraces() async throws -> [TraceCountRepair] {
        let suspects = try await call("recount") {
            try await self.client.withConnection { connection in try await Self.drift(among: nil, on: connection, logger: self.logger) }
        }
        guard !suspects.isEmpty else { return [] }
        return try await call("recount") {
            try await self.client.withTransaction(logger: self.logger) { connection in
                // Writers queue behind a lock that waits: give up soon rather than stall uploads (the next pass tries again).
                try await connection.query("SET LOCAL lock_timeout = '500ms'", logger: self.logger)
                try await connection.query("LOCK TABLE trace_counts IN SHARE ROW EXCLUSIVE MODE", logger: self.logger)
                let repairs = try await Self.drift(among: suspects.map(\.scope), on: connection, logger: self.logger)
                guard !repairs.isEmpty else { return repairs }
                try await connection.query("""
                    INSERT INTO trace_counts (scope, traces, bytes)
                    SELECT * FROM UNNEST(\(repairs.map(\.scope))::text[], \(repairs.map { Int64($0.actual.traces) })::bigint[], \(repairs.map(\.actual.bytes))::bigint[])
                    ON CONFLICT (scope) DO UPDATE SET traces = EXCLUDED.traces, bytes = EXCLUDED.bytes
                    """, logger: self.logger)
                return repairs
            }
        }
    }

    /// The drift of `scopes` (nil: of every scope), each side read by one statement a kind.
    private static func drift(among scopes: [String]?, on connection: PostgresConnection, logger: Logger) async throws -> [TraceCountRepair] {
        var actual: [String: TagUsage] = [:]
        if scopes?.contains(TraceCountChange.everyTrace) ?? true {
            actual = try await usage(PostgresQuery(unsafeSQL: TraceCountChange.everyTraceFromRows), on: connection, logger: logger)
        }
        let recorded: [String: TagUsage]
        if let scopes {
            let tags = Array(Set(scopes).subtracting([TraceCountChange.everyTrace]))
            if !tags.isEmpty {
                actual.merge(try await usage("\(unescaped: TraceCountChange.tagsFromRows) WHERE tag = ANY(\(tags)) GROUP BY tag", on: connection, logger: logger)) { $1 }
            }
            recorded = try await usage("SELECT scope, traces, bytes FROM trace_counts WHERE scope = ANY(\(scopes))", on: connection, logger: logger)
        } else {
            actual.merge(try await usage(PostgresQuery(unsafeSQL: TraceCountChange.tagsFromRows + " GROUP BY tag"), on: connection, logger: logger)) { $1 }
            recorded = try await usage("SELECT scope, traces, bytes FROM trace_counts", on: connection, logger: logger)
        }
        return TraceCountChange.drift(recorded: recorded, actual: actual)
    }

    private static func usage(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws -> [String: TagUsage] {
        var found: [String: TagUsage] = [:]
        for try await (scope, traces, bytes) in try await connection.query(query, logger: logger).decode((String, Int64, Int64).self) {
            found[scope] = TagUsage(traces: Int(traces), bytes: bytes)
        }
        return found
    }
}
