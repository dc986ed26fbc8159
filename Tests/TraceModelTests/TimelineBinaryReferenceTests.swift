import Testing
@testable import TraceModel
import TraceSamples

/// The timeline query, on every lane of synthetic and sample traces, answers what a full scan
/// does; and the binary timeline the server sends the browser is written straight from the query's
/// groups; it must be the same bytes as encoding the query's events (`Timeline.binary()`),
/// which the browser's decoder is tested against, for any trace, window, width and lanes.
@Suite struct TimelineBinaryReferenceTests {
    @Test func sameBytesAsEncodingTheEventsOnSyntheticAndSampleTraces() throws {
        var random = SeededRandom(seed: 18)
        let traces = [SyntheticTraces.trace(updates: 20_000, seed: 5)] + SampleTraces.names.map(SampleTraces.trace(named:))
        for trace in traces {
            let index = TimelineIndex()
            let meta = trace.metadata
            let span = UInt64(max(1, meta.duration))
            for attempt in 0..<60 {
                let window: TimeRange
                if attempt == 0 {
                    window = TimeRange(start: meta.start, end: meta.end)
                } else {
                    let a = meta.start + Nanoseconds(random.next() % span), b = meta.start + Nanoseconds(random.next() % span)
                    guard a != b else { continue }
                    window = TimeRange(start: min(a, b), end: max(a, b))
                }
                let width = attempt == 0 ? 1920 : Int(random.next() % 3000) + 1
                // Any subset of lanes, in any order, sometimes with a lane twice.
                var lanes = trace.allTimelineLanes.filter { _ in random.next() % 3 != 0 }
                if attempt % 4 == 0, let first = lanes.first { lanes.append(first) }
                lanes.reverse()
                let events = trace.timeline(window: window, width: width, laneIDs: lanes, index: index)
                // The pyramid's shortcuts (time buckets, prefix max ends) agree with looking at every event.
                #expect(events == trace.timelineByFullScan(window: window, width: width, laneIDs: lanes), "\(meta.name) window \(window) width \(width)")
                let expected = events.binary()
                let binary = trace.timelineBinary(window: window, width: width, laneIDs: lanes, index: index)
                #expect(binary == expected, "\(meta.name) window \(window) width \(width) lanes \(lanes)")
            }
        }
    }

    @Test func labelsAreSharedByTextAcrossEventsOfALane() throws {
        // Two update groups with the same label text and one with another: two labels, in order.
        var builder = TraceBuilder(metadata: TraceMetadata(name: "labels", start: 0, end: 100_000_000, sourceFormat: "test"))
        builder.addUpdateGroup(start: 1_000_000, duration: 1_000_000, label: builder.intern("Checkout.Commit"))
        builder.addUpdateGroup(start: 40_000_000, duration: 1_000_000, label: builder.intern("Cart « Refresh »"))
        builder.addUpdateGroup(start: 80_000_000, duration: 1_000_000, label: builder.intern("Checkout.Commit"))
        let trace = try builder.build()
        let window = TimeRange(start: 0, end: 100_000_000)
        let binary = trace.timelineBinary(window: window, width: 1000, lanes: [.updateGroups], index: TimelineIndex())
        #expect(binary == trace.timeline(window: window, width: 1000, lanes: [.updateGroups], index: TimelineIndex()).binary())
        let text = String(decoding: binary, as: UTF8.self)
        #expect(text.components(separatedBy: "Checkout.Commit").count == 2)
        #expect(text.contains("Cart « Refresh »"))
    }

    @Test func mainActorLanesSayTheirRowsAreTaskStates() throws {
        let trace = try #require(SampleTraces.names.map(SampleTraces.trace(named:)).first { !$0.indexes.mainActorRuns.isEmpty })
        let window = TimeRange(start: trace.metadata.start, end: trace.metadata.end)
        let binary = trace.timelineBinary(window: window, width: 100_000, lanes: [.mainActor, .viewBody], index: TimelineIndex())
        // Lanes are sorted by id: "main-actor" comes first, right after the 28-byte header.
        let id = Array("main-actor".utf8)
        #expect(Array(binary[28..<(29 + id.count)]) == [UInt8(id.count)] + id)
        let flags = binary[29 + id.count]
        #expect(flags & Timeline.taskStateRowsFlag != 0, "flags \(flags)")
        let events = trace.timeline(window: window, width: 100_000, lanes: [.mainActor], index: TimelineIndex())
        #expect(events.lanes["main-actor"]?.events.contains { $0.taskState != nil } == true)
    }
}
