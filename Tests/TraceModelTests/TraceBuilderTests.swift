import Testing
@testable import TraceModel

@Suite struct TraceBuilderTests {
    @Test func updatesAreSortedByStartAndReferencesFollowThem() throws {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "t", sourceFormat: "test"))
        let view = builder.intern("LandmarkListItemView")
        let module = builder.intern("Landmarks")
        let lateGroup = builder.addUpdateGroup(start: 2_000, duration: 5_000, label: builder.intern("late"))
        let earlyGroup = builder.addUpdateGroup(start: 1_000, duration: 500, label: builder.intern("early"))
        let late = builder.addUpdate(start: 2_100, duration: 1_200_000, kind: .viewBody, module: module, viewName: view, group: lateGroup)
        let early = builder.addUpdate(start: 1_100, duration: 100, kind: .viewBody, module: module, viewName: view, group: earlyGroup)
        let lateNode = builder.addNode(kind: .viewBody, name: view, isAppCode: true, eventID: 7, timestamp: 2_100, update: late)
        let earlyNode = builder.addNode(kind: .viewBody, name: view, isAppCode: true, eventID: 8, timestamp: 1_100, update: early)

        let trace = try builder.build()

        #expect(trace.updates.start == [1_100, 2_100])
        #expect(trace.updates.group == [0, 1])
        #expect(trace.string(trace.updateGroups.label[0]) == "early")
        #expect(trace.graph.nodes.update[Int(lateNode)] == 1)
        #expect(trace.graph.nodes.update[Int(earlyNode)] == 0)
        #expect(Array(trace.indexes.nodes(ofUpdate: 1)) == [lateNode])
        #expect(trace.indexes.updatesByLane[.longViewBody] == [1])
        #expect(trace.indexes.updatesByLane[.viewBody] == [0, 1])
        #expect(trace.metadata.start == 1_000 && trace.metadata.end == 2_100 + 1_200_000)
    }

    @Test func longUpdateThresholdsAreStrictlyAbove() {
        #expect(LongUpdateSeverity(duration: 500_000) == .normal)
        #expect(LongUpdateSeverity(duration: 500_001) == .orange)
        #expect(LongUpdateSeverity(duration: 1_000_000) == .orange)
        #expect(LongUpdateSeverity(duration: 1_000_001) == .red)
    }

    @Test func danglingReferenceIsRejectedWithItsPlace() {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "t", sourceFormat: "test"))
        builder.addUpdate(start: 0, duration: 1, kind: .other, module: 0, viewName: 0, group: 3)
        #expect(throws: TraceModelError.self) { try builder.build() }
        do {
            _ = try builder.build()
        } catch {
            #expect(error.description == "updates[0].group refers to 3, but there are 0 rows")
        }
    }

    @Test func timesAndWeightsBeyondTheLimitsAreRejected() {
        func error(_ add: (inout TraceBuilder) -> Void) -> String {
            var builder = TraceBuilder(metadata: TraceMetadata(name: "t", sourceFormat: "test"))
            add(&builder)
            do {
                _ = try builder.build()
                return "built"
            } catch {
                return error.description
            }
        }
        #expect(error { $0.addUpdate(start: .max - 10, duration: 100, kind: .other, module: 0, viewName: 0) }
            == "updates[0].start is out of range (\(Int64.max - 10) ns; allowed \(-TraceLimits.time)...\(TraceLimits.time))")
        #expect(error { $0.addUpdate(start: 0, duration: -1, kind: .other, module: 0, viewName: 0) }
            == "updates[0].duration is negative (-1 ns; allowed 0...\(TraceLimits.time))")
        #expect(error { $0.addHang(TimelineInterval(start: 0, duration: .max, kind: "Hang", detail: "")) }.hasPrefix("hangs[0].duration is out of range"))
        #expect(error {
            let frame = $0.addFrame(name: 0, binary: 0, isAppCode: false)
            let stack = $0.addStack(rootToLeaf: [frame])
            $0.addSample(time: 0, thread: noRow, weight: .max, stack: UInt32(stack))
        }.hasPrefix("samples[0].weight is out of range"))
        #expect(error { $0.addUpdate(start: TraceLimits.time - 1, duration: TraceLimits.time, kind: .other, module: 0, viewName: 0) } == "built")
    }

    /// Source locations live in a side table of only the frames that have one: a frame row stays
    /// 9 bytes, and a frame given its source late (seen first without one) is found all the same.
    @Test func framesKeepTheirSourcesInASideTableOfOnlyThoseFrames() throws {
        var b = TraceBuilder(metadata: TraceMetadata(name: "t", start: 0, end: 1, sourceFormat: "test"))
        let app = b.intern("Trips"), system = b.intern("SwiftUI")
        let path = b.intern("/Users/dev/Trips/TripCard.swift")
        var frames: [UInt32] = []
        for i in 0..<1_000 {
            frames.append(b.addFrame(name: b.intern("f\(i)"), binary: i % 50 == 0 ? app : system, isAppCode: i % 50 == 0,
                                     sourcePath: i % 50 == 0 ? path : 0, sourceLine: UInt32(i)))
        }
        // f7 was first seen without a source; a later sample names its line.
        _ = b.addFrame(name: b.intern("f7"), binary: system, isAppCode: false, sourcePath: path, sourceLine: 707)
        let table = try b.build().cpu.frames
        #expect(table.sourceFrames.count == 21 && table.sourceFrames == table.sourceFrames.sorted())
        #expect(table.source(of: Int(frames[7]))?.line == 707 && table.source(of: Int(frames[50]))?.line == 50)
        #expect(table.source(of: Int(frames[51])) == nil && table.source(of: Int(frames[999])) == nil)
        // The side table holds the 21 frames with a source, not a column per frame.
        #expect(table.sourcePath.count == 21 && table.sourceLine.count == 21 && table.count == 1_000)
    }

    @Test func stacksAreSharedPrefixTrees() throws {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "t", sourceFormat: "test"))
        let main = builder.addFrame(name: builder.intern("main"), binary: builder.intern("App"), isAppCode: true)
        let body = builder.addFrame(name: builder.intern("body"), binary: builder.intern("App"), isAppCode: true)
        let a = builder.addStack(rootToLeaf: [main, body])
        let b = builder.addStack(rootToLeaf: [main, body])
        #expect(a == b)
        let trace = try builder.build()
        #expect(trace.cpu.stacks.frames(of: Int(a)) == [main, body])
    }
}
