import Testing
@testable import TraceModel
import TraceSamples

/// The differential flame graph's colour is the change of self time per run, so it agrees with
/// the comparison's tables: a frame whose time held stays pale when the other side's CPU halves,
/// and a frame that went 4x slower in a pooled compare is red, whatever the shares did.
@Suite struct DifferentialFlameGraphTimeTests {
    private func frame(named name: String, in diff: DifferentialFlameGraph) -> Int? {
        let graph = diff.graph
        return (0..<graph.frames.count)
            .filter { graph.names[graph.frames.name[$0]] == name }
            .max { graph.frames.selfWeight[$0] < graph.frames.selfWeight[$1] }
    }

    @Test func anUnchangedFrameStaysPaleWhenTheTotalHalves() throws {
        let a = SampleTraces.trace(named: "landmarks-scroll-slow"), b = SampleTraces.trace(named: "landmarks-scroll-fixed")
        let diff = Trace.differentialFlameGraph(before: a, after: b, DifferentialFlameGraphQuery(before: CallTreeQuery(), after: CallTreeQuery(), width: 1200))
        // The pair's CPU about halves.
        #expect(Double(diff.graph.totalWeight) < 0.6 * Double(diff.beforeTotal))
        let commit = try #require(frame(named: "CA::Context::commit_transaction(CA::Transaction*, double, double*)", in: diff))
        let before = try #require(diff.beforeSelfOfFrame[commit]), after = diff.graph.frames.selfWeight[commit]
        // About the same time (185 -> 179 ms): a share change of 40+ points, a time change of a few percent.
        #expect(abs(Double(after - before)) < 0.05 * Double(before))
        #expect(diff.selfDelta[commit] > 0.3)
        #expect(abs(diff.selfTimeDelta[commit]) < 0.02, "\(diff.selfTimeDelta[commit])")
        // Every frame's colour has the sign of its change in ms.
        for f in 0..<diff.graph.frames.count where diff.graph.frames.kind[f] != .merged {
            let change = diff.graph.frames.selfWeight[f] - (diff.beforeSelfOfFrame[f] ?? 0)
            #expect(change == 0 ? diff.selfTimeDelta[f] == 0 : (change > 0) == (diff.selfTimeDelta[f] > 0))
        }
    }

    @Test func aFrameFourTimesSlowerInAPooledCompareIsRed() throws {
        // Pantry (another app), three recordings a side: per-item models run one slower row body a tap.
        let a = (1...3).map { PantryTraces.trace(slow: true, run: UInt64($0)) }
        let b = (1...3).map { PantryTraces.trace(slow: false, run: UInt64($0)) }
        for (before, after) in [(a, b), (b, a)] {
            let diff = Trace.differentialFlameGraph(before: before, after: after, DifferentialFlameGraphQuery(before: CallTreeQuery(), after: CallTreeQuery(), width: 1200))
            let row = try #require(frame(named: "ItemRowView.body.getter", in: diff))
            let was = Double(try #require(diff.beforeSelfOfFrame[row])), now = Double(diff.graph.frames.selfWeight[row])
            print("ItemRowView self per run \(was / 1e6) -> \(now / 1e6) ms; share change \(diff.selfDelta[row]), time change \(diff.selfTimeDelta[row])")
            if now > 3 * was {
                #expect(diff.selfTimeDelta[row] >= 0.05, "4x slower is saturated red")
            } else if was > 3 * now {
                #expect(diff.selfTimeDelta[row] <= -0.05, "4x faster is saturated blue")
            } else {
                Issue.record("expected a 3x change of ItemRowView's self time, found \(was) -> \(now)")
            }
        }
    }
}
