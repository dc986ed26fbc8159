import Testing
@testable import TraceModel

/// Writes small traces for comparisons: updates of named views, optionally in labelled update
/// groups and caused by a named source, plus CPU samples of named leaf functions.
private struct Recording {
    var builder: TraceBuilder
    var time: Nanoseconds = 1_000_000
    let thread: Int32
    var eventID: Int64 = 1

    init(name: String, app: String = "Landmarks", device: String = "iPhone 16 Pro", os: String = "iOS 18.0") {
        builder = TraceBuilder(metadata: TraceMetadata(
            name: name, app: app, device: device, osVersion: os, start: 0, end: 10_000_000_000, sourceFormat: "test"
        ))
        let process = builder.addProcess(TraceProcess(pid: 1, name: app))
        thread = builder.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
    }

    /// One update group per call when `label` is given; each cause node fans out to all `durations`.
    mutating func updates(
        _ view: String, module: String? = nil, category: String = "View Body", kind: UpdateKind = .viewBody,
        _ durations: [Nanoseconds], label: String? = nil, cause: String? = nil, property: String = ""
    ) {
        let groupStart = time
        let group = label == nil ? noRow : Int32(builder.groupCount)
        var source: UInt32?
        if let cause {
            source = builder.addNode(kind: .observable, name: builder.intern(cause), isAppCode: true, eventID: eventID, timestamp: time)
            eventID += 1
        }
        let moduleRef = builder.intern(module ?? builder.metadata.app), viewRef = builder.intern(view), categoryRef = builder.intern(category)
        for duration in durations {
            let update = builder.addUpdate(start: time, duration: duration, kind: kind, module: moduleRef, viewName: viewRef,
                                           category: categoryRef, thread: thread, group: group)
            if let source {
                let node = builder.addNode(kind: .viewBody, name: viewRef, isAppCode: true, eventID: eventID, timestamp: time, update: update)
                eventID += 1
                builder.addEdge(source: source, target: node, label: .update, changedProperty: builder.intern(property), timestamp: time, group: group)
            }
            time += duration + 10_000
        }
        if let label { builder.addUpdateGroup(start: groupStart, duration: time - groupStart, label: builder.intern(label), thread: thread) }
        time += 1_000_000
    }

    mutating func samples(_ function: String, binary: String = "Landmarks", milliseconds: Int) {
        let frame = builder.addFrame(name: builder.intern(function), binary: builder.intern(binary), isAppCode: binary == builder.metadata.app)
        let stack = UInt32(builder.addStack(rootToLeaf: [frame]))
        for _ in 0..<milliseconds {
            builder.addSample(time: time, thread: thread, weight: 1_000_000, stack: stack)
            time += 1_000_000
        }
    }

    func trace() throws -> Trace { try builder.build() }
}

/// Durations from `low` in steps of `step`, `count` of them (a spread, not all equal).
private func spread(_ count: Int, from low: Nanoseconds, step: Nanoseconds) -> [Nanoseconds] {
    (0..<count).map { low + Nanoseconds($0) * step }
}

@Suite struct ComparisonTests {
    private func row(_ comparison: TraceComparison, _ view: String) throws -> ViewComparison {
        try #require(comparison.views.first { $0.view == view }, "no row for \(view) in \(comparison.views.map(\.view))")
    }

    @Test func viewsOnOneSideOnlyAppearOrDisappear() throws {
        var a = Recording(name: "before"), b = Recording(name: "after")
        a.updates("Row", spread(10, from: 100_000, step: 10_000))
        a.updates("OldBanner", [700_000, 1_500_000])
        b.updates("Row", spread(10, from: 100_000, step: 10_000))
        b.updates("NewBanner", [300_000])
        let comparison = TraceComparison(before: try a.trace(), after: try b.trace())
        let old = try row(comparison, "OldBanner"), new = try row(comparison, "NewBanner")
        #expect(old.change == .disappeared && old.significant)
        #expect(old.a.count == 2 && old.a.red == 1 && old.a.orange == 1 && old.b == ComparedViewStats())
        #expect(old.delta.totalNs == -2_200_000 && old.delta.totalPercent == -100)
        #expect(new.change == .appeared && new.a.count == 0 && new.b.totalNs == 300_000 && new.delta.totalPercent == nil)
        #expect(!new.durations.tested)
        // Largest absolute change of total time first; the unchanged row last.
        #expect(comparison.views.map(\.view) == ["OldBanner", "NewBanner", "Row"])
        #expect(try row(comparison, "Row").change == .unchanged)
    }

