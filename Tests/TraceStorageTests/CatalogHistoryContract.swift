import Foundation
import Testing
import TraceModel
@testable import TraceStorage

/// The history's part of the catalog contract, run on both engines (CatalogTests.swift): list
/// filters, orders and cursors; tags; measurements; verdicts; notes.
enum CatalogHistoryContract {
    static func tags(_ texts: String...) -> [TraceTag] { texts.map { try! TraceTag(parsing: $0) } }

    /// Twelve traces of two apps: builds 1...12, main for odd builds, scroll for builds 1...8.
    static func seed(_ catalog: some Catalog) async throws -> [CatalogEntry] {
        var entries: [CatalogEntry] = []
        for n in 1...12 {
            var entry = CatalogContract.entry(n, at: Int64(n <= 3 ? 50_000 : n * 10_000))
            entry.name = n % 4 == 0 ? "Photos 100%_\(n)" : "Recipes-\(String(format: "%02d", n))"
            entry.app = n % 4 == 0 ? "Photos" : "Recipes"
            entry.device = n % 2 == 0 ? "iPhone 16" : "iPad Pro"
            entry.durationNs = Int64(n % 3) * 1_000
            entry.tags = ["build:\(n)", n % 2 == 1 ? "branch:main" : "branch:feature/x"] + (n <= 8 ? ["scenario:scroll"] : ["scenario:open"])
            entry.tags.sort()
            let measured = n % 5 == 0 ? nil : measurements(n)
            _ = try await catalog.insert(entry, measurements: measured, measuredVersion: measured == nil ? 0 : 1001)
            entries.append(entry)
        }
        return entries
    }

    static func measurements(_ n: Int) -> TraceMeasurements {
        var totals = TraceMeasurements.Totals()
        totals.updates = Int64(100 + n)
        totals.hitches = Int64(n % 3)
        totals.hitchNs = Int64(n) * 1_000
        totals.mainActorWaitNs = 7
        totals.cpuWeight = 99
        return TraceMeasurements(
            totals: totals,
            views: [
                .init(module: "Recipes", view: "RecipeRowView", bodies: Int64(n), totalNs: Int64(n) * 10_000, p95Ns: 900, orange: 1, red: Int64(n % 2), widestFanOut: 12),
                .init(module: "Recipes", view: "HeaderView", bodies: 2, totalNs: 300, p95Ns: 200, orange: 0, red: 0, widestFanOut: 0),
                .init(module: "SwiftUI", view: "RecipeRowView", bodies: 1, totalNs: 5, p95Ns: 5, orange: 0, red: 0, widestFanOut: 0),
            ],
            findings: n >= 6 ? [.init(id: "long-body:RecipeRowView", kind: "long-body", subject: "RecipeRowView", severity: "high", costNs: Int64(n) * 100)] : []
        )
    }

    static func ids(_ numbers: [Int]) -> [String] { numbers.map { CatalogContract.entry($0, at: 0).id } }

