import Foundation
import Testing
@testable import TraceStorage

/// The counts a list's `total`, the storage quota and the tag quotas read (`trace_counts`, kept
/// by the writes instead of counted per request) always equal what a count of the rows gives:
/// after inserts, tag edits, deletes one by one and many at once, and all of them at the same
/// time. `CatalogContractTests` runs it on SQLite and PostgreSQL.
enum TraceCountsContract {
    static let tags = ["project:pantry", "project:trips", "branch:main", "nightly", "scenario:retagged"]

    static func entry(_ n: Int) -> CatalogEntry {
        var tags: [String] = [n % 2 == 0 ? "project:pantry" : "project:trips"]
        if n % 3 == 0 { tags.append("branch:main") }
        if n % 5 == 0 { tags.append("nightly") }
        var entry = CatalogContract.entry(n, at: Int64(n) * 1_000, tags: tags)
        entry.sizeBytes = Int64(100 * n)
        return entry
    }

    /// Every count the catalog answers against the rows themselves.
    static func expectExact(_ catalog: some Catalog, _ when: String) async throws {
        let rows = try await catalog.all()
        let totals = try await catalog.totals()
        #expect(totals.count == rows.count && totals.bytes == rows.reduce(0) { $0 + $1.sizeBytes }, "\(when): totals")
        // A first page shorter than its list, and a page after a cursor, both say the whole count.
        let first = try await catalog.page(CatalogQuery(), limit: 3, after: nil)
        #expect(first.total == rows.count, "\(when): the list's total")
        if let next = first.next { #expect(try await catalog.page(CatalogQuery(), limit: 3, after: next).total == rows.count, "\(when): the next page's total") }
        var expectedUsage: [String: TagUsage] = [:]
        for tag in tags {
            let tagged = rows.filter { $0.tags.contains(tag) }
            if !tagged.isEmpty { expectedUsage[tag] = TagUsage(traces: tagged.count, bytes: tagged.reduce(0) { $0 + $1.sizeBytes }) }
            let page = try await catalog.page(CatalogQuery(tags: [try TraceTag(parsing: tag)]), limit: 2, after: nil)
            #expect(page.total == tagged.count, "\(when): \(tag)'s total")
        }
        #expect(try await catalog.usage(of: tags) == expectedUsage, "\(when): usage")
    }

    static func check(_ catalog: some Catalog) async throws {
        try await expectExact(catalog, "empty")
        for n in 1...30 { _ = try await catalog.insert(entry(n)) }
        _ = try await catalog.insert(entry(4))
        try await expectExact(catalog, "after inserts")

        // Tag edits: a move to another project, a tag added, all removed, the same set again.
        _ = try await catalog.setTags([try TraceTag(parsing: "project:trips"), try TraceTag(parsing: "scenario:retagged")], id: entry(2).id)
        _ = try await catalog.setTags(try TraceTag.parseAll(entry(3).tags + ["nightly"]), id: entry(3).id)
        _ = try await catalog.setTags([], id: entry(6).id)
        _ = try await catalog.setTags(try TraceTag.parseAll(entry(8).tags), id: entry(8).id)
        #expect(try await catalog.setTags([], id: String(repeating: "e", count: 32)) == nil)
        try await expectExact(catalog, "after tag edits")

        _ = try await catalog.delete(id: entry(5).id)
        _ = try await catalog.delete(id: entry(5).id)
        _ = try await catalog.delete(ids: [entry(2).id, entry(9).id, entry(10).id, String(repeating: "e", count: 32)])
        try await expectExact(catalog, "after deletes")

        // All at once (PostgreSQL: writers lock the counted rows in one order, so none deadlocks).
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 31...40 { group.addTask { _ = try await catalog.insert(entry(n)) } }
            for n in 11...18 {
                group.addTask { _ = try await catalog.setTags(try TraceTag.parseAll(entry(n + 1).tags + ["scenario:retagged"]), id: entry(n).id) }
            }
            for n in 19...22 { group.addTask { _ = try await catalog.delete(id: entry(n).id) } }
            group.addTask { _ = try await catalog.delete(ids: (23...27).map { entry($0).id }) }
            try await group.waitForAll()
        }
        try await expectExact(catalog, "after concurrent writes")
        _ = try await catalog.delete(ids: try await catalog.all().map(\.id))
        try await expectExact(catalog, "emptied")
    }
}
