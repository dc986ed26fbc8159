import Testing
@testable import TraceModel
import TraceSamples

/// `Trace.laneCounts`: what each lane holds, in the colours the timeline draws (the trace info's
/// lanes and `inspect`'s both read it).
@Suite struct LaneCountsTests {
    /// A podcast player (not Landmarks): updates of every length, a hitch, a hang, Main Actor work
    /// and waits, two overlapping downloads (a stack of two signpost rows), CPU samples.
    static func podcasts() throws -> Trace {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "podcasts", app: "Podcasts", start: 0, end: 1_000_000_000, sourceFormat: "test"))
        let module = builder.intern("Podcasts")
        for (start, duration) in [(1_000_000, 100_000), (2_000_000, 700_000), (3_000_000, 2_000_000), (600_000_000, 1_500_000)] as [(Nanoseconds, Nanoseconds)] {
            builder.addUpdate(start: start, duration: duration, kind: .viewBody, module: module, viewName: builder.intern("EpisodeRow"))
        }
        builder.addUpdate(start: 4_000_000, duration: 50_000, kind: .layout, module: module, viewName: builder.intern("PlayerBar"))
        _ = builder.addUpdateGroup(start: 900_000, duration: 5_000_000, label: builder.intern("Tap Gesture"))
        builder.addHitch(TimelineInterval(start: 10_000_000, duration: 300_000, kind: "Hitch", detail: "short"))
        builder.addHang(TimelineInterval(start: 700_000_000, duration: 250_000_000, kind: "Hang", detail: "hang"))
        let task = builder.addTask(taskID: 7, name: builder.intern("refresh()"))
        var run = SwiftTaskStateRow(start: 20_000_000, duration: 2_000_000, task: task, state: .running)
        run.isMainActor = true
        builder.addTaskState(run)
        var wait = SwiftTaskStateRow(start: 30_000_000, duration: 120_000_000, task: task, state: .enqueued)
        wait.isMainActor = true
        builder.addTaskState(wait)
        for episode in 0..<2 {
            var row = SignpostRow(start: Nanoseconds(episode) * 5_000_000, duration: 100_000_000, kind: .interval, name: builder.intern("Download \(episode)"))
            row.subsystem = builder.intern("fm.podcasts")
            row.category = builder.intern("Network")
            builder.addSignpost(row)
        }
        let frame = builder.addFrame(name: builder.intern("main"), binary: builder.intern("Podcasts"), isAppCode: true)
        let stack = builder.addStack(parent: noRow, frame: frame)
        for time in stride(from: Nanoseconds(0), to: 1_000_000_000, by: 100_000_000) { builder.addSample(time: time, thread: noRow, weight: 1_000_000, stack: stack) }
        return try builder.build()
    }

    static func counts(_ lanes: [LaneCount]) -> [String: [Int]] {
        Dictionary(uniqueKeysWithValues: lanes.map { ($0.lane.wireName, [$0.count, $0.orange, $0.red]) })
    }

    @Test func everyLaneOfAnotherAppWholeAndInARange() throws {
        let trace = try Self.podcasts()
        let whole = trace.laneCounts()
        #expect(whole.map(\.lane) == trace.allTimelineLanes)
        #expect(Self.counts(whole) == [
            "update-groups": [1, 0, 0], "long-view-body": [3, 1, 2], "long-representable": [0, 0, 0], "long-other": [0, 0, 0],
            "view-body": [4, 1, 2], "representable": [0, 0, 0], "other": [1, 0, 0],
            "hitches": [1, 1, 0], "hangs": [1, 0, 1], "main-actor": [1, 0, 1], "main-actor-waits": [1, 0, 1], "cpu": [10, 0, 0],
            "signposts-0": [1, 0, 0], "signposts-1": [1, 0, 0],
        ])
        #expect(whole.suffix(2).map(\.title) == ["Network · fm.podcasts", "Network · fm.podcasts"])
        #expect(whole.suffix(2).map(\.level) == [0, 1] && whole.suffix(2).map(\.groupSignposts) == [2, 2])
        #expect(whole.prefix(12).allSatisfy { $0.level == nil && $0.groupSignposts == nil })

        // From 2.5 ms to 15 ms: what overlaps it, including what began before it.
        let early = Self.counts(trace.laneCounts(in: TimeRange(start: 2_500_000, end: 15_000_000)))
        #expect(early["view-body"] == [2, 1, 1] && early["other"] == [1, 0, 0] && early["update-groups"] == [1, 0, 0])
        #expect(early["hitches"] == [1, 1, 0] && early["hangs"] == [0, 0, 0] && early["main-actor"] == [0, 0, 0])
        #expect(early["cpu"] == [0, 0, 0] && early["signposts-0"] == [1, 0, 0] && early["signposts-1"] == [1, 0, 0])
    }

    @Test func aCPUProfilerTraceTitlesItsCPULaneInCycles() throws {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "cycles", start: 0, end: 10, sourceFormat: "test"))
        builder.metadata.cpuWeightUnit = .cycles
        let trace = try builder.build()
        #expect(trace.laneCounts().first { $0.lane == .fixed(.cpu) }?.title == "CPU (cycles)")
    }

    @Test func theCountsAreTheMarksTheTimelineDraws() throws {
        // The events of the whole trace add up to the lane's count, on the samples and other apps.
        for trace in SampleTraces.names.map(SampleTraces.trace(named:)) + [SyntheticTraces.trace(updates: 3_000, seed: 11), try Self.podcasts()] {
            let window = TimeRange(start: trace.metadata.start, end: trace.metadata.end)
            let lanes = trace.allTimelineLanes.filter { $0 != .fixed(.cpu) }
            let timeline = trace.timelineByFullScan(window: window, width: 1920, laneIDs: lanes)
            for counts in trace.laneCounts() where counts.lane != .fixed(.cpu) {
                let events = timeline.lanes[counts.lane.wireName]?.events ?? []
                #expect(events.reduce(0) { $0 + $1.count } == counts.count, "\(trace.metadata.name) \(counts.lane.wireName)")
            }
        }
    }
}
