import Foundation
import Testing
@testable import TraceStorage

/// The counts a list's `total`, the storage quota and the tag quotas read (`trace_counts`, kept
/// by the writes instead of counted per request) always equal what a count of the rows gives:
/// after inserts, tag edits, deletes one by one and many at once, and all of them at the same
/// time; and a recount repairs what a replica older than the counts wrote without counting,
/// while current writers go on. `CatalogContractTests` runs it on SQLite and PostgreSQL.
enum TraceCountsContract {
    static let tags = ["project:pantry", "project:trips", "branch:main", "nightly", "scenario:retagged", "team:ios"]

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

    /// A tracesvc older than migration 10 during a rolling upgrade stores, retags and deletes on the
    /// rows alone: the counts drift; a recount makes them the rows' again, once.
    static func checkRecount(_ catalog: some Catalog) async throws {
        for n in 1...20 { _ = try await catalog.insert(entry(n)) }
        #expect(try await catalog.recountTraces() == [], "counts kept by the writes need no repair")
        var tagged = entry(22)
        tagged.tags.append("team:ios")
        try await asAnOlderBinary(catalog, olderInsert(entry(21)) + olderInsert(tagged)
            + olderRetag(entry(4).id, to: ["project:trips", "nightly"]) + olderDelete(entry(9).id))
        #expect(try await catalog.totals().count == 20, "the older binary's writes are not counted: the counts drifted")
        #expect(try await catalog.usage(of: ["team:ios"]).isEmpty)

        let repairs = try await catalog.recountTraces()
        // Every scope the older writes touched, and only those: branch:main gained 21 and lost 9.
        #expect(repairs.map(\.scope) == ["", "branch:main", "nightly", "project:pantry", "project:trips", "team:ios"], "\(repairs)")
        let everyTrace = repairs.first { $0.scope == TraceCountChange.everyTrace }
        #expect(everyTrace?.recorded == TagUsage(traces: 20, bytes: 100 * (1...20).reduce(0, +)))
        #expect(everyTrace?.actual == TagUsage(traces: 21, bytes: 100 * (1...22).reduce(0, +) - 900))
        try await expectExact(catalog, "after the recount")
        #expect(try await catalog.recountTraces() == [], "a second recount finds nothing")

        // Drifted again, then repaired while current writers insert, retag and delete the same scopes:
        // no write is lost to the repair nor counted twice (each round checked without another recount).
        for round in 0..<3 {
            let base = 100 + 20 * round
            let ids = try await catalog.all().map(\.id)
            try await asAnOlderBinary(catalog, olderInsert(entry(base)) + olderDelete(ids[0]))
            let existing = ids.dropFirst().prefix(12)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in base + 1...base + 8 { group.addTask { _ = try await catalog.insert(entry(n)) } }
                for id in existing.prefix(6) {
                    group.addTask { _ = try await catalog.setTags(try TraceTag.parseAll(["project:pantry", "nightly", "scenario:retagged"]), id: id) }
                }
                group.addTask { _ = try await catalog.delete(ids: Array(existing.suffix(4))) }
                for _ in 0..<3 { group.addTask { _ = try await catalog.recountTraces() } }
                try await group.waitForAll()
            }
            try await expectExact(catalog, "round \(round): after recounts during writes")
        }
    }

    /// Runs `statements` as they are, outside the catalog's writes (an older tracesvc's).
    static func asAnOlderBinary(_ catalog: some Catalog, _ statements: [String]) async throws {
        switch catalog {
        case let sqlite as SQLiteCatalog: try await sqlite.execute(statements)
        case let postgres as PostgresCatalog: try await PostgresCatalog.execute(statements, at: postgres.location, logger: TeamEngines.logger)
        default: Issue.record("no raw SQL for \(type(of: catalog))")
        }
    }

    /// What a release before migration 10 stored for an upload: the row and its tags, no count.
    static func olderInsert(_ entry: CatalogEntry) -> [String] {
        let run = entry.run.map(String.init) ?? "NULL"
        return ["""
            INSERT INTO traces (id, name, app, device, duration_ns, size_bytes, sha256, source_format, update_count, run, uploaded_at_us, parser_version)
            VALUES ('\(entry.id)', '\(entry.name)', '\(entry.app)', '\(entry.device)', \(entry.durationNs), \(entry.sizeBytes), '\(entry.sha256)',
                    '\(entry.sourceFormat)', \(entry.updateCount), \(run), \(entry.uploadedAtMicros), \(entry.parserVersion))
            """] + entry.tags.map { tag in
            "INSERT INTO trace_tags (trace_id, tag, uploaded_at_us, size_bytes) VALUES ('\(entry.id)', '\(tag)', \(entry.uploadedAtMicros), \(entry.sizeBytes))"
        }
    }

    static func olderRetag(_ id: String, to tags: [String]) -> [String] {
        ["DELETE FROM trace_tags WHERE trace_id = '\(id)'"] + tags.map { tag in
            "INSERT INTO trace_tags (trace_id, tag, uploaded_at_us, size_bytes) SELECT id, '\(tag)', uploaded_at_us, size_bytes FROM traces WHERE id = '\(id)'"
        }
    }

    static func olderDelete(_ id: String) -> [String] { ["DELETE FROM traces WHERE id = '\(id)'"] }
}
