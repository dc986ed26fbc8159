import Foundation
import GRDB

// The recount of `trace_counts` (`TraceIndex.recountTraces`), in SQLite.
extension SQLiteCatalog {
    public func recountTraces() async throws -> [TraceCountRepair] {
        // A look without the write lock first: most passes find nothing, and uploads never wait for them.
        guard try await call("recount", { try await self.pool.read { db in try !Self.drift(db).isEmpty } }) else { return [] }
        return try await call("recount") {
            // One writer at a time: what is counted here is what the rows hold when the repair commits.
            try await self.pool.write { db in
                let repairs = try Self.drift(db)
                for repair in repairs {
                    try db.execute(sql: """
                        INSERT INTO trace_counts (scope, traces, bytes) VALUES (?, ?, ?)
                        ON CONFLICT (scope) DO UPDATE SET traces = excluded.traces, bytes = excluded.bytes
                        """, arguments: [repair.scope, repair.actual.traces, repair.actual.bytes])
                }
                return repairs
            }
        }
    }

    private static func drift(_ db: Database) throws -> [TraceCountRepair] {
        func usage(_ sql: String) throws -> [String: TagUsage] {
            var found: [String: TagUsage] = [:]
            for row in try Row.fetchAll(db, sql: sql) { found[row[0]] = TagUsage(traces: row[1], bytes: row[2]) }
            return found
        }
        let actual = try usage(TraceCountChange.everyTraceFromRows).merging(try usage(TraceCountChange.tagsFromRows + " GROUP BY tag")) { $1 }
        return TraceCountChange.drift(recorded: try usage("SELECT scope, traces, bytes FROM trace_counts"), actual: actual)
    }
}
