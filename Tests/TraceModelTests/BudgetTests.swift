import Testing
@testable import TraceModel

@Suite struct GlobTests {
    @Test(arguments: [
        ("PhotoGridCell", "PhotoGridCell", true),
        ("PhotoGridCell", "PhotoGridCellThumbnail", false),
        ("*Cell*", "PhotoGridCellThumbnail", true),
        ("*Cell", "PhotoGridCellThumbnail", false),
        ("Photo*Cell", "PhotoGridCellCell", true),
        ("*a*b*c", "aXbYbZc", true),
        ("*a*b*c", "aXbYbZcd", false),
        ("Row?", "Row1", true),
        ("Row?", "Row12", false),
        ("Row[0-9]", "Row7", true),
        ("Row[!0-9]", "Row7", false),
        ("Row[!0-9]", "RowA", true),
        ("[]]x", "]x", true),
        ("Array\\<Int\\>", "Array<Int>", true),
        ("\\*", "*", true),
        ("\\*", "x", false),
        ("*", "", true),
        ("photogridcell", "PhotoGridCell", false),
        ("Café*", "CaféView", true),
    ])
    func matches(pattern: String, name: String, expected: Bool) throws {
        #expect(try Glob(pattern).matches(name) == expected, "\(pattern) on \(name)")
    }

    @Test(arguments: [
        ("", "empty pattern"),
        ("Row[0-9", "never closed"),
        ("Row\\", "nothing to escape"),
        ("[z-a]", "runs backwards"),
    ])
    func rejects(pattern: String, message: String) {
        #expect { try Glob(pattern) } throws: { ($0 as? GlobError)?.message.contains(message) == true }
    }

    @Test func manyStarsOnALongNameStayFast() throws {
        // Backtracking per star would be exponential here; the matcher resumes from the last star only.
        let glob = try Glob(String(repeating: "*a", count: 30) + "b")
        #expect(!glob.matches(String(repeating: "a", count: 5_000)))
    }
}

/// A photo library app (not the demo): grid cells, a header, SwiftUI layout, hangs, hitches and a
/// model change that re-runs four cells.
private func photosTrace() throws -> Trace {
    var builder = TraceBuilder(metadata: TraceMetadata(name: "photos-grid", app: "Photos", start: 0, end: 5_000_000_000, sourceFormat: "test"))
    let process = builder.addProcess(TraceProcess(pid: 7, name: "Photos"))
    let main = builder.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
    let photos = builder.intern("Photos"), swiftUI = builder.intern("SwiftUI")
    var time: Nanoseconds = 100_000_000
    var ids: [String: [Int32]] = [:]
    func add(_ view: String, _ durations: [Nanoseconds], kind: UpdateKind = .viewBody, module: StringRef? = nil) {
        for duration in durations {
            let row = builder.addUpdate(start: time, duration: duration, kind: kind, module: module ?? photos, viewName: builder.intern(view), thread: main)
            ids[view, default: []].append(row)
            time += duration + 50_000
        }
    }
    add("AlbumHeader", [600_000])
    add("PhotoGridCell", [1_500_000, 2_000_000, 300_000, 700_000])
    add("PhotoGridCellThumbnail", [1_200_000, 100_000])
    add("VStack", [3_000_000], kind: .layout, module: swiftUI)
    // At 2 s: one change of the library re-runs four cells; another, later, one.
    time = 2_000_000_000
    let model = builder.intern("@Observable LibraryModel")
    for (event, count) in [(Int64(1), 4), (2, 1)] {
        let source = builder.addNode(kind: .observable, name: model, isAppCode: true, eventID: event, timestamp: time)
        let before = ids["PhotoGridCell"]!.count
        add("PhotoGridCell", Array(repeating: 200_000, count: count))
        for row in ids["PhotoGridCell"]![before...] {
            let node = builder.addNode(kind: .viewBody, name: builder.intern("PhotoGridCell"), isAppCode: true, eventID: 100 + Int64(row), timestamp: time, update: row)
            builder.addEdge(source: source, target: node, label: .update, changedProperty: builder.intern("assets"), timestamp: time)
        }
        time += 500_000_000
    }
    // Creation fans out wider, but views appearing is not an invalidation.
    let creation = builder.addNode(kind: .viewCreation, name: builder.intern("View Creation / Reuse"), isAppCode: false, eventID: 50, timestamp: time)
    let before = ids["AlbumHeader"]!.count
    add("AlbumHeader", Array(repeating: 100_000, count: 6))
    for row in ids["AlbumHeader"]![before...] {
        let node = builder.addNode(kind: .viewBody, name: builder.intern("AlbumHeader"), isAppCode: true, eventID: 200 + Int64(row), timestamp: time, update: row)
        builder.addEdge(source: creation, target: node, label: .creation, timestamp: time)
    }
    builder.addHang(TimelineInterval(start: 100_000_000, duration: 300_000_000, kind: "Hang", detail: "main thread busy", thread: main))
    builder.addHang(TimelineInterval(start: 4_000_000_000, duration: 100_000_000, kind: "Microhang", detail: "", thread: main))
    builder.addHitch(TimelineInterval(start: 101_000_000, duration: 8_333_333, kind: "Hitch", detail: "expensive commit"))
    builder.addHitch(TimelineInterval(start: 3_000_000_000, duration: 16_666_666, kind: "Hitch", detail: "expensive commit"))
    return try builder.build()
}

