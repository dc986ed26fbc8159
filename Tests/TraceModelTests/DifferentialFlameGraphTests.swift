import Testing
@testable import TraceModel
import TraceSamples

/// The differential flame graph: B's graph with A's weights by call path, and what went away.
@Suite struct DifferentialFlameGraphTests {
    private func scrollPair(_ configure: (inout CallTreeQuery) -> Void = { _ in }) -> DifferentialFlameGraph {
        let a = SampleTraces.trace(named: "landmarks-scroll-slow"), b = SampleTraces.trace(named: "landmarks-scroll-fixed")
        var before = CallTreeQuery(range: TimeRange(start: 1_000_000_000, end: a.metadata.end))
        var after = CallTreeQuery(range: TimeRange(start: 1_000_000_000, end: b.metadata.end))
        configure(&before)
        configure(&after)
        return Trace.differentialFlameGraph(before: a, after: b, DifferentialFlameGraphQuery(before: before, after: after, width: 1440))
    }

    @Test func theScrollFixShowsTheFormatterFramesAsRemoved() throws {
        let diff = scrollPair()
        let removed = diff.removed.map(\.name)
        for name in ["LandmarkListItemView.distance.getter", "NumberFormatter.init()", "unum_open",
                     "MeasurementFormatter.string(from:)", "-[NSMeasurementFormatter stringFromMeasurement:]"] {
            #expect(removed.contains(name), "\(name) is not listed as removed: \(removed)")
        }
        let distance = try #require(diff.removed.first { $0.name == "LandmarkListItemView.distance.getter" })
        #expect(distance.caller == "LandmarkListItemView.body.getter" && distance.kind == .app && distance.share > 0.3)
        // Heaviest first; nothing B still runs is listed.
        #expect(diff.removed.first?.name == "LandmarkListItemView.distance.getter")
        #expect(!removed.contains("LandmarkListItemView.body.getter") && !removed.contains("Text.init<A>(_:)"))
        #expect(diff.removedCount == diff.removed.count)
    }

    @Test func eachFrameOfBCarriesItsWeightInAAndTheChangeOfItsSelfShare() throws {
        let diff = scrollPair()
        let graph = diff.graph
        let frames = graph.frames
        func frame(_ name: String) throws -> Int { try #require((0..<frames.count).first { graph.names[frames.name[$0]] == name }) }
        let body = try frame("LandmarkListItemView.body.getter")
        let beforeTotal = try #require(diff.beforeTotalOfFrame[body])
        // The body's weight fell by far more than the whole trace's.
        #expect(Double(frames.total[body]) / Double(graph.totalWeight) < Double(beforeTotal) / Double(diff.beforeTotal) / 2)
        // The cached getter is new in B: no weight in A, and its self share grew.
        let cached = try frame("LandmarkListItemView.distanceText.getter")
        #expect(diff.beforeTotalOfFrame[cached] == nil && diff.selfDelta[cached] > 0)
        // Shares are of each side's total: B's self shares add up to 1, as do A's matched ones at most.
        let bShares = (0..<frames.count).reduce(0.0) { $0 + Double(frames.selfWeight[$1]) / Double(graph.totalWeight) }
        #expect(abs(bShares - 1) < 0.001)
        #expect((0..<frames.count).allSatisfy { abs(diff.selfDelta[$0]) <= 1 })
    }

    @Test func aDrilledIntoViewComparesThatViewsBodiesOnly() throws {
        let diff = scrollPair { $0.view = .init(name: "LandmarkListItemView", module: "Landmarks") }
        let graph = diff.graph
        let roots = (0..<graph.frames.count).filter { graph.frames.depth[$0] == 0 }.map { graph.names[graph.frames.name[$0]] }
        #expect(roots.first == "LandmarkListItemView.body.getter")
        #expect(!roots.contains("CA::Transaction::commit()") && !roots.contains("start"))
        #expect(diff.removed.first?.name == "LandmarkListItemView.distance.getter" && diff.removed.first!.share > 0.5)
    }

    @Test func framesMatchByNameNotByRowAcrossTraces() throws {
        // The same trace against itself: every frame matched, every change zero, nothing removed.
        let trace = SampleTraces.trace(named: "landmarks-favorites-slow")
        let diff = Trace.differentialFlameGraph(before: trace, after: trace, DifferentialFlameGraphQuery(before: CallTreeQuery(), after: CallTreeQuery(), width: 1000))
        #expect(diff.removed.isEmpty)
        for f in 0..<diff.graph.frames.count where diff.graph.frames.kind[f] != .merged {
            #expect(diff.beforeTotalOfFrame[f] == diff.graph.frames.total[f] && abs(diff.selfDelta[f]) < 1e-9)
        }
    }
}
