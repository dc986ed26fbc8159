import ArgumentParser
import Foundation
import TraceModel
import TraceSamples

/// The CPU pane's server answers on a big synthetic profile (1M samples, stacks about 120 frames
/// deep): flame graph (the first answer, and again from the weights kept with the trace), zoom, pan,
/// stack chart, differential flame graph, each with its JSON, against a
/// baseline measured in the same run: the flame graph's tree built the plain way (each sample's
/// stack walked frame by frame into a trie), which its answer is checked to agree with.
struct BenchFlameGraph: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flamegraph",
        abstract: "Measure flame graph, stack chart and differential flame graph answers (target p99 <= 50 ms at 1M samples), against a plain-trie baseline.",
        discussion: "Build with -c release for meaningful figures: swift build -c release --product tracesvc-bench"
    )

    @Option(help: "CPU samples in the synthetic profile.")
    var samples = 1_000_000

    @Option(help: "Typical stack depth (frames).")
    var depth = 120

    @Option(help: "Distinct call paths the samples are drawn from.")
    var paths = 20_000

    @Option(help: "Answers per scenario (the baseline runs a twentieth as many).")
    var iterations = 40

    @Option(help: "Flame graph width in pixels.")
    var width = 1920

    @Option(help: "Only the scenarios whose name holds this text (the baseline and the differential graph run with all).")
    var only: String?

    func run() async throws {
        let buildStart = ContinuousClock.now
        let trace = SyntheticProfiles.trace(samples: samples, depth: depth, paths: paths, seed: 42)
        print("profile: \(trace.cpu.samples.count) samples on \(trace.threads.count) threads, \(trace.cpu.stacks.count) stack rows, "
              + "\(trace.cpu.frames.count) frames, stacks ~\(depth) deep; built in \(ms(ContinuousClock.now - buildStart)) ms")
        let meta = trace.metadata
        var random = SystemRandomNumberGenerator()
        func randomRange(_ fraction: Double) -> TimeRange {
            let span = max(1, Int64(Double(meta.duration) * fraction))
            let start = meta.start + Int64.random(in: 0...max(0, meta.duration - span), using: &random)
            return TimeRange(start: start, end: start + span)
        }
        let whole = trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(), width: width))
        // A frame about 30 deep on the heaviest path, to zoom into.
        var zoomFrame = whole.frames.count > 0 ? 0 : -1
        for frame in 0..<whole.frames.count where whole.frames.depth[frame] <= 30 && whole.frames.kind[frame] != .merged {
            if whole.frames.depth[frame] > whole.frames.depth[max(0, zoomFrame)] { zoomFrame = frame }
        }
        let zoomPath = Self.path(of: zoomFrame, in: whole.frames)
        let main = trace.threads.indices.first { trace.threads[$0].isMain }

        print("\nscenario                                        wall p50     p99 | thread CPU p99 |  frames  bytes")
        let scenarios: [(String, () -> [UInt8])] = [
            ("flame graph, whole trace, all threads", { trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(), width: width)).json() }),
            ("flame graph, whole trace, first answer", {
                // Nothing kept from an earlier answer: the samples read and summed again.
                trace.indexes.cpuPaths.dropWeights()
                return trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(), width: width)).json()
            }),
            ("flame graph, panned: a random 5% window", {
                let from = Int64.random(in: 0...(whole.totalWeight / 20 * 19), using: &random)
                return trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(), window: WeightWindow(from: from, to: from + whole.totalWeight / 20), width: width)).json()
            }),
            ("flame graph, whole trace, main thread", { trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(thread: main), width: width)).json() }),
            ("flame graph, 10% at random", { trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(range: randomRange(0.1)), width: width)).json() }),
            ("flame graph, zoomed \(zoomPath.count) frames deep", { trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(), zoom: zoomPath, width: width)).json() }),
            ("flame graph, hide system + flatten", {
                trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(hideSystemLibraries: true, flattenRecursion: true), width: width)).json()
            }),
            ("flame graph, inverted", { trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(mode: .bottomUp), width: width)).json() }),
            ("call tree (the tree view's answer)", { trace.callTree(CallTreeQuery()).json() }),
            ("stack chart, main thread, 1% window", { trace.stackChart(StackChartQuery(tree: CallTreeQuery(range: randomRange(0.01), thread: main), width: width)).json() }),
            ("stack chart, main thread, whole trace", { trace.stackChart(StackChartQuery(tree: CallTreeQuery(thread: main), width: width)).json() }),
        ]
        for (name, answer) in scenarios where only.map({ name.contains($0) }) ?? true { measure(name, answer) }
        if only != nil { return }

        let other = SyntheticProfiles.trace(samples: samples, depth: depth, paths: paths, seed: 43)
        measure("differential flame graph (two 1M profiles)", iterations: max(1, iterations / 4)) {
            Trace.differentialFlameGraph(before: other, after: trace, DifferentialFlameGraphQuery(before: CallTreeQuery(), after: CallTreeQuery(), width: width)).json()
        }

        // The baseline: the same tree built plainly, checked against the flame graph's roots.
        var plain: [Duration] = []
        var plainRoots: [String: Int64] = [:]
        for _ in 0..<max(1, iterations / 20) {
            let start = ContinuousClock.now
            plainRoots = Self.plainTrieRoots(trace)
            plain.append(ContinuousClock.now - start)
        }
        var graphRoots: [String: Int64] = [:]
        for frame in 0..<whole.frames.count where whole.frames.depth[frame] == 0 {
            graphRoots[whole.names[whole.frames.name[frame]]] = whole.frames.total[frame]
        }
        guard graphRoots == plainRoots else { throw ValidationError("the flame graph's roots differ from the plain trie's: \(graphRoots) vs \(plainRoots)") }
        print("baseline: plain trie of every sample's stack     \(pair(plain)) |                | (no layout, no JSON)")
        print("\ntimes in ms; the plain trie's thread roots agree with the flame graph's; target: flame graph p99 <= 50 ms")
    }

    private func measure(_ name: String, iterations count: Int? = nil, _ answer: () -> [UInt8]) {
        var wall: [Duration] = [], cpu: [Duration] = []
        var bytes = 0
        for _ in 0..<(count ?? iterations) {
            let cpuStart = threadCPUTime()
            let start = ContinuousClock.now
            bytes = answer().count
            wall.append(ContinuousClock.now - start)
            cpu.append(threadCPUTime() - cpuStart)
        }
        print(name.padding(toLength: 46, withPad: " ", startingAt: 0) + "\(pair(wall).leftPadded(16)) | \(ms(percentile(cpu, 99)).leftPadded(14)) | \(String(bytes / 1000).leftPadded(7)) kB")
    }

    private static func path(of frame: Int, in frames: FlameFrames) -> [CallPathStep] {
        var steps: [CallPathStep] = []
        var current = frame
        while current >= 0 {
            if let step = frames.step[current] { steps.append(step) }
            current = frames.parent[current]
        }
        return steps.reversed()
    }

    /// Thread name to weight, from a trie built sample by sample, frame by frame.
    private static func plainTrieRoots(_ trace: Trace) -> [String: Int64] {
        final class Node { var total: Int64 = 0; var children: [UInt32: Node] = [:] }
        var roots: [Int32: Node] = [:]
        let samples = trace.cpu.samples
        for i in 0..<samples.count {
            let root = roots[samples.thread[i]] ?? Node()
            roots[samples.thread[i]] = root
            root.total += samples.weight[i]
            var node = root
            for frame in trace.cpu.stacks.frames(of: Int(samples.stack[i])).prefix(CallTreeQuery.maxDepth) {
                let next = node.children[frame] ?? Node()
                node.children[frame] = next
                next.total += samples.weight[i]
                node = next
            }
        }
        return Dictionary(uniqueKeysWithValues: roots.map { (trace.threads[Int($0.key)].name, $0.value.total) })
    }
}