    @Test func emptyTracesCompareToEmptyTables() throws {
        let empty = try Recording(name: "empty").trace()
        let comparison = TraceComparison(before: empty, after: empty)
        #expect(comparison.views.isEmpty && comparison.causes.isEmpty && comparison.functions.isEmpty && comparison.interactions.isEmpty)
        #expect(comparison.totals.map(\.name) == ["updates", "hitches", "hangs", "cpu"])
        #expect(comparison.totals.allSatisfy { $0.a == ComparedTotal() && $0.b == ComparedTotal() })
        #expect(comparison.differences.isEmpty)

        var busy = Recording(name: "busy")
        busy.updates("Row", [200_000, 300_000], label: "Tap", cause: "@Observable Model")
        busy.samples("Row.body.getter", milliseconds: 3)
        let fromNothing = TraceComparison(before: empty, after: try busy.trace())
        #expect(fromNothing.views.map(\.change) == [.appeared])
        #expect(fromNothing.causes.map(\.change) == [.appeared])
        #expect(fromNothing.functions.map(\.deltaNs) == [3_000_000])
        #expect(fromNothing.totals[0].b == ComparedTotal(count: 2, totalNs: 500_000))
    }

    @Test func identicalTracesShowNoSignificantChange() throws {
        var recording = Recording(name: "same")
        recording.updates("Row", spread(30, from: 150_000, step: 7_000), label: "Tap", cause: "@Observable Model", property: "items")
        recording.updates("HStack", module: "SwiftUI", category: "Layout", kind: .layout, spread(12, from: 50_000, step: 3_000))
        recording.samples("Row.body.getter", milliseconds: 5)
        let trace = try recording.trace()
        let comparison = TraceComparison(before: trace, after: trace)
        #expect(comparison.views.count == 2)
        for view in comparison.views {
            #expect(view.change == .unchanged && !view.significant)
            #expect(view.durations.tested && !view.durations.significant && view.durations.pValue == 1)
            #expect(view.delta == ComparedViewDelta(view.a, view.a))
        }
        #expect(comparison.causes.map(\.change) == [.unchanged])
        #expect(comparison.functions.isEmpty)
    }

    @Test func slowerDurationsAreSignificant() throws {
        var a = Recording(name: "fast"), b = Recording(name: "slow")
        a.updates("Row", spread(20, from: 100_000, step: 5_000))
        b.updates("Row", spread(20, from: 1_100_000, step: 50_000))
        // Same count, durations that overlap (noise): not significant although the total moved.
        a.updates("Label", spread(20, from: 100_000, step: 10_000))
        b.updates("Label", spread(20, from: 105_000, step: 10_000))
        let comparison = TraceComparison(before: try a.trace(), after: try b.trace())
        let slow = try row(comparison, "Row")
        #expect(slow.change == .regressed && slow.significant)
        #expect(slow.durations.significant && slow.durations.direction == "slower")
        #expect(try #require(slow.durations.pValue) < 0.001)
        #expect(slow.b.red == 20 && slow.a.red == 0 && slow.delta.red == 20)
        #expect(slow.a.p95Ns == 190_000 && slow.b.p95Ns == 2_000_000)
        let noise = try row(comparison, "Label")
        #expect(noise.change == .regressed && !noise.significant && !noise.durations.significant)
        #expect(try #require(noise.durations.pValue) > 0.5)
        // The other way round it is an improvement.
        let reversed = try row(TraceComparison(before: try b.trace(), after: try a.trace()), "Row")
        #expect(reversed.change == .improved && reversed.durations.direction == "faster")
    }

    /// `check --baseline`: a view that runs twice as often at the same speed fails both rules on its
    /// count; no p-value stands beside either (the durations did not differ). The other way round
    /// both pass and say how far the view fell, not "+0 %".
    @Test func baselineRulesReportTheChangeTheyReadAndOnlyTheEvidenceTheyUsed() throws {
        var few = Recording(name: "few"), many = Recording(name: "many")
        few.updates("Row", spread(20, from: 100_000, step: 10_000))
        many.updates("Row", spread(40, from: 100_000, step: 5_000))
        let before = try few.trace(), after = try many.trace()
        let row = try row(TraceComparison(before: before, after: after), "Row")
        #expect(row.significant && !row.durations.significant, "significant on its count alone")

        let regressed = after.baselineResults(against: before, tolerance: BaselineTolerance())
        #expect(regressed.map(\.metric) == ["baseline-body-count", "baseline-body-time"] && regressed.allSatisfy { !$0.passed })
        for result in regressed {
            let offender = try #require(result.offenders.first)
            #expect(offender.title == "Row" && offender.change?.pValue == nil, "\(result.metric)")
            #expect(result.measuredIn == nil, "the offenders name the view")
        }
        #expect(regressed[0].measured == 100)

        let fell = before.baselineResults(against: after, tolerance: BaselineTolerance())
        #expect(fell.allSatisfy(\.passed) && fell.allSatisfy { $0.measuredIn == "Row" })
        #expect(fell[0].measured == -50, "20 bodies where there were 40")
    }

