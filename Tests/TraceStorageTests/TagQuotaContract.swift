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
        // (The outcomes are in the order the inserts ended: the stored one is found in the catalog.)
        let stored = try #require(try await catalog.page(CatalogQuery(tags: [try TraceTag(parsing: "project:trips")]), limit: 1, after: nil).entries.first)
        #expect(try await insert(catalog, stored, [perProject]) == .success(false))

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
        try await checkTagEdits(catalog)
    }

    static func setTags(_ catalog: some Catalog, _ tags: [String], id: String, _ quotas: [TagQuota]) async throws -> Result<[String], TagQuotaExceeded> {
        do {
            return .success(try await catalog.setTags(try TraceTag.parseAll(tags), id: id, within: quotas)?.tags ?? [])
        } catch let refusal as TagQuotaExceeded {
            return .failure(refusal)
        }
    }

    /// A tag edit that moves a trace into a full scope is refused as an upload is, atomically:
    /// edits at once into one scope never pass it together; a tag the trace has is not counted again.
    static func checkTagEdits(_ catalog: some Catalog) async throws {
        let perTeam = try TagQuota(parsing: "team=*:3 traces")
        for n in 50...57 { _ = try await catalog.insert(entry(n, size: 10, tags: ["team:old", "scenario:scroll"])) }
        // 8 traces retagged into team:new at once, 3 allowed: exactly 3 moved, the others keep their tags.
        let outcomes = try await withThrowingTaskGroup(of: Result<[String], TagQuotaExceeded>.self) { group in
            for n in 50...57 {
                group.addTask { try await setTags(catalog, ["team:new", "scenario:scroll"], id: entry(n, size: 0, tags: []).id, [perTeam]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let refusals = outcomes.compactMap { if case let .failure(refusal) = $0 { refusal } else { nil } }
        #expect(outcomes.filter { (try? $0.get()) == ["scenario:scroll", "team:new"] }.count == 3)
        #expect(refusals.count == 5 && refusals.allSatisfy { $0.tag == "team:new" && $0.quota == "team=*:3 traces" && $0.detail == "it holds 3 traces, at most 3" })
        #expect(try await catalog.page(CatalogQuery(tags: [try TraceTag(parsing: "team:old")]), limit: 50, after: nil).entries.count == 5)
        #expect(try await catalog.usage(of: ["team:new", "team:old"]) == ["team:new": TagUsage(traces: 3, bytes: 30), "team:old": TagUsage(traces: 5, bytes: 50)])
        // A trace in the full scope keeps it through an edit of its other tags.
        let moved = try #require(try await catalog.page(CatalogQuery(tags: [try TraceTag(parsing: "team:new")]), limit: 50, after: nil).entries.first?.id)
        #expect(try await setTags(catalog, ["team:new", "nightly"], id: moved, [perTeam]) == .success(["nightly", "team:new"]))
        // A size quota counts the trace's bytes.
        let small = try TagQuota(parsing: "team=tiny:1KB")
        _ = try await catalog.insert(entry(60, size: 800, tags: ["team:tiny"]))
        _ = try await catalog.insert(entry(61, size: 800, tags: ["nightly"]))
        #expect(try await setTags(catalog, ["team:tiny"], id: entry(61, size: 0, tags: []).id, [small])
            == .failure(TagQuotaExceeded(tag: "team:tiny", quota: "team=tiny:1KB", detail: "its traces hold 1KB; this one's 1KB more would pass 1KB")))
        #expect(try await catalog.entry(id: entry(61, size: 0, tags: []).id)?.tags == ["nightly"])
    }
}