@Suite struct BudgetEvaluationTests {
    private func rule(_ metric: BudgetMetric, views: [String] = [], perView: Bool = false, from: Nanoseconds? = nil, max: Int64) throws -> BudgetRule {
        BudgetRule(
            name: metric.rawValue, metric: metric, views: try views.map { try Glob($0) }, perView: perView,
            window: from.map { BudgetWindow(from: $0) }, limit: max
        )
    }

    private func durations(_ trace: Trace, _ offender: BudgetOffender) -> [Nanoseconds] {
        offender.updates.map { trace.updates.duration[$0] }
    }

    @Test func redUpdatesOfGlobbedViewsTogetherNameEachViewAndItsUpdatesLongestFirst() throws {
        let trace = try photosTrace()
        let result = trace.evaluate(try rule(.redUpdates, views: ["PhotoGrid*"], max: 2))
        #expect(!result.passed && result.measured == 3 && result.limit == 2 && result.unit == .count)
        #expect(result.offenders.map(\.title) == ["PhotoGridCell", "PhotoGridCellThumbnail"])
        #expect(result.offenders.map(\.module) == ["Photos", "Photos"])
        #expect(durations(trace, result.offenders[0]) == [2_000_000, 1_500_000])
        #expect(durations(trace, result.offenders[1]) == [1_200_000])
        #expect(result.offenders.allSatisfy { trace.string(trace.updates.viewName[$0.updates[0]]) == $0.view })
    }

    @Test func perViewHoldsEachViewToTheLimitOnItsOwn() throws {
        let trace = try photosTrace()
        #expect(trace.evaluate(try rule(.redUpdates, views: ["PhotoGrid*"], perView: true, max: 2)).passed)
        let tight = trace.evaluate(try rule(.redUpdates, views: ["PhotoGrid*"], perView: true, max: 1))
        #expect(!tight.passed && tight.measured == 2 && tight.offenders.map(\.title) == ["PhotoGridCell"])
    }

    @Test func updateCountsCoverEveryKindAndSeverity() throws {
        let trace = try photosTrace()
        // Every view: the red SwiftUI layout counts too.
        #expect(trace.evaluate(try rule(.redUpdates, max: 10)).measured == 4)
        #expect(trace.evaluate(try rule(.orangeUpdates, max: 10)).measured == 2)
        #expect(trace.evaluate(try rule(.longUpdates, max: 10)).measured == 6)
        #expect(trace.evaluate(try rule(.redUpdates, views: ["V*"], max: 0)).offenders.map(\.module) == ["SwiftUI"])
    }

