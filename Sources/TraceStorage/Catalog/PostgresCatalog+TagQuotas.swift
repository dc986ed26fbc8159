import Foundation
import Logging
import PostgresNIO

// Quotas by tag (`TagQuota`), in PostgreSQL.
extension PostgresCatalog {
    /// The quotas' check inside an insert's transaction: each of the trace's tags a quota counts
    /// is locked for the rest of the transaction (in one order, so two inserts never wait on each
    /// other crosswise), then counted: an insert on another replica holding that tag's lock commits
    /// first, and this count includes it.
    static func checkQuotas(_ quotas: [TagQuota], of entry: CatalogEntry, on connection: PostgresConnection, logger: Logger) async throws {
        let applying = TagQuota.applying(quotas, to: entry.tags)
        for tag in Set(applying.map(\.tag)).sorted() {
            try await connection.query("SELECT pg_advisory_xact_lock(\(tagQuotaLock), hashtext(\(tag)))", logger: logger)
        }
        for (quota, tag) in applying {
            var usage = TagUsage()
            for try await (traces, bytes) in try await connection.query(
                "SELECT COUNT(*), COALESCE(SUM(size_bytes), 0)::BIGINT FROM trace_tags WHERE tag = \(tag)", logger: logger
            ).decode((Int64, Int64).self) {
                usage = TagUsage(traces: Int(traces), bytes: bytes)
            }
            if let refusal = quota.refusal(tag: tag, usage: usage, adding: entry.sizeBytes) { throw refusal }
        }
    }

    /// The advisory lock class of tag quotas (`pg_advisory_xact_lock(class, hashtext(tag))`).
    static let tagQuotaLock: Int32 = 0x7467_7174

    /// A quota's refusal as itself, not wrapped in the transaction's error (which rolled back).
    static func refusalUnwrapped<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresTransactionError {
            if let refusal = error.closureError as? TagQuotaExceeded { throw refusal }
            throw error
        }
    }

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
