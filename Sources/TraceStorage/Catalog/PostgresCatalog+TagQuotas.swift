import Foundation
import Logging
import PostgresNIO

// What tag quotas count, in PostgreSQL (the quotas themselves are checked in `insert`).
extension PostgresCatalog {
    public func usage(of tags: [String]) async throws -> [String: TagUsage] {
        let unique = Array(Set(tags))
        guard !unique.isEmpty else { return [:] }
        return try await call("tag usage") {
            var found: [String: TagUsage] = [:]
            for try await (tag, traces, bytes) in try await self.client.query("""
                SELECT tag, COUNT(*), COALESCE(SUM(size_bytes), 0)::BIGINT FROM trace_tags WHERE tag = ANY(\(unique)) GROUP BY tag
                """, logger: self.logger).decode((String, Int64, Int64).self) {
                found[tag] = TagUsage(traces: Int(traces), bytes: bytes)
            }
            return found
        }
    }
}
