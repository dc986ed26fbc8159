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
