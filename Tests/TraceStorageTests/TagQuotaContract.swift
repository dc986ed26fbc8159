import Foundation
import Testing
@testable import TraceStorage

/// Quotas by tag (`serve --tag-quota`), as each engine keeps them in the insert's transaction:
/// `CatalogContractTests` runs it on SQLite and PostgreSQL.
enum TagQuotaContract {
    static func entry(_ n: Int, size: Int64, tags: [String]) -> CatalogEntry {
        var entry = CatalogContract.entry(n, at: Int64(n) * 1_000, tags: tags)
        entry.sizeBytes = size
        return entry
    }

    static func insert(_ catalog: some Catalog, _ entry: CatalogEntry, _ quotas: [TagQuota]) async throws -> Result<Bool, TagQuotaExceeded> {
        do {
            return .success(try await catalog.insert(entry, measurements: nil, measuredVersion: 0, within: quotas).isNew)
        } catch let refusal as TagQuotaExceeded {
            return .failure(refusal)
        }
    }

    static func check(_ catalog: some Catalog) async throws {
        let perProject = try TagQuota(parsing: "project=*:5 traces")
        // 12 uploads of one project at once, 5 allowed: exactly 5 stored, the others refused naming the tag and the quota.
        let outcomes = try await withThrowingTaskGroup(of: Result<Bool, TagQuotaExceeded>.self) { group in
            for n in 1...12 {
                group.addTask { try await insert(catalog, entry(n, size: 100, tags: ["project:trips", "branch:main"]), [perProject]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let refusals = outcomes.compactMap { if case let .failure(refusal) = $0 { refusal } else { nil } }
        #expect(outcomes.filter { (try? $0.get()) == true }.count == 5)
        #expect(refusals.count == 7)
        #expect(refusals.allSatisfy { $0.tag == "project:trips" && $0.quota == "project=*:5 traces" && $0.detail == "it holds 5 traces, at most 5" })
        #expect(refusals.first?.description.contains("The tag 'project:trips' is at its quota (--tag-quota 'project=*:5 traces')") == true)
        // A refused trace left nothing: no row, no tag.
        #expect(try await catalog.totals().count == 5)
        #expect(try await catalog.page(CatalogQuery(tags: [try TraceTag(parsing: "branch:main")]), limit: 50, after: nil).total == 5)
        #expect(try await catalog.usage(of: ["project:trips", "branch:main", "project:none"]) == [
            "project:trips": TagUsage(traces: 5, bytes: 500), "branch:main": TagUsage(traces: 5, bytes: 500),
        ])

        // Each value of the key counts apart; a trace without the key is not counted at all.
        #expect(try await insert(catalog, entry(20, size: 100, tags: ["project:recipes"]), [perProject]) == .success(true))
        #expect(try await insert(catalog, entry(21, size: 100, tags: ["branch:main"]), [perProject]) == .success(true))
        // Content stored before is no new trace: not refused.
        let stored = try #require(outcomes.indices.first { (try? outcomes[$0].get()) == true })
        #expect(try await insert(catalog, entry(stored + 1, size: 100, tags: ["project:trips"]), [perProject]) == .success(false))

        // A size quota: the bytes of the tag's traces and the new one's, against it.
        let pantryBytes = try TagQuota(parsing: "project=pantry:20KB")
        #expect(try await insert(catalog, entry(30, size: 8 << 10, tags: ["project:pantry"]), [pantryBytes, perProject]) == .success(true))
        #expect(try await insert(catalog, entry(31, size: 8 << 10, tags: ["project:pantry"]), [pantryBytes, perProject]) == .success(true))
        guard case let .failure(tooBig) = try await insert(catalog, entry(32, size: 8 << 10, tags: ["project:pantry"]), [pantryBytes, perProject]) else {
            Issue.record("a third 8 KB trace passed a 20 KB quota")
            return
        }
        #expect(tooBig.detail == "its traces hold 16KB; this one's 8KB more would pass 20KB")
        // After a delete there is room again.
        _ = try await catalog.delete(id: entry(30, size: 0, tags: []).id)
        #expect(try await insert(catalog, entry(32, size: 8 << 10, tags: ["project:pantry"]), [pantryBytes, perProject]) == .success(true))
        #expect(try await catalog.usage(of: ["project:pantry"]) == ["project:pantry": TagUsage(traces: 2, bytes: 16 << 10)])
    }
}