    @Test func mannWhitneyMatchesTheTextbookValueWithTies() throws {
        // A entirely below B, 8 each: U = 0, z = -(32 - 0.5) / sqrt(8·8·17/12), p = 0.000939.
        let separated = RankSumTest(Array(1...8), Array(9...16))
        #expect(abs(try #require(separated.pValue) - 0.000939) < 0.00001)
        #expect(separated.direction == "slower")
        // Ties share their average rank: [1,1,2] vs [1,2,2] → ranks 2, 2 and 5 for A.
        let ranks = RankSumTest.rankSum([1, 1, 2], [1, 2, 2])
        #expect(ranks.rankSumA == 9 && ranks.tieTerm == 48)
        // Fewer than the minimum on a side: not tested, whatever the difference.
        let small = RankSumTest(Array(1...7), Array(100...200))
        #expect(!small.tested && !small.significant && small.pValue == nil)
    }

    @Test func countChangesAreSignificantAndPerInteraction() throws {
        // Two taps re-running 12 rows each against four taps re-running one row each.
        var a = Recording(name: "shared model"), b = Recording(name: "per-row models")
        for _ in 0..<2 { a.updates("ItemRow", spread(12, from: 200_000, step: 10_000), label: "Tap Gesture", cause: "@Observable Store.items", property: "items") }
        for _ in 0..<4 { b.updates("ItemRow", [250_000], label: "Tap Gesture", cause: "@Observable ItemModel", property: "isOn") }
        let comparison = TraceComparison(before: try a.trace(), after: try b.trace())
        let aTrace = try a.trace(), bTrace = try b.trace()
        #expect(comparison.interactions == [InteractionCount(
            label: "Tap Gesture", a: 2, b: 4, firstA: aTrace.updateGroups.start[0], firstB: bTrace.updateGroups.start[0]
        )])
        let item = try row(comparison, "ItemRow")
        #expect(item.a.count == 24 && item.b.count == 4 && item.change == .improved && item.significant)
        #expect(!item.durations.tested)
        #expect(item.perInteraction == [InteractionRate(label: "Tap Gesture", a: 12, b: 1)])
        let causes = comparison.causes
        #expect(causes.count == 2)
        let gone = try #require(causes.first { $0.source == "@Observable Store.items" })
        #expect(gone.change == .disappeared && gone.target == "ItemRow.body" && gone.property == "items")
        #expect(gone.a?.fanOut == "×12" && gone.a?.events == 2 && gone.a?.updates == 24 && gone.updatesDelta == -24)
        let new = try #require(causes.first { $0.source == "@Observable ItemModel" })
        #expect(new.change == .appeared && new.b?.fanOut == "×1" && new.b?.events == 4)
        // Long tables are cut, saying how long they were.
        let short = TraceComparison(try a.trace().comparisonSide(), try b.trace().comparisonSide(), causeLimit: 1, functionLimit: 0)
        #expect(short.causes.map(\.source) == ["@Observable Store.items"] && short.causesTotal == 2 && short.functions.isEmpty)
    }

    @Test func fanOutChangeIsReportedForTheSameEdge() throws {
        var a = Recording(name: "a"), b = Recording(name: "b")
        a.updates("Cell", [100_000, 100_000, 100_000], cause: "@State selection")
        b.updates("Cell", [100_000], cause: "@State selection")
        let causes = TraceComparison(before: try a.trace(), after: try b.trace()).causes
        #expect(causes.map(\.change) == [.changed])
        #expect(causes[0].a?.fanOut == "×3" && causes[0].b?.fanOut == "×1")
    }

    @Test func causesMatchByNameWhateverOrderEachTraceInternedThem() throws {
        var a = Recording(name: "a"), b = Recording(name: "b")
        // B interns a name A never had first, and A's names in the other order.
        b.updates("Unrelated", [100_000], cause: "@State other")
        b.updates("Cell", [100_000, 100_000], cause: "@State selection", property: "id")
        b.updates("Header", [100_000], cause: "@Observable Store", property: "title")
        a.updates("Header", [100_000], cause: "@Observable Store", property: "title")
        a.updates("Cell", [100_000, 100_000, 100_000], cause: "@State selection", property: "id")
        let comparison = TraceComparison(before: try a.trace(), after: try b.trace())
        // Changed rows first; equal changes (one update each) by name; the unchanged row last.
        #expect(comparison.causes.map(\.source) == ["@State other", "@State selection", "@Observable Store"])
        #expect(comparison.causes.map(\.change) == [.appeared, .changed, .unchanged])
        #expect(comparison.causes.map(\.target) == ["Unrelated.body", "Cell.body", "Header.body"])
        #expect(comparison.causes[1].a?.fanOut == "×3" && comparison.causes[1].b?.fanOut == "×2" && comparison.causes[1].property == "id")
        #expect(comparison.causesTotal == 3)
    }

    @Test func cpuCyclesAgainstCPUTimeIsSaidToDiffer() throws {
        // A CPU Profiler recording (cycles) against a Time Profiler one (ns): their CPU columns do not subtract.
        var timed = Recording(name: "render-time", app: "Sketchbook")
        timed.samples("Brush.stroke", binary: "Sketchbook", milliseconds: 3)
        var cycles = Recording(name: "render-cycles", app: "Sketchbook")
        cycles.builder.metadata.cpuWeightUnit = .cycles
        cycles.samples("Brush.stroke", binary: "Sketchbook", milliseconds: 3)
        #expect(TraceComparison(before: try timed.trace(), after: try cycles.trace()).differences == ["CPU weights: CPU time vs CPU cycles"])
        #expect(TraceComparison(before: try timed.trace(), after: try timed.trace()).differences.isEmpty)
    }

    @Test func otherAppsAndShapesCompareByModuleViewAndCategory() throws {
        // A photo editor, not Landmarks: two modules share a view name, one view has two categories.
        var a = Recording(name: "editor-1", app: "PhotoEditor", device: "iPad Pro", os: "iPadOS 18.0")
        var b = Recording(name: "editor-2", app: "PhotoEditor", device: "iPhone 15", os: "iOS 18.1")
        for recording in [0, 1] {
            let scale: Nanoseconds = recording == 0 ? 1 : 3
            var r = recording == 0 ? a : b
            r.updates("Canvas", module: "PhotoEditor", spread(9, from: 100_000 * scale, step: 1_000))
            r.updates("Canvas", module: "EditorKit", spread(9, from: 100_000, step: 1_000))
            r.updates("Canvas", module: "PhotoEditor", category: "Layout", kind: .layout, spread(9, from: 80_000, step: 1_000))
            r.samples("FilterChain.apply", binary: "PhotoEditor", milliseconds: 4 * Int(scale))
            r.samples("vImageConvolve", binary: "Accelerate", milliseconds: 2)
            if recording == 0 { a = r } else { b = r }
        }
        let comparison = TraceComparison(before: try a.trace(), after: try b.trace())
        #expect(comparison.differences == ["device: iPad Pro vs iPhone 15", "OS: iPadOS 18.0 vs iOS 18.1"])
        #expect(comparison.views.count == 3)
        let first = comparison.views[0]
        #expect(first.module == "PhotoEditor" && first.category == "View Body" && first.isAppCode && first.durations.direction == "slower")
        #expect(comparison.views.dropFirst().allSatisfy { !$0.significant })
        #expect(comparison.functions.map(\.name) == ["FilterChain.apply"])
        #expect(comparison.functions[0].deltaNs == 8_000_000 && comparison.functions[0].isAppCode)
        #expect(comparison.totals.first { $0.name == "cpu" }?.countDelta == 8)
    }

    @Test func perSideRangesRestrictEachTrace() throws {
        var recording = Recording(name: "two halves")
        recording.updates("Row", spread(10, from: 100_000, step: 1_000))
        let middle = recording.time
        recording.updates("Row", spread(10, from: 2_000_000, step: 1_000))
        let trace = try recording.trace()
        let early = TimeRange(start: 0, end: middle), late = TimeRange(start: middle, end: trace.metadata.end)
        let comparison = TraceComparison(before: trace, after: trace, beforeRange: early, afterRange: late)
        #expect(comparison.a.start == 0 && comparison.a.end == middle && comparison.a.updates == 10 && comparison.b.updates == 10)
        let row = try row(comparison, "Row")
        #expect(row.a.maxNs == 109_000 && row.b.red == 10 && row.significant && row.durations.direction == "slower")
    }

    @Test func hitchesAndHangsAreCountedAndTotalled() throws {
        var a = Recording(name: "a"), b = Recording(name: "b")
        a.builder.addHitch(TimelineInterval(start: 1_000_000, duration: 16_000_000, kind: "Hitch", detail: ""))
        a.builder.addHitch(TimelineInterval(start: 30_000_000, duration: 8_000_000, kind: "Hitch", detail: ""))
        a.builder.addHang(TimelineInterval(start: 50_000_000, duration: 300_000_000, kind: "Hang", detail: ""))
        b.builder.addHitch(TimelineInterval(start: 1_000_000, duration: 8_000_000, kind: "Hitch", detail: ""))
        let totals = TraceComparison(before: try a.trace(), after: try b.trace()).totals
        let hitches = try #require(totals.first { $0.name == "hitches" }), hangs = try #require(totals.first { $0.name == "hangs" })
        #expect(hitches.a == ComparedTotal(count: 2, totalNs: 24_000_000) && hitches.countDelta == -1 && hitches.totalNsDelta == -16_000_000)
        #expect(hangs.a.count == 1 && hangs.b.count == 0)
    }
}
