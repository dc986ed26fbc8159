import Testing
import TraceModel
import TraceSamples

/// Comparing a trace that blocks the Main Actor with its fix: the main-actor rows show the time
/// going away, and views drawn once a frame are not regressions because more frames were drawn.
@Suite struct ConcurrencyComparisonTests {
    static let slow = SampleTraces.trace(named: "landmarks-concurrency-slow")
    static let fixed = SampleTraces.trace(named: "landmarks-concurrency-fixed")

    @Test func slowToFixedShowsTheMainActorFreedAndNoRegression() throws {
        let comparison = TraceComparison(before: Self.slow, after: Self.fixed)
        #expect((comparison.frames.a, comparison.frames.b) == (58, 72))
        #expect(comparison.frames.changeText == "more frames drawn: +14" && comparison.frames.change == .improved)

        let busy = try #require(comparison.mainActor.first { $0.name == "main-actor-busy" })
        #expect(busy.a > 120_000_000 && busy.b < 2_000_000 && busy.change == .improved && busy.changeText == "better")
        let longest = try #require(comparison.mainActor.first { $0.name == "main-actor-longest-wait" })
        #expect(longest.a > 120_000_000 && longest.b < 1_000_000 && longest.changeText == "better")
        #expect(comparison.mainActor.map(\.name) == ["main-actor-busy", "main-actor-waiting", "main-actor-longest-wait"])

        // Per resume function and actor: the decoding leaves the Main Actor for the global executor.
        let onMain = try #require(comparison.tasks.first { $0.function == "LandmarkImageLoader.loadImages(for:)" && $0.actor == "Main Actor" })
        #expect(onMain.a.running == 120_000_000 && onMain.b.running == 140_000 && onMain.changeText == "better")
        let moved = try #require(comparison.tasks.first { $0.actor == "Global Concurrent Executor" })
        #expect(moved.change == .appeared && moved.b.running == 120_000_000)
        let map = try #require(comparison.tasks.first { $0.function == "MapView.updateRegion()" })
        #expect(map.a.longestWait > 120_000_000 && map.b.longestWait < 1_000_000)
        #expect(comparison.tasks.first?.function == "MapView.updateRegion()", "the largest change of main-actor time first")

        // NavigationStack draws once a frame: 57 → 71 updates because 14 more frames were drawn.
        let stack = try #require(comparison.views.first { $0.view == "NavigationStack" })
        #expect((stack.a.count, stack.b.count) == (57, 71))
        #expect(stack.change == .followsFrames && !stack.significant)
        #expect(stack.changeText == "more frames drawn: +14" && stack.countChange == .followsFrames && stack.countText == stack.changeText)
        #expect(stack.perFrame.a.map { $0 > 0.95 } == true && stack.perFrame.b.map { $0 > 0.95 } == true)
        #expect(!comparison.views.contains { $0.change == .regressed }, "nothing regressed anywhere")
        // ...and `tracesvc check --baseline` does not fail on it.
        #expect(Self.fixed.baselineResults(against: Self.slow, tolerance: BaselineTolerance()).allSatisfy { $0.passed })
    }

    @Test func aViewThatRunsMoreOftenPerFrameStillRegresses() throws {
        // Harbor's ScrollView follows its frames; a view whose count grows faster than the frames does not.
        let before = OtherAppTraces.harbor(), after = OtherAppTraces.harbor(decodeOnMainActor: false)
        let comparison = TraceComparison(before: before, after: after)
        #expect(comparison.frames.b > comparison.frames.a)
        let scroll = try #require(comparison.views.first { $0.view == "ScrollView" })
        #expect(scroll.change == .followsFrames && scroll.changeText == "more frames drawn: +\(comparison.frames.delta)")
        #expect(comparison.mainActor[0].changeText == "better")
        #expect(comparison.tasks.contains { $0.function == "MessageStore.decodeHistory()" && $0.actor == "Global Concurrent Executor" && $0.change == .appeared })
        #expect(comparison.tasks.contains { $0.function == "AttachmentStore.prefetch(_:)" && $0.actor == "AttachmentStore" && $0.change == .unchanged })

        let twice = try rows(perFrame: 2, frames: 40), once = try rows(perFrame: 1, frames: 30)
        let grown = try #require(TraceComparison(before: once, after: twice).views.first { $0.view == "FeedRow" })
        #expect(grown.change == .regressed && grown.countChange == .more && grown.changeText == "more bodies", "2 per frame against 1 per frame")
        #expect(grown.speedChange == .same, "each body takes as long: the count is the regression, not the speed")
    }

    /// `frames` frames at 60 Hz, each with `perFrame` FeedRow bodies of 200 µs in one update group.
    private func rows(perFrame: Int, frames: Int) throws -> Trace {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "feed", app: "Feed", refreshRate: 60, sourceFormat: "test"))
        let module = builder.intern("Feed"), view = builder.intern("FeedRow"), label = builder.intern("Frame Update")
        for frame in 0..<frames {
            let start = Nanoseconds(frame) * 16_666_667
            let group = builder.addUpdateGroup(start: start, duration: Nanoseconds(perFrame) * 250_000, label: label, thread: noRow)
            for row in 0..<perFrame {
                _ = builder.addUpdate(
                    start: start + Nanoseconds(row) * 250_000, duration: 200_000, kind: .viewBody, sourceSeverity: .none, module: module,
                    viewName: view, description: 0, category: 0, allocations: 0, thread: noRow, group: group
                )
            }
        }
        return try builder.build()
    }

    @Test func framesAreGroupsAtLeastHalfARefreshApart() throws {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "frames", refreshRate: 120, sourceFormat: "test"))
        let label = builder.intern("Transaction")
        // 120 Hz: 8.33 ms frames. Two groups 1 ms apart are one frame; 5 ms later another.
        for start: Nanoseconds in [0, 1_000_000, 6_000_000, 14_000_000, 14_500_000, 30_000_000] {
            _ = builder.addUpdateGroup(start: start, duration: 200_000, label: label, thread: noRow)
        }
        let trace = try builder.build()
        #expect(trace.framesDrawn() == 4)
        #expect(trace.framesDrawn(in: TimeRange(start: 5_000_000, end: 20_000_000)) == 2)
    }
}
