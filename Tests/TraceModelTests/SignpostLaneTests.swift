import Testing
@testable import TraceModel
import TraceSamples

/// Signpost lanes: a subsystem/category group per lane, overlapping signposts stacked in rows,
/// at most `SignpostLane.maxGroups` groups (traces of other apps, built here, and the samples).
@Suite struct SignpostLaneTests {
    @Test func atMostTwelveGroupsTheRestInOther() throws {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "many", start: 0, end: 1_000_000_000, sourceFormat: "test"))
        // 15 subsystems of an app that is not Landmarks, subsystem k with k + 1 signposts.
        for k in 0..<15 {
            for i in 0...k {
                var row = SignpostRow(start: Nanoseconds(i * 1_000_000 + k), duration: 500_000, kind: .interval, name: builder.intern("Step \(i)"))
                row.subsystem = builder.intern("org.acme.reader.part\(k)")
                row.category = builder.intern("Work")
                builder.addSignpost(row)
            }
        }
        let trace = try builder.build()
        let lanes = trace.indexes.signpostLanes
        #expect(Set(lanes.map(\.title)).count == SignpostLane.maxGroups)
        #expect(lanes.prefix(11).allSatisfy { $0.level == 0 }, "a named group's signposts do not overlap: one row each")
        #expect(lanes.first?.title == "Work · org.acme.reader.part14", "the largest group first")
        // The four smallest groups (1 + 2 + 3 + 4 signposts) share "Other"; their first steps
        // overlap (1 ns apart), so Other stacks in four rows.
        let other = lanes.dropFirst(11)
        #expect(other.map(\.title) == Array(repeating: "Other signposts (4 groups)", count: 4))
        #expect(other.map(\.level) == [0, 1, 2, 3])
        #expect(other.reduce(0) { $0 + $1.rows.count } == 10)
        #expect(lanes.reduce(0) { $0 + $1.rows.count } == trace.signposts.count)
        let otherStarts = try #require(lanes.dropFirst(11).first?.rows.map { trace.signposts.start[Int($0)] })
        #expect(otherStarts == otherStarts.sorted())
        let window = TimeRange(start: 0, end: 20_000_000)
        for width in [1, 7, 3000] {
            let ids = trace.allTimelineLanes
            #expect(trace.timeline(window: window, width: width, laneIDs: ids, index: TimelineIndex()) == trace.timelineByFullScan(window: window, width: width, laneIDs: ids))
        }
        // A lane the trace does not have is not returned, and the wire names parse back.
        #expect(trace.timeline(window: window, width: 10, laneIDs: [.signposts(lanes.count)], index: TimelineIndex()).lanes.isEmpty)
        #expect(TimelineLaneID(wireName: "signposts-47") == .signposts(47))
        #expect(TimelineLaneID(wireName: "signposts-48") == nil && TimelineLaneID(wireName: "signposts-01") == nil)
    }

    @Test func overlappingSignpostsOfAGroupStackInRowsAtMostFour() throws {
        // A podcast app: six downloads of one category, staggered so that up to six run at once,
        // and a parse that starts exactly when the first download ends (that row is free again).
        var builder = TraceBuilder(metadata: TraceMetadata(name: "podcasts", start: 0, end: 1_000_000_000, sourceFormat: "test"))
        func add(_ name: String, start: Nanoseconds, duration: Nanoseconds, category: String) {
            var row = SignpostRow(start: start, duration: duration, kind: .interval, name: builder.intern(name))
            row.subsystem = builder.intern("fm.overcast.player")
            row.category = builder.intern(category)
            builder.addSignpost(row)
        }
        for episode in 0..<6 { add("Download \(episode)", start: Nanoseconds(episode) * 10_000_000, duration: 100_000_000, category: "Network") }
        add("Parse Feed", start: 100_000_000, duration: 5_000_000, category: "Network")
        add("Play", start: 20_000_000, duration: 300_000_000, category: "Audio")
        let trace = try builder.build()
        let lanes = trace.indexes.signpostLanes
        #expect(lanes.map(\.title) == Array(repeating: "Network · fm.overcast.player", count: 4) + ["Audio · fm.overcast.player"])
        #expect(lanes.map(\.level) == [0, 1, 2, 3, 0])
        #expect(lanes.map(\.groupSignposts) == [7, 7, 7, 7, 1])
        func names(_ lane: SignpostLane) -> [String] { lane.rows.map { trace.string(trace.signposts.name[Int($0)]) } }
        #expect(names(lanes[0]) == ["Download 0", "Parse Feed"], "the first row is free again when Download 0 ends")
        #expect(names(lanes[1]) == ["Download 1"])
        #expect(names(lanes[2]) == ["Download 2"])
        #expect(names(lanes[3]) == ["Download 3", "Download 4", "Download 5"], "past four rows the last takes the rest")
        for lane in lanes.prefix(3) {
            let rows = lane.rows.map(Int.init)
            #expect(zip(rows, rows.dropFirst()).allSatisfy { trace.signposts.end($0) <= trace.signposts.start[$1] }, "no overlap within a row")
        }
        #expect(lanes.reduce(0) { $0 + $1.rows.count } == trace.signposts.count)
        let window = TimeRange(start: 0, end: 400_000_000)
        let ids = trace.allTimelineLanes
        // Every fixed lane but Hang Risks (this recording has none), and the five signpost lanes.
        #expect(ids.count == Lane.allCases.count - 1 + 5)
        let timeline = trace.timeline(window: window, width: 4000, laneIDs: ids, index: TimelineIndex())
        #expect(timeline == trace.timelineByFullScan(window: window, width: 4000, laneIDs: ids))
        #expect(timeline.lanes["signposts-1"]?.events.map(\.label) == ["Download 1"])
        let download2 = try #require(lanes[2].rows.first.map(Int.init))
        #expect(trace.signpostDetail(download2).lane == "signposts-2", "the details name the row it is drawn in")
        #expect(trace.signpostDetail(download2).laneTitle == "Network · fm.overcast.player")
    }

    @Test func aTraceWithoutSignpostsHasNoSignpostLanes() {
        let trace = SampleTraces.trace(named: "environment-color-scheme")
        #expect(trace.indexes.signpostLanes.isEmpty)
        #expect(trace.allTimelineLanes == Lane.allCases.filter { $0 != .hangRisks }.map(TimelineLaneID.fixed))
    }

    @Test func theLandmarksSamplesMarkTheirPointsOfInterest() throws {
        let trace = SampleTraces.trace(named: "landmarks-favorites-slow")
        let lane = try #require(trace.indexes.signpostLanes.first)
        #expect(lane.title == "Points of Interest · com.example.apple-samplecode.Landmarks")
        let names = lane.rows.map { trace.string(trace.signposts.name[Int($0)]) }
        #expect(names == ["Load Landmarks", "Favorite Tap", "Favorite Tap"])
        let taps = lane.rows.dropFirst().map { trace.signpostDetail(Int($0)) }
        #expect(taps.map(\.beginMessage) == ["Muir Woods", "Mount Fuji"])
        #expect(taps.map(\.endMessage) == ["12 rows updated", "12 rows updated"])
        // Each tap's interval holds its Tap Gesture group.
        for tap in taps {
            let groups = (0..<trace.updateGroups.count).filter { trace.updateGroups.start[$0] >= tap.start && trace.updateGroups.start[$0] < tap.start + tap.duration }
            #expect(groups.map { trace.string(trace.updateGroups.label[$0]) } == ["Tap Gesture"])
        }
    }
}
