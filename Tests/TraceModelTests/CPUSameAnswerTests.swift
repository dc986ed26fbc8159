import Foundation
import Testing
@testable import TraceModel

/// The CPU answers (flame graph, inverted graph, call tree, differential graph) of a podcast
/// app's profile, pinned as text in `Expected/`: written by the code that summed each query's
/// samples row by row, so a faster way of summing them must give every frame the same place,
/// weight and sample count. Four threads, the same stacks on two of them, deep recursion,
/// system frames, a view's updates, weights that tie and weights that don't. After a deliberate
/// change of an answer, run with `TRACESVC_RECORD=1` and review the diff.
@Suite struct CPUSameAnswerTests {
    private static let expected = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Expected")

    private func podcasts() throws -> Trace {
        var b = TraceBuilder(metadata: TraceMetadata(name: "podcasts", app: "Podcasts", start: 0, end: 3_000_000_000, sourceFormat: "test"))
        let process = b.addProcess(TraceProcess(pid: 31, name: "Podcasts"))
        let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
        let audio = b.addThread(TraceThread(tid: 2, name: "AudioRender", process: process, isMain: false))
        let network = b.addThread(TraceThread(tid: 3, name: "Networking", process: process, isMain: false))
        let decode = b.addThread(TraceThread(tid: 4, name: "Decoder", process: process, isMain: false))
        let app = b.intern("Podcasts")
        let binaryNames = ["Podcasts", "SwiftUICore", "SwiftUI", "Foundation", "libsystem_malloc.dylib", "CoreAudio", "libobjc.A.dylib"]
        let names = [
            "EpisodeRow.body.getter", "EpisodeListView.body.getter", "DurationFormatter.string(from:)", "Waveform.render(_:)",
            "Artwork.decode(_:)", "FeedParser.parseItem(_:)", "Downloader.resume()", "Player.tick()",
        ]
        var frames: [UInt32] = []
        for name in names { frames.append(b.addFrame(name: b.intern(name), binary: app, isAppCode: true)) }
        for index in 0..<40 {
            let binary = binaryNames[1 + index % (binaryNames.count - 1)]
            let name = index % 7 == 0 ? "objc_msgSend" : index % 5 == 0 ? "malloc" : "\(binary).function\(index)"
            frames.append(b.addFrame(name: b.intern(name), binary: b.intern(binary), isAppCode: false))
        }
        let recursive = frames[3]
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        // Stacks: a root per thread kind, then a walk over the frames; some recurse 30 deep.
        var stacks: [[UInt32]] = []
        for path in 0..<60 {
            var stack: [UInt32] = [frames[8 + path % 3]]
            for _ in 0..<(2 + next(7)) {
                stack.append(frames[next(frames.count)])
                if stack.last == recursive && next(2) == 0 { for _ in 0..<30 { stack.append(recursive) } }
            }
            stacks.append(stack)
        }
        let stackRows = stacks.map { UInt32(b.addStack(rootToLeaf: $0)) }
        let episodeRow = b.intern("EpisodeRow")
        for update in 0..<12 {
            let start = Nanoseconds(update) * 230_000_000 + 10_000_000
            _ = b.addUpdate(start: start, duration: Nanoseconds(5 + next(40)) * 1_000_000, kind: .viewBody, module: app, viewName: episodeRow, thread: main)
        }
        // Samples every ms on main, sometimes on the others; the same stacks on main and the decoder.
        let threads = [(main, 100), (audio, 40), (network, 15), (decode, 25)]
        for ms in 0..<2_900 {
            for (thread, percent) in threads where next(100) < percent {
                let draw = next(1000)
                let stack = stackRows[(draw * draw / 1000 / 7 + (thread == audio ? 20 : thread == network ? 40 : 0)) % stackRows.count]
                let weight: Nanoseconds = next(4) == 0 ? Nanoseconds(700_000 + next(600_000)) : 1_000_000
                b.addSample(time: Nanoseconds(ms) * 1_000_000 + Nanoseconds(thread) * 1_000, thread: thread, weight: weight, stack: stack)
            }
        }
        return try b.build()
    }

    /// One line per frame, indented by depth: name, kind, x, total, self weight, samples.
    private func text(_ graph: FlameGraph) -> String {
        var lines = ["total \(graph.totalWeight) samples \(graph.sampleCount) updates \(graph.updateCount.map(String.init) ?? "-") "
                     + "window \(graph.window.from)-\(graph.window.to) minWeight \(graph.minWeight) merged \(graph.mergedFrames) zoom \(graph.zoom)"]
        let f = graph.frames
        for i in 0..<f.count {
            lines.append(String(repeating: " ", count: f.depth[i]) + "\(graph.names[f.name[i]]) \(f.kind[i].rawValue) \(f.x[i]) \(f.total[i]) "
                         + "\(f.selfWeight[i]) \(f.samples[i])\(f.foldedDepth[i] ? " folded" : "")\(f.merged[i] > 0 ? " merged \(f.merged[i])" : "")")
        }
        return lines.joined(separator: "\n")
    }

    private func text(_ nodes: [CallTreeNode], depth: Int = 0) -> [String] {
        // Depth-first with an explicit stack.
        var lines: [String] = []
        var pending = nodes.reversed().map { ($0, depth) }
        while let (node, level) = pending.popLast() {
            lines.append(String(repeating: " ", count: level) + "\(node.name) \(node.total) \(node.selfWeight) \(node.sampleCount)")
            pending.append(contentsOf: node.children.reversed().map { ($0, level + 1) })
        }
        return lines
    }

