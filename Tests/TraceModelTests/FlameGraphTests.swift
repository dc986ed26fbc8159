import Testing
@testable import TraceModel
import TraceSamples

/// The flame graph, its transforms (flatten recursion, focus on subtree) and its bounded answer,
/// on a weather app's profile (not the Landmarks samples).
@Suite struct FlameGraphTests {
    /// Main thread, 1 ms samples: root -> forecastBody (6 ms, of which 4 in format -> icu),
    /// root -> layout (SwiftUI, 2 ms), root -> parse -> parse -> parse (recursion, 2 ms);
    /// worker: fetch (3 ms); 500 one-sample stacks root -> tiny_i (1 us each).
    private func weather(tinyStacks: Int = 500) throws -> Trace {
        var b = TraceBuilder(metadata: TraceMetadata(name: "weather", app: "Weather", start: 0, end: 100_000_000, sourceFormat: "test"))
        let process = b.addProcess(TraceProcess(pid: 9, name: "Weather"))
        let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
        let worker = b.addThread(TraceThread(tid: 2, name: "Networking", process: process, isMain: false))
        let app = b.intern("Weather"), ui = b.intern("SwiftUICore"), foundation = b.intern("Foundation")
        func frame(_ name: String, _ binary: StringRef) -> UInt32 { b.addFrame(name: b.intern(name), binary: binary, isAppCode: binary == app) }
        let root = frame("RunLoop.run", foundation), body = frame("ForecastView.body.getter", app)
        let format = frame("MeasurementFormatter.string(from:)", foundation), icu = frame("icu_format", b.intern("libicucore.A.dylib"))
        let layout = frame("VStack.placeSubviews", ui), parse = frame("JSONParser.parseValue", app), fetch = frame("URLSession.fetch", foundation)
        var time: Nanoseconds = 0
        func sample(_ frames: [UInt32], thread: Int32? = nil, weight: Nanoseconds = 1_000_000) {
            b.addSample(time: time, thread: thread ?? main, weight: weight, stack: UInt32(b.addStack(rootToLeaf: frames)))
            time += 1_000_000
        }
        for _ in 0..<2 { sample([root, body]) }
        for _ in 0..<4 { sample([root, body, format, icu]) }
        for _ in 0..<2 { sample([root, layout]) }
        for _ in 0..<2 { sample([root, parse, parse, parse]) }
        for _ in 0..<3 { sample([fetch], thread: worker) }
        for i in 0..<tinyStacks { sample([root, frame("tiny_\(i)", app)], weight: 1_000) }
        return try b.build()
    }

    /// Issue 41: from a view's CPU (a long-body finding's), the stack chart showed every sample of
    /// the thread; it keeps the view's scope: only the samples inside the updates it counts.
    @Test func aStackChartOfAViewHoldsOnlyTheSamplesInsideItsUpdates() throws {
        var b = TraceBuilder(metadata: TraceMetadata(name: "weather", app: "Weather", start: 0, end: 20_000_000, sourceFormat: "test"))
        let process = b.addProcess(TraceProcess(pid: 9, name: "Weather"))
        let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
        let app = b.intern("Weather"), view = b.intern("ForecastView")
        let root = b.addFrame(name: b.intern("RunLoop.run"), binary: app, isAppCode: false)
        let body = b.addFrame(name: b.intern("ForecastView.body.getter"), binary: app, isAppCode: true)
        for i in 0..<20 { b.addSample(time: Nanoseconds(i) * 1_000_000, thread: main, weight: 1_000_000, stack: UInt32(b.addStack(rootToLeaf: i % 5 < 2 ? [root, body] : [root]))) }
        // Two long bodies (2 ms each) and a short one (0.5 ms): 2 + 2 samples inside the long ones.
        for start in [0, 5_000_000] as [Nanoseconds] { _ = b.addUpdate(start: start, duration: 2_000_000, kind: .viewBody, module: app, viewName: view, thread: main) }
        _ = b.addUpdate(start: 10_000_000, duration: 500_000, kind: .viewBody, module: app, viewName: view, thread: main)
        let trace = try b.build()
        let selector = CallTreeQuery.ViewSelector(name: "ForecastView", module: "Weather", filter: .longViewBody, longerThan: 1_000_000)
        let scoped = trace.stackChart(StackChartQuery(tree: CallTreeQuery(thread: 0, view: selector), width: 1000))
        let tree = trace.callTree(CallTreeQuery(thread: 0, view: selector))
        #expect(scoped.sampleCount == 4 && scoped.sampleCount == tree.sampleCount)
        let roots = (0..<scoped.boxes.count).filter { scoped.boxes.depth[$0] == 0 }
        #expect(roots.map { scoped.boxes.start[$0] } == [0, 5_000_000], "a box per body, nothing between them")
        #expect(trace.stackChart(StackChartQuery(tree: CallTreeQuery(thread: 0), width: 1000)).sampleCount == 20)
    }