    @Test func bodyTimeCountsViewBodiesOnly() throws {
        let trace = try photosTrace()
        let total = trace.evaluate(try rule(.bodyTimeTotal, views: ["*"], max: 100_000_000))
        #expect(total.passed && total.unit == .nanoseconds)
        #expect(total.measured == 600_000 + 4_500_000 + 5 * 200_000 + 1_300_000 + 6 * 100_000, "the 3 ms layout is not a body")
        // PhotoGridCell: 200, 200, 200, 200, 200, 300, 700, 1500, 2000 µs: nearest-rank p95 is the 9th.
        let p95 = trace.evaluate(try rule(.bodyTimeP95, views: ["PhotoGridCell"], max: 1_600_000))
        #expect(!p95.passed && p95.measured == 2_000_000)
        #expect(durations(trace, p95.offenders[0]) == [2_000_000], "only the updates over the limit are listed")
    }

    @Test func hangsAndHitchesGiveCountLongestAndTotalWithWhatRanDuringThem() throws {
        let trace = try photosTrace()
        let count = trace.evaluate(try rule(.hangCount, max: 1))
        #expect(!count.passed && count.measured == 2)
        #expect(count.offenders.map(\.title) == ["Hang: main thread busy", "Microhang"])
        #expect(count.offenders[0].span == TimeRange(start: 100_000_000, end: 400_000_000))
        #expect(count.offenders[0].updateCount == 8, "every launch update overlaps the hang")
        let longest = trace.evaluate(try rule(.hangLongest, max: 250_000_000))
        #expect(!longest.passed && longest.measured == 300_000_000 && longest.offenders.count == 1)
        #expect(trace.evaluate(try rule(.hangTotal, max: 400_000_000)).measured == 400_000_000)
        #expect(trace.evaluate(try rule(.hangTotal, max: 400_000_000)).passed)
        #expect(trace.evaluate(try rule(.hitchTotal, max: 0)).measured == 25_000_000 - 1)
        #expect(trace.evaluate(try rule(.hitchLongest, max: 10_000_000)).offenders.map(\.span?.start) == [3_000_000_000])
    }

    @Test func aWindowLeavesOutWhatLiesOutsideIt() throws {
        let trace = try photosTrace()
        // From 1 s: the launch hang, hitch and red cells are gone.
        #expect(trace.evaluate(try rule(.redUpdates, from: 1_000_000_000, max: 0)).passed)
        #expect(trace.evaluate(try rule(.hangCount, from: 1_000_000_000, max: 5)).measured == 1)
        let budget = Budget(window: BudgetWindow(to: 1_000_000_000), rules: [try rule(.hitchCount, max: 5), try rule(.hangCount, from: 1_000_000_000, max: 5)])
        #expect(trace.evaluate(budget).map(\.measured) == [1, 1], "the budget's window unless the rule has its own")
    }

    @Test func fanOutIsTheLargestInvalidationOneEventCaused() throws {
        let trace = try photosTrace()
        let result = trace.evaluate(try rule(.fanOut, max: 3))
        #expect(!result.passed && result.measured == 4, "six AlbumHeaders were created, not invalidated")
        let offender = try #require(result.offenders.first)
        #expect(offender.title == "@Observable LibraryModel.assets → PhotoGridCell.body ×1–4")
        #expect(offender.view == "PhotoGridCell" && offender.module == "Photos")
        #expect(offender.updateCount == 4 && offender.updates.allSatisfy { trace.updates.start[$0] >= 2_000_000_000 && trace.updates.start[$0] < 2_500_000_000 })
        #expect(trace.evaluate(try rule(.fanOut, views: ["Album*"], max: 0)).passed)
    }

    @Test func aRuleWhoseViewsMatchNothingPassesWithANote() throws {
        let result = try photosTrace().evaluate(try rule(.redUpdates, views: ["LandmarkListItemView"], max: 0))
        #expect(result.passed && result.measured == 0)
        #expect(result.notes == ["no update matches \"LandmarkListItemView\""])
    }
}
