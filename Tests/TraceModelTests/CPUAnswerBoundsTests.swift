import Testing
@testable import TraceModel

/// The CPU answers stay bounded by what a screen can draw, whatever the trace: a stack chart of
/// samples whose stacks share nothing, a call tree whose cap must keep the heaviest nodes of all
/// threads, and a flame graph asked again from the weights kept with the trace. A maps app's
/// profile, not the Landmarks samples.
@Suite struct CPUAnswerBoundsTests {
    /// `samples` samples 1 ms apart on the main thread, each stack `depth` frames deep and its own
    /// from the second frame on (a new frame per level and sample): the worst case for a stack
    /// chart, whose boxes change at every sample.
    private func scattered(samples: Int, depth: Int) throws -> Trace {
        var b = TraceBuilder(metadata: TraceMetadata(name: "maps", app: "Maps", start: 0, end: Int64(samples) * 1_000_000, sourceFormat: "test"))
        let process = b.addProcess(TraceProcess(pid: 7, name: "Maps"))
        let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
        let app = b.intern("Maps")
        let root = b.addFrame(name: b.intern("MapRenderer.draw"), binary: app, isAppCode: true)
        for sample in 0..<samples {
            var frames = [root]
            for level in 1..<depth { frames.append(b.addFrame(name: b.intern("Tile\(sample).level\(level)"), binary: app, isAppCode: true)) }
            b.addSample(time: Int64(sample) * 1_000_000, thread: main, weight: 1_000_000, stack: UInt32(b.addStack(rootToLeaf: frames)))
        }
        return try b.build()
    }

    @Test func aStackChartOfStacksThatChangeAtEverySampleIsAtMostPixelsTimesDepth() throws {
        let (samples, depth, width) = (4_000, 40, 100)
        let trace = try scattered(samples: samples, depth: depth)
        let chart = trace.stackChart(StackChartQuery(tree: CallTreeQuery(thread: 0), width: width))
        #expect(chart.sampleCount == samples)
        // 40 samples a pixel: each pixel is the root's box and one merged box per depth below it.
        #expect(chart.boxes.count <= width * depth)
        let rows = (0..<chart.boxes.count).filter { chart.boxes.depth[$0] == 0 }
        #expect(rows.count == 1 && chart.names[chart.boxes.name[rows[0]]] == "MapRenderer.draw" && chart.boxes.samples[rows[0]] == samples)
        for level in 1..<depth {
            let boxes = (0..<chart.boxes.count).filter { chart.boxes.depth[$0] == level }
            // Merged, yet every sample is counted once at every depth its stack reaches...
            #expect(boxes.reduce(0) { $0 + chart.boxes.samples[$1] } == samples, "depth \(level)")
            #expect(boxes.allSatisfy { chart.boxes.kind[$0] == .merged })
            // ...and boxes at one depth do not overlap.
            for (a, b) in zip(boxes, boxes.dropFirst()) { #expect(chart.boxes.end[a] <= chart.boxes.start[b]) }
        }
        // Zoomed in to fewer samples than pixels, every box is a frame of its own again.
        let zoomed = trace.stackChart(StackChartQuery(tree: CallTreeQuery(range: TimeRange(start: 0, end: 50_000_000), thread: 0), width: 1000))
        #expect(zoomed.sampleCount == 50 && zoomed.boxes.count == 1 + 50 * (depth - 1))
        #expect(!zoomed.boxes.kind.contains(.merged))
    }

    @Test func theNodeCapKeepsTheHeaviestNodesOfAllThreads() throws {
        // The main thread (laid out first): 21,000 light functions of one sample each; the
        // renderer thread: 300 heavy ones. The cap is 20,000 nodes: the heavy ones all stay.
        var b = TraceBuilder(metadata: TraceMetadata(name: "maps", app: "Maps", start: 0, end: 1_000_000_000, sourceFormat: "test"))
        let process = b.addProcess(TraceProcess(pid: 7, name: "Maps"))
        let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
        let renderer = b.addThread(TraceThread(tid: 2, name: "Renderer", process: process, isMain: false))
        let app = b.intern("Maps")
        var time: Nanoseconds = 0
        for i in 0..<21_000 {
            let frame = b.addFrame(name: b.intern("Annotation\(i).layout"), binary: app, isAppCode: true)
            b.addSample(time: time, thread: main, weight: 1_000, stack: UInt32(b.addStack(rootToLeaf: [frame])))
            time += 10_000
        }
        for i in 0..<300 {
            let frame = b.addFrame(name: b.intern("Shader\(i).compile"), binary: app, isAppCode: true)
            b.addSample(time: time, thread: renderer, weight: 1_000_000, stack: UInt32(b.addStack(rootToLeaf: [frame])))
            time += 10_000
        }
        let tree = try b.build().callTree(CallTreeQuery(minPercent: 0))
        let byName = Dictionary(uniqueKeysWithValues: tree.roots.map { ($0.name, $0) })
        let mainRoot = try #require(byName["Main Thread"]), rendererRoot = try #require(byName["Renderer"])
        #expect(rendererRoot.children.count == 300)
        #expect(mainRoot.children.count == CallTreeQuery.maxNodes - 300)
        #expect(tree.omittedNodes == 21_300 - CallTreeQuery.maxNodes)
        // What is left out is folded into its parent: the thread still weighs all its samples.
        #expect(mainRoot.total == 21_000 * 1_000 && mainRoot.selfWeight == 1_300 * 1_000)
    }

    @Test func aFlameGraphAskedAgainFromTheKeptWeightsIsTheSameAnswer() throws {
        let trace = try scattered(samples: 300, depth: 12)
        let early = CallTreeQuery(range: TimeRange(start: 0, end: 100_000_000)), late = CallTreeQuery(range: TimeRange(start: 100_000_000, end: 300_000_000))
        let first = trace.flameGraph(FlameGraphQuery(tree: early, width: 800))
        // Another range is other samples, not the kept ones.
        let other = trace.flameGraph(FlameGraphQuery(tree: late, width: 800))
        #expect(first.sampleCount == 100 && other.sampleCount == 200 && other.totalWeight == 2 * first.totalWeight)
        // Zoomed and windowed from the kept weights, as from fresh ones.
        let zoom = [first.frames.step[0]!, first.frames.step[1]!]
        let window = WeightWindow(from: 10_000_000, to: 40_000_000)
        let kept = trace.flameGraph(FlameGraphQuery(tree: early, zoom: zoom, width: 300))
        let keptWindow = trace.flameGraph(FlameGraphQuery(tree: early, window: window, width: 300))
        trace.indexes.cpuPaths.dropWeights()
        #expect(kept == trace.flameGraph(FlameGraphQuery(tree: early, zoom: zoom, width: 300)))
        #expect(keptWindow == trace.flameGraph(FlameGraphQuery(tree: early, window: window, width: 300)))
        #expect(trace.flameGraph(FlameGraphQuery(tree: early, width: 800)) == first)
    }

    @Test func siblingsNarrowerThanAPixelAreAddedUpNotLeftOut() throws {
        // 2,000 one-sample children of one frame: at 100 px they are one block of all their weight.
        let trace = try scattered(samples: 2_000, depth: 2)
        let graph = trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(), width: 100))
        let merged = try #require((0..<graph.frames.count).first { graph.frames.kind[$0] == .merged })
        #expect(graph.frames.merged[merged] == 2_000 && graph.frames.total[merged] == 2_000 * 1_000_000 && graph.frames.samples[merged] == 2_000)
        #expect(graph.frames.count == 3)
    }
}
