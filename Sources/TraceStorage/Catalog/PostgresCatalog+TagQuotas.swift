import Foundation
import Logging
import PostgresNIO

// Quotas by tag (`TagQuota`), in PostgreSQL.
extension PostgresCatalog {
    /// The quotas' check inside an insert's or a tag edit's transaction, of the `tags` a trace of
    /// `bytes` gains: each tag a quota counts is locked for the rest of the transaction (in one
    /// order, so two writers never wait on each other crosswise), then counted: a writer on another
    /// replica holding that tag's lock commits first, and this count includes it.
    static func checkQuotas(_ quotas: [TagQuota], gaining tags: some Sequence<String>, bytes: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        let applying = TagQuota.applying(quotas, to: Array(tags))
        for tag in Set(applying.map(\.tag)).sorted() {
            try await connection.query("SELECT pg_advisory_xact_lock(\(tagQuotaLock), hashtext(\(tag)))", logger: logger)
        }
        for (quota, tag) in applying {
            let usage = try await usage(of: [tag], on: connection, logger: logger)[tag] ?? TagUsage()
            if let refusal = quota.refusal(tag: tag, usage: usage, adding: bytes) { throw refusal }
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
        let unique = Array(Set(tags).subtracting([TraceCountChange.everyTrace]))
        guard !unique.isEmpty else { return [:] }
        return try await call("tag usage") {
            try await self.client.withConnection { connection in try await Self.usage(of: unique, on: connection, logger: self.logger) }
        }
    }

    /// The scopes of `scopes` (tags, or `TraceCountChange.everyTrace`) that hold traces, from `trace_counts`.
    static func usage(of scopes: [String], on connection: PostgresConnection, logger: Logger) async throws -> [String: TagUsage] {
        var found: [String: TagUsage] = [:]
        for try await (scope, traces, bytes) in try await connection.query(
            "SELECT scope, traces, bytes FROM trace_counts WHERE scope = ANY(\(scopes)) AND traces > 0", logger: logger
        ).decode((String, Int64, Int64).self) {
            found[scope] = TagUsage(traces: Int(traces), bytes: bytes)
        }
        return found
    }
}
