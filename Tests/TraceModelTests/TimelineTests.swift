import Testing
@testable import TraceModel

@Suite struct TimelineTests {
    /// Updates at given (start, duration) on the view-body lane, one view name per update.
    private func trace(updates: [(Nanoseconds, Nanoseconds)], end: Nanoseconds) throws -> Trace {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "t", start: 0, end: end, sourceFormat: "test"))
        let module = builder.intern("App")
        for (index, (start, duration)) in updates.enumerated() {
            builder.addUpdate(start: start, duration: duration, kind: .viewBody, module: module, viewName: builder.intern("View\(index)"))
        }
        return try builder.build()
    }

    @Test func separateEventsKeepTheirIdentity() throws {
        let trace = try trace(updates: [(1_000, 100), (100_000, 1_500_000), (2_000_000, 600_000)], end: 10_000_000)
        let timeline = trace.timeline(window: TimeRange(start: 0, end: 10_000_000), width: 1000, lanes: [.viewBody, .longViewBody], index: TimelineIndex())
        let events = try #require(timeline.lanes["view-body"]?.events)
        #expect(events.map(\.count) == [1, 1, 1])
        #expect(events.map(\.update) == [0, 1, 2])
        #expect(events.map(\.label) == ["View0", "View1", "View2"])
        #expect(events.map(\.severity) == [.normal, .red, .orange])
        #expect(events.allSatisfy { $0.kind == "view-body" })
        #expect(timeline.lanes["view-body"]?.merged == false)
        #expect(timeline.lanes["long-view-body"]?.events.map(\.update) == [1, 2])
    }

    @Test func subPixelEventsInOneColumnMergeWithWorstSeverityAndCount() throws {
        // 10 us columns (1 ms window, 100 px): three updates inside the first column merge.
        let trace = try trace(updates: [(100, 1_000), (3_000, 2_000), (6_000, 3_000), (50_000, 1_000)], end: 1_000_000)
        let timeline = trace.timeline(window: TimeRange(start: 0, end: 1_000_000), width: 100, lanes: [.viewBody], index: TimelineIndex())
        let lane = try #require(timeline.lanes["view-body"])
        #expect(lane.merged)
        #expect(lane.events.count == 2)
        #expect(lane.events[0].count == 3)
        #expect(lane.events[0].start == 100 && lane.events[0].duration == 9_000 - 100)
        #expect(lane.events[0].update == nil && lane.events[0].label == nil)
        #expect(lane.events[1].count == 1 && lane.events[1].update == 3)
    }

    @Test func mergedSeverityIsTheWorstMember() throws {
        // The long update is merged with tiny neighbours in the same column at whole-trace zoom.
        let trace = try trace(updates: [(0, 10), (20, 1_200_000), (1_200_100, 10)], end: 1_000_000_000)
        let timeline = trace.timeline(window: TimeRange(start: 0, end: 1_000_000_000), width: 100, lanes: [.viewBody], index: TimelineIndex())
        let event = try #require(timeline.lanes["view-body"]?.events.first)
        #expect(event.count == 3 && event.severity == .red)
    }

    @Test func eventsStartingBeforeTheWindowAreIncludedWhenTheyOverlapIt() throws {
        let trace = try trace(updates: [(0, 5_000_000), (100, 10), (4_000_000, 2_000_000)], end: 10_000_000)
        let timeline = trace.timeline(window: TimeRange(start: 4_500_000, end: 5_500_000), width: 10, lanes: [.viewBody], index: TimelineIndex())
        let events = try #require(timeline.lanes["view-body"]?.events)
        // (100, 10) ended long before the window and must not be counted.
        #expect(events.reduce(0) { $0 + $1.count } == 2)
    }

    @Test func responseIsBoundedByWidthAndMatchesTheFullScan() throws {
        var random = SplitMix64(seed: 42)
        var updates: [(Nanoseconds, Nanoseconds)] = []
        var time: Nanoseconds = 0
        for _ in 0..<20_000 {
            time += Nanoseconds(random.next() % 40_000)
            // Mostly short, sometimes long updates, so lanes have both merges and lone events.
            let duration = random.next() % 50 == 0 ? Nanoseconds(random.next() % 5_000_000) : Nanoseconds(random.next() % 300_000)
            updates.append((time, duration))
        }
        let trace = try trace(updates: updates, end: time + 10_000_000)
        let index = TimelineIndex()
        let lanes: [Lane] = [.viewBody, .longViewBody]
        for _ in 0..<200 {
            let a = Nanoseconds(random.next() % UInt64(time)), b = Nanoseconds(random.next() % UInt64(time))
            guard a != b else { continue }
            let window = TimeRange(start: min(a, b), end: max(a, b))
            let width = Int(random.next() % 2000) + 1
            let fast = trace.timeline(window: window, width: width, lanes: lanes, index: index)
            let slow = trace.timelineByFullScan(window: window, width: width, lanes: lanes)
            #expect(fast == slow, "window \(window) width \(width)")
            for lane in fast.lanes.values { #expect(lane.events.count <= width + 1) }
        }
        let whole = trace.timeline(window: TimeRange(start: 0, end: time + 1), width: 1920, lanes: [.viewBody], index: index)
        #expect(whole.lanes["view-body"]!.events.reduce(0) { $0 + $1.count } == 20_000)
    }

    @Test func groupsHitchesAndHangsCarryTheirLabels() throws {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "t", start: 0, end: 100_000_000, sourceFormat: "test"))
        builder.addUpdateGroup(start: 1_000_000, duration: 2_000_000, label: builder.intern("Transaction"))
        builder.addHitch(TimelineInterval(start: 10_000_000, duration: 8_000_000, kind: "Hitch", detail: ""))
        builder.addHang(TimelineInterval(start: 50_000_000, duration: 30_000_000, kind: "Microhang", detail: ""))
        let trace = try builder.build()
        let timeline = trace.timeline(window: TimeRange(start: 0, end: 100_000_000), width: 500, lanes: [.updateGroups, .hitches, .hangs], index: TimelineIndex())
        #expect(timeline.lanes["update-groups"]?.events.map(\.label) == ["Transaction"])
        #expect(timeline.lanes["hitches"]?.events.map(\.label) == ["Hitch"])
        #expect(timeline.lanes["hangs"]?.events.map(\.severity) == [.red])
        #expect(timeline.lanes["hangs"]?.events.first?.update == nil)
    }

    @Test func cpuLaneReportsLoadPerColumn() throws {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "t", start: 0, end: 10_000_000, sourceFormat: "test"))
        let process = builder.addProcess(TraceProcess(pid: 1, name: "App"))
        let main = builder.addThread(TraceThread(tid: 1, name: "Main", process: process, isMain: true))
        let worker = builder.addThread(TraceThread(tid: 2, name: "Worker", process: process, isMain: false))
        let frame = builder.addFrame(name: builder.intern("f"), binary: builder.intern("App"), isAppCode: true)
        let stack = builder.addStack(parent: noRow, frame: frame)
        // First 5 ms: main thread busy every ms; last 5 ms: worker at half the time.
        for ms in 0..<5 { builder.addSample(time: Nanoseconds(ms) * 1_000_000, thread: main, weight: 1_000_000, stack: stack) }
        for ms in 5..<10 { builder.addSample(time: Nanoseconds(ms) * 1_000_000, thread: worker, weight: 500_000, stack: stack) }
        let trace = try builder.build()
        let timeline = trace.timeline(window: TimeRange(start: 0, end: 10_000_000), width: 2, lanes: [.cpu], index: TimelineIndex())
        let events = try #require(timeline.lanes["cpu"]?.events)
        #expect(events.count == 2)
        #expect(events[0].load == 1 && events[0].mainLoad == 1)
        #expect(events[1].load == 0.5 && events[1].mainLoad == 0)
    }
}

