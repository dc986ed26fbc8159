import Foundation
import Logging
import PostgresNIO
import TraceModel

// The totals and the blob ledger (which blobs rows name, claims while they are written), in PostgreSQL.
extension PostgresCatalog {
    public func totals() async throws -> (count: Int, bytes: Int64) {
        try await call("totals") {
            var totals = (count: 0, bytes: Int64(0))
            for try await (count, bytes) in try await self.client.query(
                "SELECT traces, bytes FROM trace_counts WHERE scope = \(TraceCountChange.everyTrace)", logger: self.logger
            ).decode((Int64, Int64).self) {
                totals = (Int(count), bytes)
            }
            return totals
        }
    }

    public func namedBlobs(among keys: [String]) async throws -> Set<String> {
        guard !keys.isEmpty else { return [] }
        return try await call("named blobs") {
            var named: Set<String> = []
            let rows = try await self.client.query(
                "SELECT DISTINCT COALESCE(blob_key, sha256) FROM traces WHERE blob_key = ANY(\(keys)) OR (blob_key IS NULL AND sha256 = ANY(\(keys)))",
                logger: self.logger)
            for try await key in rows.decode(String.self) { named.insert(key) }
            return named
        }
    }

    public func blobKey(ofContent sha256: String) async throws -> String? {
        try await call("blob of content") {
            var key: String?
            for try await value in try await self.client.query(
                "SELECT COALESCE(blob_key, sha256) FROM traces WHERE sha256 = \(sha256) LIMIT 1", logger: self.logger).decode(String.self) {
                key = value
            }
            return key
        }
    }

    public func claimBlob(_ key: String) async throws {
        let now = CatalogEntry.nowMicros()
        try await call("claim") {
            // Waits on the row lock while a sweep of this key is deleting it; then claims anew.
            _ = try await self.client.query("""
                INSERT INTO blob_claims (sha256, claimed_at_us) VALUES (\(key), \(now))
                ON CONFLICT (sha256) DO UPDATE SET claimed_at_us = EXCLUDED.claimed_at_us
                """, logger: self.logger)
        }
    }

    public func releaseBlob(_ key: String, writtenAt: Int64, cutoff: Int64, remove: @escaping @Sendable () async throws -> Void) async throws -> Bool {
        try await call("release") {
            try await self.client.withTransaction(logger: self.logger) { connection in
                try await connection.query("INSERT INTO blob_claims (sha256, claimed_at_us) VALUES (\(key), \(writtenAt)) ON CONFLICT (sha256) DO NOTHING", logger: self.logger)
                var claimedAt = writtenAt
                // The row lock holds back claims of this key until the blob is gone and this commits.
                for try await value in try await connection.query("SELECT claimed_at_us FROM blob_claims WHERE sha256 = \(key) FOR UPDATE", logger: self.logger).decode(Int64.self) {
                    claimedAt = value
                }
                guard claimedAt < cutoff else { return false }
                // Rows are read to the end: the connection runs the next statement of this transaction after them.
                var named = false
                let naming = try await connection.query(
                    "SELECT 1 FROM traces WHERE blob_key = \(key) OR (blob_key IS NULL AND sha256 = \(key)) LIMIT 1", logger: self.logger)
                for try await _ in naming { named = true }
                guard !named else { return false }
                try await connection.query("DELETE FROM blob_claims WHERE sha256 = \(key)", logger: self.logger)
                try await remove()
                return true
            }
        }
    }
}
