import Foundation
import GRDB
import Logging
import Testing
@testable import TraceServer
@testable import TraceStorage

/// Issue 39: a retention batch was deleted first and recorded after, so an audit log that refused
/// the record left deleted traces without a trail. Each batch is now recorded before it is deleted:
/// what the trail cannot record is not deleted.
@Suite struct RetentionAuditTests {
    @Test func aBatchTheAuditLogCannotRecordIsNotDeleted() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await TraceStore.open(.init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30),
                                              logger: Logger(label: "test"))
        // 300 traces of 40 days (two batches: 250 and 50), expired by the policy.
        let now = CatalogEntry.nowMicros(), day: Int64 = 86_400_000_000
        var expired: Set<String> = []
        for n in 0..<300 {
            let blob = scratch.root.appendingPathComponent("blob-\(n)")
            try Data("ledger \(n)".utf8).write(to: blob)
            let sha = String(format: "%064x", n + 1)
            _ = try await store.storage.blobs.put(key: sha, file: blob, size: 9)
            let id = String(format: "%032x", n + 1)
            _ = try await store.storage.catalog.insert(CatalogEntry(
                id: id, name: "Ledger-\(n).json", app: "Ledger", device: "Mac", durationNs: 1, sizeBytes: 9, sha256: sha, sourceFormat: "native",
                updateCount: 1, run: nil, uploadedAtMicros: now - 40 * day + Int64(n), tags: ["branch:feature-\(n % 3)"], parserVersion: 1))
            expired.insert(id)
        }
        let policy = RetentionPolicy(rules: [try RetentionRule(parsing: "branch=*:30d")])
        // The audit log takes 250 records, then refuses every insert (a full or read-only destination).
        let catalogFile = try DatabaseQueue(path: scratch.dataDirectory.appendingPathComponent("catalog.sqlite").path)
        try await catalogFile.write { db in
            try db.execute(sql: """
                CREATE TRIGGER audit_full BEFORE INSERT ON audit_events WHEN (SELECT count(*) FROM audit_events) >= 250
                BEGIN SELECT RAISE(ABORT, 'audit log is full'); END
                """)
        }

        #expect(await store.applyRetention(policy) == 0, "the sweep stopped")
        let kept = Set(try await store.storage.catalog.all().map(\.id))
        let recorded = Set(try await store.storage.catalog.auditEvents(AuditQuery(action: .delete), limit: 1000, after: nil).compactMap(\.traceID))
        #expect(kept.count == 50, "the first batch went, recorded; the second was not recorded, so it stays")
        #expect(recorded == expired.subtracting(kept), "every trace deleted is in the trail, and only those")
        let blobs = Set(try await store.storage.blobs.list().map(\.key))
        #expect(blobs.count == 50, "the kept traces keep their bytes")
        // A delete by query of the rest answers that the audit log is unavailable, and deletes nothing.
        let candidates = try await store.retentionCandidates(policy)
        await #expect(throws: StoreError.self) { _ = try await store.deleteAll(candidates, actor: "cleaner", detail: "by query branch=*") }
        do {
            _ = try await store.deleteAll(candidates, actor: "cleaner", detail: "by query branch=*")
        } catch {
            guard case let .auditUnavailable(detail) = error else { Issue.record("\(error)"); return }
            #expect(detail.contains("audit_events") && detail.contains("not made"), "\(detail)")
        }
        #expect(try await store.storage.catalog.all().count == 50)

        // The log back: the rest is deleted and recorded.
        try await catalogFile.write { db in try db.execute(sql: "DROP TRIGGER audit_full") }
        #expect(await store.applyRetention(policy) == 50)
        let trail = try await store.storage.catalog.auditEvents(AuditQuery(action: .delete), limit: 1000, after: nil)
        #expect(Set(trail.compactMap(\.traceID)) == expired && trail.count == 300)
        #expect(try await store.storage.catalog.all().isEmpty)
    }
}