/// Deterministic random numbers for generated test traces.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct TimelineJSONTests {
    @Test func jsonIsValidAndEscapesLabels() throws {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "t", start: 0, end: 10_000_000, sourceFormat: "test"))
        builder.addUpdate(start: 1_000, duration: 600_000, kind: .viewBody, module: builder.intern("App"), viewName: builder.intern("Quote\"Back\\slash\nTab\t✓"))
        let trace = try builder.build()
        let json = String(decoding: trace.timeline(window: TimeRange(start: 0, end: 10_000_000), width: 100, lanes: [.viewBody, .cpu], index: TimelineIndex()).json(), as: UTF8.self)
        #expect(json == #"{"start":0,"end":10000000,"width":100,"lanes":{"cpu":{"merged":false,"events":[]},"view-body":{"merged":false,"events":[{"start":1000,"duration":600000,"count":1,"severity":"orange","update":0,"label":"Quote\"Back\\slash\u000aTab\u0009✓","kind":"view-body"}]}}}"#)
    }
}

@Suite struct EventPyramidTests {
    /// The time-bucket shortcut of `lowerBound` gives the answer of a plain binary search, for
    /// clustered and spread-out starts, any sub-range, and times before, inside and past the lane.
    @Test func lowerBoundMatchesABinarySearch() throws {
        var random = SplitMix64(seed: 7)
        for shape in 0..<3 {
            var builder = TraceBuilder(metadata: TraceMetadata(name: "p", start: 0, end: 1 << 40, sourceFormat: "test"))
            let module = builder.intern("Shop")
            var time: Nanoseconds = shape == 2 ? 123_456_789 : 0
            for index in 0..<3_000 {
                // Shape 0: even gaps; 1: bursts of equal starts and long pauses; 2: a late first start, uneven gaps.
                let gap: Nanoseconds = switch shape {
                case 1: index % 100 == 0 ? 1 << 32 : Nanoseconds(random.next() % 2)
                case 2: Nanoseconds(random.next() % (index % 2 == 0 ? 90 : 90_000))
                default: Nanoseconds(random.next() % 9_000)
                }
                time += gap
                builder.addUpdate(start: time, duration: 100, kind: .viewBody, module: module, viewName: builder.intern("Cart\(index % 7)"))
            }
            let trace = try builder.build()
            let pyramid = EventPyramid(try #require(LaneSeries(trace, .fixed(.viewBody))))
            #expect(!pyramid.firstOfBucket.isEmpty)
            let starts = pyramid.starts
            for _ in 0..<400 {
                let pick = Int(random.next() % UInt64(starts.count))
                let times = [starts[pick], starts[pick] - 1, starts[pick] + 1, .min, .max, starts[0] - 1, starts[starts.count - 1] + 1]
                let a = Int(random.next() % UInt64(starts.count + 1)), b = Int(random.next() % UInt64(starts.count + 1))
                for time in times {
                    let (from, to) = (min(a, b), max(a, b))
                    let expected = (from..<to).first { starts[$0] >= time } ?? to
                    #expect(pyramid.lowerBound(startAtLeast: time, from: from, to: to) == expected, "shape \(shape) time \(time) in \(from)..<\(to)")
                }
            }
        }
    }
}