    private func names(_ graph: FlameGraph, depth: Int) -> [String] {
        (0..<graph.frames.count).filter { graph.frames.depth[$0] == depth }.map { graph.names[graph.frames.name[$0]] }
    }

    private func frame(_ graph: FlameGraph, _ name: String) throws -> Int {
        try #require((0..<graph.frames.count).first { graph.names[graph.frames.name[$0]] == name })
    }

    @Test func framesAreAsWideAsTheirWeightHeaviestFirstFromTheLeft() throws {
        let graph = try weather().flameGraph(FlameGraphQuery(tree: CallTreeQuery(), width: 100_000))
        #expect(graph.totalWeight == 13_500_000 && graph.sampleCount == 513)
        #expect(names(graph, depth: 0) == ["Main Thread", "Networking"])
        let runLoop = try frame(graph, "RunLoop.run")
        #expect(graph.frames.x[runLoop] == 0 && graph.frames.total[runLoop] == 10_500_000)
        let body = try frame(graph, "ForecastView.body.getter"), layout = try frame(graph, "VStack.placeSubviews")
        let parse = try frame(graph, "JSONParser.parseValue")
        #expect(graph.frames.x[body] == 0 && graph.frames.total[body] == 6_000_000 && graph.frames.selfWeight[body] == 2_000_000)
        #expect(graph.frames.samples[body] == 6)
        // Ties (layout and parse weigh 2 ms) go by name, as in the call tree.
        #expect(graph.frames.x[parse] == 6_000_000 && graph.frames.x[layout] == 8_000_000)
        #expect(graph.frames.kind[body] == .app && graph.frames.kind[layout] == .swiftUI && graph.frames.kind[runLoop] == .system)
        #expect(graph.frames.kind[0] == .thread)
        // Every frame sits inside its parent.
        for f in 0..<graph.frames.count where graph.frames.parent[f] >= 0 {
            let p = graph.frames.parent[f]
            #expect(graph.frames.x[f] >= graph.frames.x[p] && graph.frames.x[f] + graph.frames.total[f] <= graph.frames.x[p] + graph.frames.total[p])
            #expect(graph.frames.depth[f] == graph.frames.depth[p] + 1)
        }
    }

    @Test func siblingsNarrowerThanAPixelAreOneMergedBlock() throws {
        // 13.5 ms over 1000 px: a pixel is 13.5 us, and each tiny stack weighs 1 us.
        let graph = try weather().flameGraph(FlameGraphQuery(tree: CallTreeQuery(), width: 1000))
        let merged = try #require((0..<graph.frames.count).first { graph.frames.kind[$0] == .merged })
        #expect(graph.frames.merged[merged] == 500 && graph.frames.total[merged] == 500_000 && graph.frames.samples[merged] == 500)
        #expect(graph.names[graph.frames.name[merged]] == "500 frames" && graph.frames.step[merged] == nil)
        #expect(!names(graph, depth: 2).contains { $0.hasPrefix("tiny_") })
        #expect(graph.mergedFrames == 500 && graph.minWeight == 13_500)
    }

