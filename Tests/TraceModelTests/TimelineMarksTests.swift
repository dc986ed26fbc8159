import Testing
@testable import TraceModel

/// What a merged timeline mark tells and how the timeline search finds things, on traces of an
/// app other than the samples ("Harbor", a ferry timetable).
@Suite struct TimelineMarksTests {
    private let window = TimeRange(start: 0, end: 1_000_000_000)

    @Test func aRedMarkMergingOrangeUpdatesSaysSoInBothWireFormats() throws {
        // At 100 px over 1 s a column is 10 ms: an orange (700 µs) and a red (1.5 ms) update share one.
        var builder = TraceBuilder(metadata: TraceMetadata(name: "harbor", app: "Harbor", start: 0, end: 1_000_000_000, sourceFormat: "test"))
        let module = builder.intern("Harbor")
        builder.addUpdate(start: 100_000_000, duration: 700_000, kind: .viewBody, module: module, viewName: builder.intern("DepartureRow"))
        builder.addUpdate(start: 101_000_000, duration: 1_500_000, kind: .viewBody, module: module, viewName: builder.intern("DepartureRow"))
        builder.addUpdate(start: 500_000_000, duration: 1_500_000, kind: .viewBody, module: module, viewName: builder.intern("Timetable"))
        builder.addUpdate(start: 500_100_000, duration: 1_200_000, kind: .viewBody, module: module, viewName: builder.intern("Timetable"))
        let trace = try builder.build()
        let timeline = trace.timeline(window: window, width: 100, lanes: [.longViewBody], index: TimelineIndex())
        let events = try #require(timeline.lanes["long-view-body"]?.events)
        #expect(events.map(\.count) == [2, 2])
        #expect(events.map(\.severity) == [.red, .red])
        #expect(events.map(\.alsoOrange) == [true, false], "only the mark that holds an orange update")
        #expect(String(decoding: timeline.json(), as: UTF8.self).components(separatedBy: "\"alsoOrange\":true").count == 2)
        #expect(trace.timelineByFullScan(window: window, width: 100, lanes: [.longViewBody]) == timeline)
        // The binary answer's code column carries the same bit (32).
        let binary = trace.timelineBinary(window: window, width: 100, laneIDs: [.fixed(.longViewBody)], index: TimelineIndex())
        #expect(binary == timeline.binary())
    }

    @Test func aLongMainActorRunStaysOneMarkBesideTheShortOnes() throws {
        // At 200 ms over 1000 px (0.2 ms columns): a 95 µs run, then a 120 ms run starting in its
        // column, then two short runs right after it: "1 + 1 + 2", never "4 intervals".
        var builder = TraceBuilder(metadata: TraceMetadata(name: "harbor", app: "Harbor", start: 0, end: 2_000_000_000, sourceFormat: "test"))
        let task = builder.addTask(taskID: 7)
        for (start, duration) in [(1_000_640_000, 95_000), (1_000_770_000, 120_000_000), (1_120_770_000, 780_000), (1_121_565_000, 310_000)] as [(Nanoseconds, Nanoseconds)] {
            var run = SwiftTaskStateRow(start: start, duration: duration, task: task, state: .running)
            run.isMainActor = true
            builder.addTaskState(run)
        }
        let trace = try builder.build()
        let zoomed = TimeRange(start: 900_000_000, end: 1_150_000_000)
        let events = try #require(trace.timeline(window: zoomed, width: 1000, lanes: [.mainActor], index: TimelineIndex()).lanes["main-actor"]?.events)
        let long = try #require(events.first { $0.duration >= 120_000_000 })
        #expect(long.count == 1 && long.taskState != nil, "the 120 ms run is its own mark, with its row")
        #expect(events.reduce(0) { $0 + $1.count } == 4)
        #expect(trace.timelineByFullScan(window: zoomed, width: 1000, lanes: [.mainActor]).lanes["main-actor"]?.events == events)
    }