    @Test func everyCPUAnswerIsTheOneTheRowByRowSumsGave() throws {
        let trace = try podcasts()
        let malloc: Set<String> = ["malloc", "objc_msgSend"]
        let middle = TimeRange(start: 900_000_000, end: 2_100_000_000)
        let view = CallTreeQuery.ViewSelector(name: "EpisodeRow", module: "Podcasts")
        let graphs: [(String, FlameGraphQuery)] = [
            ("all threads", FlameGraphQuery(tree: CallTreeQuery(), width: 200)),
            ("decoder thread", FlameGraphQuery(tree: CallTreeQuery(thread: 3), width: 200)),
            ("middle range", FlameGraphQuery(tree: CallTreeQuery(range: middle), width: 200)),
            ("view", FlameGraphQuery(tree: CallTreeQuery(view: view), width: 200)),
            ("view, hide system, charge to caller", FlameGraphQuery(tree: CallTreeQuery(view: view, hideSystemLibraries: true, chargedToCaller: malloc), width: 200)),
            ("hide system, charge to caller", FlameGraphQuery(tree: CallTreeQuery(hideSystemLibraries: true, chargedToCaller: malloc), width: 200)),
            ("flatten recursion", FlameGraphQuery(tree: CallTreeQuery(flattenRecursion: true), width: 200)),
            ("inverted", FlameGraphQuery(tree: CallTreeQuery(mode: .bottomUp), width: 200)),
            ("inverted, middle range, charge to caller", FlameGraphQuery(tree: CallTreeQuery(range: middle, mode: .bottomUp, chargedToCaller: malloc), width: 200)),
        ]
        var out: [String] = []
        for (name, query) in graphs {
            out.append("== flame graph, \(name)")
            out.append(text(trace.flameGraph(query)))
        }
        // Focused on, and zoomed into, the second-heaviest frame two deep; focused on the inverted graph's second root.
        func path(to depth: Int, in graph: FlameGraph) throws -> [CallPathStep] {
            var frame = try #require((0..<graph.frames.count).filter { graph.frames.depth[$0] == depth && graph.frames.kind[$0] != .merged }.dropFirst().first)
            var steps: [CallPathStep] = []
            while frame >= 0 { steps.insert(graph.frames.step[frame]!, at: 0); frame = graph.frames.parent[frame] }
            return steps
        }
        let deep = try path(to: 2, in: trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(), width: 200)))
        let caller = try path(to: 0, in: trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(mode: .bottomUp), width: 200)))
        for (name, query) in [("focus", FlameGraphQuery(tree: CallTreeQuery(focus: deep), width: 200)),
                              ("zoomed", FlameGraphQuery(tree: CallTreeQuery(), zoom: deep, width: 200)),
                              ("inverted, focus", FlameGraphQuery(tree: CallTreeQuery(mode: .bottomUp, focus: caller), width: 200))] {
            out.append("== flame graph, \(name)")
            out.append(text(trace.flameGraph(query)))
        }
        for (name, query) in [("all threads", CallTreeQuery(minPercent: 2)), ("inverted", CallTreeQuery(mode: .bottomUp, minPercent: 2)),
                              ("view", CallTreeQuery(minPercent: 2, view: view))] {
            let tree = trace.callTree(query)
            out.append("== call tree, \(name): total \(tree.totalWeight) samples \(tree.sampleCount) omitted \(tree.omittedNodes)")
            out.append(contentsOf: text(tree.roots))
        }
        let early = CallTreeQuery(range: TimeRange(start: 0, end: 1_500_000_000)), late = CallTreeQuery(range: TimeRange(start: 1_500_000_000, end: 3_000_000_000))
        let diff = Trace.differentialFlameGraph(before: trace, after: trace, DifferentialFlameGraphQuery(before: early, after: late, width: 200))
        out.append("== differential, first half against second: before \(diff.beforeTotal) in \(diff.beforeSamples) samples")
        out.append(text(diff.graph))
        out.append(diff.graph.frames.x.indices.map { "\(diff.beforeTotalOfFrame[$0].map(String.init) ?? "-")/\(diff.beforeSelfOfFrame[$0].map(String.init) ?? "-")" }.joined(separator: " "))
        out.append(diff.removed.map { "\($0.name) \($0.total)" }.joined(separator: ", "))

        let actual = out.joined(separator: "\n") + "\n"
        let url = Self.expected.appendingPathComponent("cpu-answers-podcasts.txt")
        if ProcessInfo.processInfo.environment["TRACESVC_RECORD"] == "1" {
            try FileManager.default.createDirectory(at: Self.expected, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url)
            return
        }
        let pinned = try String(contentsOf: url, encoding: .utf8)
        let (a, p) = (actual.split(separator: "\n", omittingEmptySubsequences: false), pinned.split(separator: "\n", omittingEmptySubsequences: false))
        let line = zip(a, p).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(actual == pinned, "differs at line \((line ?? min(a.count, p.count)) + 1): \(line.map { "\(a[$0])  (pinned: \(p[$0]))" } ?? "length")")
        // The pinned answers are not trivial: every thread, deep frames, merged blocks.
        #expect(pinned.contains("AudioRender") && pinned.contains("Decoder") && pinned.contains("merged") && pinned.contains("Waveform.render"))
    }
}