    static func pageAll(_ catalog: some Catalog, _ query: CatalogQuery, size: Int) async throws -> (ids: [String], total: Int) {
        var seen: [String] = []
        var cursor: CatalogCursor?
        var total = -1
        repeat {
            let page = try await catalog.page(query, limit: size, after: cursor)
            if total >= 0 { #expect(page.total == total) }
            total = page.total
            seen += page.entries.map(\.id)
            // The cursor survives its text form, as clients pass it back.
            cursor = page.next.map { CatalogCursor(token: $0.token)! }
        } while cursor != nil
        return (seen, total)
    }

    /// `q=` words as they matched before the search text (each one, any ASCII case, part of the
    /// name, the app, the device or one tag), newest first: sparse and dense words, words too
    /// short for a trigram, LIKE's own characters, and words that would span two fields.
    static func checkWords(_ catalog: some Catalog, _ entries: [CatalogEntry]) async throws {
        let newestFirst = entries.sorted { ($0.uploadedAtMicros, $0.id) > ($1.uploadedAtMicros, $1.id) }
        let queries: [[String]] = [
            ["build:12"], ["BUILD:1"], ["recipes-0"], ["Recipes"], ["e"], ["r", "o"], ["16"], ["x"], ["%"], ["_"], ["0%_"], ["100%"], ["%_1"],
            ["\\"], ["s-1"], ["feature/x", "open"], ["PHOTOS", "iphone"], ["pro"], ["probuild"], ["recipes-01recipes"], ["16build"], ["zz"],
            ["ipad", "photos"], ["main", "scroll", "r"],
        ]
        for words in queries {
            let expected = newestFirst.filter { entry in
                words.allSatisfy { word in
                    ([entry.name, entry.app, entry.device] + entry.tags).contains { $0.lowercased().contains(word.lowercased()) }
                }
            }.map(\.id)
            let found = try await pageAll(catalog, CatalogQuery(words: words), size: 5)
            #expect(found.ids == expected, "q=\(words.joined(separator: " "))")
            #expect(found.total == expected.count, "q=\(words.joined(separator: " "))")
        }
        // The same words in another order of the list, with a tag filter beside them.
        let byName = try await pageAll(catalog, CatalogQuery(tags: tags("branch:main"), words: ["recipes"], sort: .name, descending: false), size: 2)
        #expect(byName.ids == entries.filter { $0.tags.contains("branch:main") && $0.name.lowercased().contains("recipes") }
            .sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }.map(\.id))
    }

    static func check(_ catalog: some Catalog) async throws {
        let entries = try await seed(catalog)
        let newestFirst = entries.sorted { ($0.uploadedAtMicros, $0.id) > ($1.uploadedAtMicros, $1.id) }.map(\.id)

        // Filters: tags (all of them), name, words, dates; each with its total.
        let main = try await pageAll(catalog, CatalogQuery(tags: tags("branch:main")), size: 4)
        #expect(main.ids == newestFirst.filter { ids([1, 3, 5, 7, 9, 11]).contains($0) })
        #expect(main.total == 6)
        let mainScroll = try await pageAll(catalog, CatalogQuery(tags: tags("branch:main", "scenario:scroll")), size: 2)
        #expect(mainScroll.ids == newestFirst.filter { ids([1, 3, 5, 7]).contains($0) })
        #expect(mainScroll.total == 4)
        // Tags in any order, whichever is rarest (it is read first, the others probed): the same
        // pages and counts, in both directions and by name; a tag no trace has leaves nothing.
        #expect(try await pageAll(catalog, CatalogQuery(tags: tags("scenario:scroll", "branch:main")), size: 3) == mainScroll)
        #expect(try await pageAll(catalog, CatalogQuery(tags: tags("branch:main", "scenario:scroll", "build:3")), size: 1) == (ids([3]), 1))
        #expect(try await pageAll(catalog, CatalogQuery(tags: tags("branch:main", "scenario:open"), descending: false), size: 1) == (ids([9, 11]), 2))
        #expect(try await pageAll(catalog, CatalogQuery(tags: tags("scenario:scroll", "branch:main"), sort: .name, descending: false), size: 3) == (ids([1, 3, 5, 7]), 4))
        #expect(try await catalog.page(CatalogQuery(tags: tags("branch:main", "scenario:nope")), limit: 1, after: nil) == CatalogPage(entries: [], next: nil, total: 0))
        // Read by the first tag's own index: its ties (builds 1, 2, 3 and 5 share an upload time),
        // the oldest first, a date window and a name filter beside it, each paged by its cursor.
        #expect(try await pageAll(catalog, CatalogQuery(tags: tags("branch:main"), descending: false), size: 1).ids == main.ids.reversed())
        let scrollWindow = CatalogQuery(tags: tags("scenario:scroll"), uploadedFrom: 40_000, uploadedBefore: 80_000)
        #expect(try await pageAll(catalog, scrollWindow, size: 1) == (newestFirst.filter { ids([1, 2, 3, 4, 5, 6, 7]).contains($0) }, 7))
        let named = try await pageAll(catalog, CatalogQuery(tags: tags("branch:main"), name: "recipes-0"), size: 2)
        #expect(named == (newestFirst.filter { ids([1, 3, 5, 7, 9]).contains($0) }, 5))
        #expect(try await pageAll(catalog, CatalogQuery(tags: tags("branch:feature/x", "build:4")), size: 10).ids == ids([4]))
        #expect(try await catalog.page(CatalogQuery(tags: tags("branch:nope")), limit: 10, after: nil) == CatalogPage(entries: [], next: nil, total: 0))
        // A history reads only the tags that place a trace: of these keys, whole keys ("b" is not "build").
        var placing = CatalogQuery(tags: tags("branch:feature/x"))
        placing.tagKeys = ["build", "scenario"]
        let placed = try await catalog.page(placing, limit: 3, after: nil)
        #expect(placed.entries.map(\.tags) == [["build:12", "scenario:open"], ["build:10", "scenario:open"], ["build:8", "scenario:scroll"]])
        #expect(placed.total == 6)
        placing.tagKeys = ["b"]
        #expect(try await catalog.page(placing, limit: 3, after: nil).entries.map(\.tags) == [[], [], []])
        placing.tagKeys = []
        #expect(try await catalog.page(placing, limit: 3, after: nil).entries.map(\.id) == ids([12, 10, 8]))
        #expect(Set(try await pageAll(catalog, CatalogQuery(name: "recipes-1"), size: 10).ids) == Set(ids([10, 11])))
        // LIKE's own characters are literal: "100%" is only in the Photos names, "_" too.
        #expect(Set(try await pageAll(catalog, CatalogQuery(name: "0%_"), size: 10).ids) == Set(ids([4, 8, 12])))
        #expect(try await pageAll(catalog, CatalogQuery(name: "%"), size: 10).total == 3)
        // Words match the name, app, device or a tag, each word somewhere.
        #expect(Set(try await pageAll(catalog, CatalogQuery(words: ["PHOTOS", "iphone"]), size: 10).ids) == Set(ids([4, 8, 12])))
        #expect(Set(try await pageAll(catalog, CatalogQuery(words: ["feature/x", "open"]), size: 10).ids) == Set(ids([10, 12])))
        try await checkWords(catalog, entries)
        let window = try await pageAll(catalog, CatalogQuery(uploadedFrom: 60_000, uploadedBefore: 90_000), size: 10)
        #expect(Set(window.ids) == Set(ids([6, 7, 8])))

        // Orders: by name (byte order, as both engines sort it), oldest first, by duration with ties.
        let byName = try await pageAll(catalog, CatalogQuery(sort: .name, descending: false), size: 5)
        #expect(byName.ids == entries.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }.map(\.id))
        let oldest = try await pageAll(catalog, CatalogQuery(descending: false), size: 5)
        #expect(oldest.ids == newestFirst.reversed())
        let byDuration = try await pageAll(catalog, CatalogQuery(sort: .duration), size: 5)
        #expect(byDuration.ids == entries.sorted { ($0.durationNs, $0.id) > ($1.durationNs, $1.id) }.map(\.id))
        #expect(byDuration.total == 12)
        #expect(CatalogCursor(token: "~not base64!.00") == nil)
        #expect(CatalogCursor(after: entries[0], sort: .name).fits(.name))
        #expect(!CatalogCursor(after: entries[0], sort: .name).fits(.uploaded))

        // Tags: replaced as a whole; the filters follow.
        let four = ids([4])[0]
        let retagged = try #require(try await catalog.setTags(tags("branch:main", "nightly"), id: four))
        #expect(retagged.tags == ["branch:main", "nightly"])
        #expect(try await catalog.entry(id: four)?.tags == ["branch:main", "nightly"])
        #expect(try await pageAll(catalog, CatalogQuery(tags: tags("nightly")), size: 10).ids == [four])
        // The search text follows the tags.
        #expect(try await pageAll(catalog, CatalogQuery(words: ["NIGHTLY"]), size: 10).ids == [four])
        #expect(!(try await pageAll(catalog, CatalogQuery(words: ["build:4"]), size: 10).ids.contains(four)))
        #expect(try await pageAll(catalog, CatalogQuery(tags: tags("branch:main")), size: 10).total == 7)
        #expect(try await catalog.setTags(tags("x"), id: String(repeating: "e", count: 32)) == nil)

        // Measurements: as written, the views filtered by name, findings with them.
        let measured = try await catalog.measurements(of: ids([1, 5, 6]), views: .all)
        #expect(Set(measured.keys) == Set(ids([1, 6])))
        #expect(measured[ids([6])[0]] == measurements(6))
        let rowView = try await catalog.measurements(of: ids([6]), views: .named("RecipeRowView"))
        #expect(rowView[ids([6])[0]]?.views.map(\.module) == ["Recipes", "SwiftUI"])
        #expect(rowView[ids([6])[0]]?.findings.map(\.costNs) == [600])
        #expect(HistoryMetric.bodyCount.value(in: rowView[ids([6])[0]]!, module: nil, view: "RecipeRowView", finding: nil) == 7)
        // A trace-scope metric reads no view rows; the view picker sums the views in SQL, bounded.
        let totalsOnly = try #require(try await catalog.measurements(of: ids([6]), views: .none)[ids([6])[0]])
        #expect(totalsOnly.views.isEmpty && totalsOnly.totals == measurements(6).totals && totalsOnly.findings == measurements(6).findings)
        #expect(try await catalog.topViews(of: ids([1, 5, 6]), limit: 2) == [
            ViewTotal(module: "Recipes", view: "RecipeRowView", totalNs: 70_000), ViewTotal(module: "Recipes", view: "HeaderView", totalNs: 600),
        ])
        #expect(try await catalog.topViews(of: ids([1, 6]), limit: 10).map(\.module) == ["Recipes", "Recipes", "SwiftUI"])
        #expect(try await catalog.topViews(of: ids([5]), limit: 10).isEmpty)
        // Missing (5, 10) or of another version: measured again; the new figures replace the old.
        #expect(Set(try await catalog.unmeasured(version: 1001, limit: 100).map(\.id)) == Set(ids([5, 10])))
        #expect(try await catalog.unmeasured(version: 1002, limit: 100).count == 12)
        #expect(try await catalog.storeMeasurements(measurements(50), id: ids([5])[0], measuredVersion: 1001, parserVersion: 2))
        #expect(try await catalog.measurements(of: ids([5]), views: .all)[ids([5])[0]] == measurements(50))
        #expect(try await catalog.entry(id: ids([5])[0])?.parserVersion == 2)
        #expect(try await catalog.storeMeasurements(measurements(60), id: ids([5])[0], measuredVersion: 1001, parserVersion: 2))
        #expect(try await catalog.measurements(of: ids([5]), views: .all)[ids([5])[0]] == measurements(60))
        #expect(try await catalog.unmeasured(version: 1001, limit: 100).map(\.id) == ids([10]))
        #expect(try await catalog.storeMeasurements(measurements(1), id: String(repeating: "e", count: 32), measuredVersion: 1001, parserVersion: 2) == false)

        // Verdicts: the latest per trace.
        let one = ids([1])[0], three = ids([3])[0]
        #expect(try await catalog.recordVerdict(CheckVerdict(traceID: one, passed: false, failedRules: 2, rules: 9, baselineID: three, summary: "2 of 9 rules failed", checkedAtMicros: 5)))
        #expect(try await catalog.recordVerdict(CheckVerdict(traceID: one, passed: true, failedRules: 0, rules: 9, baselineID: nil, summary: "within budget", checkedAtMicros: 6)))
        #expect(try await catalog.recordVerdict(CheckVerdict(traceID: String(repeating: "e", count: 32), passed: true, failedRules: 0, rules: 1, baselineID: nil, summary: "x", checkedAtMicros: 1)) == false)
        #expect(try await catalog.verdicts(of: [one, three]) == [one: CheckVerdict(traceID: one, passed: true, failedRules: 0, rules: 9, baselineID: nil, summary: "within budget", checkedAtMicros: 6)])

        // Notes: any text as it was given, in order; deleted one at a time.
        let notes = [
            TraceNote(id: "00000000000000a1", traceID: one, target: .update(12), text: "fixed in #1234: <b>cached</b> the formatter", createdAtMicros: 10),
            TraceNote(id: "00000000000000a2", traceID: one, target: .range(start: -5, end: 1_000), text: "ünïcode ✓\nsecond line", createdAtMicros: 11),
            TraceNote(id: "00000000000000a3", traceID: one, target: .finding("long-body:RecipeRowView"), text: "'; DROP TABLE traces; --", createdAtMicros: 12),
        ]
        for note in notes { #expect(try await catalog.addNote(note, maxPerTrace: 3) == .added) }
        #expect(try await catalog.addNote(TraceNote(id: "00000000000000a4", traceID: String(repeating: "e", count: 32), target: .update(1), text: "x", createdAtMicros: 1),
                                          maxPerTrace: 3) == .unknownTrace)
        #expect(try await catalog.addNote(TraceNote(id: "00000000000000a5", traceID: one, target: .update(1), text: "one too many", createdAtMicros: 13),
                                          maxPerTrace: 3) == .full)
        #expect(try await catalog.notes(traceID: one) == notes)
        #expect(try await catalog.deleteNote(id: "00000000000000a2", traceID: one))
        #expect(try await catalog.deleteNote(id: "00000000000000a2", traceID: one) == false)
        #expect(try await catalog.deleteNote(id: "00000000000000a1", traceID: three) == false)
        #expect(try await catalog.notes(traceID: one).map(\.id) == ["00000000000000a1", "00000000000000a3"])

        // The cap holds for notes added at once: each is counted and inserted in one step (issue 39: 203 of 200).
        let two = ids([2])[0]
        let outcomes = try await withThrowingTaskGroup(of: NoteAddition.self) { group in
            for n in 0..<24 {
                group.addTask {
                    try await catalog.addNote(TraceNote(id: String(format: "%016x", 0xb00 + n), traceID: two, target: .update(n), text: "at once \(n)",
                                                        createdAtMicros: Int64(100 + n)), maxPerTrace: 10)
                }
            }
            return try await group.reduce(into: [NoteAddition]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .added }.count == 10)
        #expect(outcomes.filter { $0 == .full }.count == 14)
        #expect(try await catalog.notes(traceID: two).count == 10)

        // A deleted trace takes its measurements, verdict and notes with it.
        _ = try await catalog.delete(id: one)
        #expect(try await catalog.measurements(of: [one], views: .all).isEmpty)
        #expect(try await catalog.verdicts(of: [one]).isEmpty)
        #expect(try await catalog.notes(traceID: one).isEmpty)

        // Rows of equal cost in one order on both engines: views by view, then module name,
        // findings by id, in byte order ("Z" before "a"); an id asked twice is read once.
        var tied = measurements(13)
        tied.views = [("a", "Zeta"), ("B", "Zeta"), ("A", "alpha"), ("A", "Zeta")].map {
            TraceMeasurements.View(module: $0.0, view: $0.1, bodies: 1, totalNs: 500, p95Ns: 1, orange: 0, red: 0, widestFanOut: 0)
        }
        tied.findings = ["b", "B", "a"].map { TraceMeasurements.FindingMark(id: "f:\($0)", kind: "k", subject: "s", severity: "low", costNs: 9) }
        let thirteen = try await catalog.insert(CatalogContract.entry(13, at: 5), measurements: tied, measuredVersion: 1001).entry.id
        let readBack = try #require(try await catalog.measurements(of: [thirteen, thirteen], views: .all)[thirteen])
        #expect(readBack.views.map { "\($0.module).\($0.view)" } == ["A.Zeta", "B.Zeta", "a.Zeta", "A.alpha"])
        #expect(readBack.findings.map(\.id) == ["f:B", "f:a", "f:b"])
        #expect(try await catalog.measurements(of: [thirteen], views: .named("Zeta"))[thirteen]?.views.map(\.module) == ["A", "B", "a"])
        // Ids no trace has, of any characters, are simply not found.
        let strange = ["\"", "\\", "a\"]", "\u{1}\n", "é ✓", "", thirteen.uppercased()]
        #expect(Array(try await catalog.measurements(of: strange + [thirteen], views: .all).keys) == [thirteen])
        #expect(try await catalog.verdicts(of: strange).isEmpty)
    }
}