    private func harbor() throws -> Trace {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "harbor", app: "Harbor", start: 0, end: 1_000_000_000, sourceFormat: "test"))
        let module = builder.intern("Harbor")
        for (index, start) in stride(from: 100_000_000, to: 900_000_000, by: 100_000_000).enumerated() {
            builder.addUpdate(start: Nanoseconds(start), duration: index == 3 ? 3_000_000 : 200_000, kind: .viewBody, module: module,
                              viewName: builder.intern(index.isMultiple(of: 2) ? "DepartureRow" : "FerryMap"))
        }
        var signpost = SignpostRow(start: 450_000_000, duration: 20_000_000, kind: .interval, name: builder.intern("Load Departures"))
        signpost.subsystem = builder.intern("com.example.harbor")
        signpost.category = builder.intern("PointsOfInterest")
        builder.addSignpost(signpost)
        return try builder.build()
    }

    @Test func searchFindsViewsAndSignpostsIgnoringCaseAndDrawsThemOnTheirLanes() throws {
        let trace = try harbor()
        let rows = trace.matches(try #require(TimelineSearchQuery("departure")))
        #expect(rows.updates.count == 4 && rows.signposts.count == 1)
        let marks = trace.searchMarks(rows, window: window, width: 1000)
        #expect(marks.count == 5 && marks.inWindow == 5)
        #expect(marks.lanes["view-body"]?.count == 8, "four spans on the SwiftUI track's lane")
        #expect(marks.lanes["signposts-0"] == [450_000_000, 470_000_000])
        // A long match is also drawn on the long lane.
        let map = trace.matches(try #require(TimelineSearchQuery("FerryMap")))
        #expect(trace.searchMarks(map, window: window, width: 1000).lanes["long-view-body"] == [400_000_000, 403_000_000])
        #expect(TimelineSearchQuery("   ") == nil)
    }

    @Test func searchByDurationUsesTheOneDurationSyntax() throws {
        let trace = try harbor()
        let query = try #require(TimelineSearchQuery("> 1 ms"))
        #expect(query.longerThan == 1_000_000)
        let rows = trace.matches(query)
        #expect(rows.updates.count == 1 && rows.signposts.count == 1)
    }

    @Test func steppingVisitsMatchesInTimeOrderAndSaysWhichOfHowMany() throws {
        let trace = try harbor()
        let rows = trace.matches(try #require(TimelineSearchQuery("departure")))
        let first = trace.searchStep(rows, forward: true, after: nil, at: 0)
        #expect(first.match?.kind == "update" && first.index == 1 && first.count == 5)
        let second = trace.searchStep(rows, forward: true, after: ("update", try #require(first.match?.id)), at: 0)
        #expect(second.index == 2 && (second.match?.start ?? 0) > (first.match?.start ?? 0))
        // The signpost at 450 ms sits between the update at 300 ms and the one at 500 ms.
        let fromMiddle = trace.searchStep(rows, forward: true, after: nil, at: 400_000_000)
        #expect(fromMiddle.match?.kind == "signpost" && fromMiddle.index == 3)
        let back = trace.searchStep(rows, forward: false, after: ("signpost", try #require(fromMiddle.match?.id)), at: 0)
        #expect(back.index == 2)
        #expect(trace.searchStep(rows, forward: true, after: nil, at: 950_000_000).match == nil)
    }

    @Test(arguments: [("1s", 1_000_000_000), ("1 s", 1_000_000_000), ("250 ms", 250_000_000), ("500 µs", 500_000), ("500us", 500_000), ("1200000000", 1_200_000_000)] as [(String, Nanoseconds)])
    func durationsParseInOneSyntax(_ text: String, _ expected: Nanoseconds) {
        #expect(DurationText.parse(text) == expected)
    }

    @Test(arguments: ["", "s", "1 min", "1,5 s", "-1 s", "1e3 s", "1.5", " 1 s"])
    func notDurations(_ text: String) {
        #expect(DurationText.parse(text) == nil)
    }
}