    @Test func theAnswerStaysBoundedWhateverTheTrace() throws {
        // 20,000 one-sample stacks: at 800 px no more than a screen's worth of frames per level.
        let graph = try weather(tinyStacks: 20_000).flameGraph(FlameGraphQuery(tree: CallTreeQuery(), width: 800))
        for depth in 0...3 { #expect(names(graph, depth: depth).count <= 800) }
        #expect(graph.frames.count < 50)
        // Past the frame cap the narrowest frame drawn doubles until the answer fits.
        var capped = FlameGraphQuery(tree: CallTreeQuery(), width: 100_000)
        let natural = try weather().flameGraph(capped)
        capped.maxFrames = 6
        let fitted = try weather().flameGraph(capped)
        #expect(natural.frames.count > 6 && fitted.frames.count <= 6 && fitted.minWeight > natural.minWeight)
        #expect(names(fitted, depth: 0).first == "Main Thread")
    }

    @Test func zoomMakesAFrameTheWindowWithItsAncestorsAsTheBreadcrumb() throws {
        let trace = try weather()
        let whole = trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(), width: 1000))
        let body = try frame(whole, "ForecastView.body.getter")
        let path = [whole.frames.step[0]!, whole.frames.step[whole.frames.parent[body]]!, whole.frames.step[body]!]
        #expect(CallPathStep.wirePath(path).hasPrefix("t0.f"))
        let zoomed = trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(), zoom: path, width: 1000))
        #expect(zoomed.zoomFound && zoomed.window == WeightWindow(from: 0, to: 6_000_000))
        #expect(zoomed.zoom.map { zoomed.names[zoomed.frames.name[$0]] } == ["Main Thread", "RunLoop.run", "ForecastView.body.getter"])
        // Only frames in the window; percentages keep the whole graph's total.
        #expect(!names(zoomed, depth: 2).contains("VStack.placeSubviews") && zoomed.totalWeight == 13_500_000)
        // A pixel is now 6 us: the tiny stacks are outside the window, not merged into it.
        #expect(zoomed.minWeight == 6_000 && !(0..<zoomed.frames.count).contains { zoomed.frames.kind[$0] == .merged })
        let missing = trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(), zoom: [.thread(0), .frame(99_999)], width: 1000))
        #expect(!missing.zoomFound && missing.window == WeightWindow(from: 0, to: 13_500_000))
    }

    @Test func flattenRecursionChargesInnerCallsToTheOutermost() throws {
        let trace = try weather()
        let plain = trace.callTree(CallTreeQuery(thread: 0, minPercent: 0))
        let parse = try #require(plain.roots[0].children[0].children.first { $0.name == "JSONParser.parseValue" })
        #expect(parse.children.first?.children.first?.name == "JSONParser.parseValue")
        let flat = trace.callTree(CallTreeQuery(thread: 0, minPercent: 0, flattenRecursion: true))
        let flatParse = try #require(flat.roots[0].children[0].children.first { $0.name == "JSONParser.parseValue" })
        #expect(flatParse.children.isEmpty && flatParse.selfWeight == 2_000_000 && flatParse.sampleCount == 2)
        let graph = trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(flattenRecursion: true), width: 1000))
        #expect(names(graph, depth: 3).filter { $0 == "JSONParser.parseValue" }.isEmpty)
    }

    @Test func focusOnSubtreeMakesANodeTheOneRootAndTheTotal() throws {
        let trace = try weather()
        let whole = trace.callTree(CallTreeQuery(minPercent: 0))
        let runLoop = whole.roots[0].children[0]
        let body = try #require(runLoop.children.first { $0.name == "ForecastView.body.getter" })
        let focus = [whole.roots[0].step, runLoop.step, body.step]
        let tree = trace.callTree(CallTreeQuery(minPercent: 0, focus: focus))
        #expect(tree.roots.map(\.name) == ["ForecastView.body.getter"] && tree.totalWeight == 6_000_000 && tree.sampleCount == 6)
        #expect(tree.roots[0].children.map(\.name) == ["MeasurementFormatter.string(from:)"])
        let graph = trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(focus: focus), width: 1000))
        #expect(names(graph, depth: 0) == ["ForecastView.body.getter"] && graph.totalWeight == 6_000_000)
        // Bottom-up, a focus is a path from a function on CPU to its callers.
        let bottomUp = trace.callTree(CallTreeQuery(mode: .bottomUp, minPercent: 0))
        let icu = try #require(bottomUp.roots.first { $0.name == "icu_format" })
        let callers = trace.callTree(CallTreeQuery(mode: .bottomUp, minPercent: 0, focus: [icu.step]))
        #expect(callers.roots.map(\.name) == ["icu_format"] && callers.roots[0].children.map(\.name) == ["MeasurementFormatter.string(from:)"])
        let gone = trace.callTree(CallTreeQuery(minPercent: 0, focus: [.thread(0), .frame(9_999)]))
        #expect(!gone.focusFound && gone.roots.isEmpty && gone.totalWeight == 0)
    }

    @Test func hideSystemLibrariesChargesTheirTimeToTheAppFrameThatCalledThem() throws {
        let graph = try weather().flameGraph(FlameGraphQuery(tree: CallTreeQuery(thread: 0, hideSystemLibraries: true), width: 100_000))
        let body = try frame(graph, "ForecastView.body.getter")
        #expect(graph.frames.selfWeight[body] == 6_000_000 && graph.frames.depth[body] == 1)
        #expect(names(graph, depth: 1).contains("System libraries"))
    }

    @Test func pathsReadBackAsWritten() {
        let path: [CallPathStep] = [.thread(3), .frame(120), .outsideBody, .systemLibraries]
        #expect(CallPathStep.wirePath(path) == "t3.f120.out.sys")
        #expect(CallPathStep.path(wire: "t3.f120.out.sys") == path)
        for bad in ["x1", "f", "t-1", "f1.", ".f1", "f99999999999", "f1e3"] { #expect(CallPathStep.path(wire: bad) == nil, "\(bad)") }
    }

    @Test func theStackChartMergesConsecutiveSamplesAndSplitsAtGaps() throws {
        let trace = try weather(tinyStacks: 0)
        let chart = trace.stackChart(StackChartQuery(tree: CallTreeQuery(range: TimeRange(start: 0, end: 10_000_000), thread: 0), width: 10_000))
        #expect(chart.sampleCount == 10 && chart.sampleInterval == 1_000_000)
        func boxes(_ depth: Int) -> [(String, Nanoseconds, Nanoseconds, Int)] {
            (0..<chart.boxes.count).filter { chart.boxes.depth[$0] == depth }
                .map { (chart.names[chart.boxes.name[$0]], chart.boxes.start[$0], chart.boxes.end[$0], chart.boxes.samples[$0]) }
        }
        #expect(boxes(0).map(\.0) == ["RunLoop.run"] && boxes(0)[0].1 == 0 && boxes(0)[0].2 == 10_000_000 && boxes(0)[0].3 == 10)
        #expect(boxes(1).map(\.0) == ["ForecastView.body.getter", "VStack.placeSubviews", "JSONParser.parseValue"])
        #expect(boxes(1)[0].1 == 0 && boxes(1)[0].2 == 6_000_000 && boxes(1)[0].3 == 6)
        #expect(boxes(2).map(\.0) == ["MeasurementFormatter.string(from:)", "JSONParser.parseValue"])
        #expect(boxes(2)[0].1 == 2_000_000 && boxes(2)[0].2 == 6_000_000)
        // One box ends a sample interval after its last sample, not at the next thread's sample.
        let worker = trace.stackChart(StackChartQuery(tree: CallTreeQuery(thread: 1), width: 1000))
        #expect(worker.boxes.count == 1 && worker.boxes.start[0] == 10_000_000 && worker.boxes.end[0] == 13_000_000)
        // At 4 px for 10 ms a pixel is 2.5 ms: the 2 ms boxes merge at their depth.
        let coarse = trace.stackChart(StackChartQuery(tree: CallTreeQuery(range: TimeRange(start: 0, end: 10_000_000), thread: 0), width: 4))
        #expect((0..<coarse.boxes.count).contains { coarse.boxes.kind[$0] == .merged && coarse.boxes.merged[$0] == 2 })
        // The main thread is not sampled from 10 to 13 ms (the worker is): its boxes end at the gap.
        let gap = try weather(tinyStacks: 5).stackChart(StackChartQuery(tree: CallTreeQuery(thread: 0), width: 100_000))
        let roots = (0..<gap.boxes.count).filter { gap.boxes.depth[$0] == 0 }
        #expect(roots.map { gap.boxes.start[$0] } == [0, 13_000_000] && roots.map { gap.boxes.end[$0] } == [10_000_000, 18_000_000])
        var capped = StackChartQuery(tree: CallTreeQuery(range: TimeRange(start: 0, end: 10_000_000), thread: 0), width: 10_000)
        let uncapped = trace.stackChart(capped)
        capped.maxBoxes = 5
        let fitted = trace.stackChart(capped)
        #expect(uncapped.boxes.count > 5 && fitted.boxes.count <= 5 && fitted.minDuration > uncapped.minDuration)
    }
}
