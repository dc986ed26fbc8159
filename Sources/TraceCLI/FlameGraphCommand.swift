import ArgumentParser
import Foundation
import TraceModel

/// `tracesvc flamegraph FILE -o out.svg`: one trace's flame graph as a standalone SVG.
struct FlameGraphCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flamegraph",
        abstract: "Write a trace's CPU flame graph as a standalone SVG (opens in a browser and an image viewer).",
        discussion: """
            The samples of the whole trace, a range, or every update of one view (from its body), through \
            the call tree's transforms (docs/api.md, "CPU"). Frames narrower than a pixel are merged.
              tracesvc flamegraph run.json -o cpu.svg
              tracesvc flamegraph run.json --view LandmarkListItemView \\
                --hide-system -o item.svg
              tracesvc flamegraph run.json --range 1000000000,2000000000 -o second.svg
            """
    )

    @Argument(help: "A trace file: native JSON (.json / .json.gz) or xctrace export XML.")
    var file: String

    @Option(name: [.customShort("o"), .long], help: "The SVG file to write.")
    var output: String

    @OptionGroup var samples: CPUSampleOptions

    func run() async throws {
        let trace = try readTraceOrExit(file)
        let query = try samples.query(for: trace)
        let graph = trace.flameGraph(FlameGraphQuery(tree: query, width: samples.width))
        let scope = samples.scopeText(trace: trace, range: query.range)
        let svg = FlameGraphSVG(
            graph: graph, diff: nil, title: "\(trace.metadata.name): CPU flame graph",
            subtitle: "\(scope): \(Self.weight(graph.totalWeight, graph.unit)) in \(graph.sampleCount) samples\(samples.transformsText)"
        ).render(width: samples.width)
        try writeOrExit(svg, to: output)
        CommandContext.print("wrote \(output): \(graph.frames.count) frames, \(graph.sampleCount) samples")
    }

    static func weight(_ value: Int64, _ unit: CPUWeightUnit) -> String {
        unit == .cycles ? "\(value) cycles" : String(format: "%.1f ms of CPU", Double(value) / 1e6)
    }
}

/// The samples and transforms of `flamegraph` (and of `compare --flamegraph`, for both traces).
struct CPUSampleOptions: ParsableArguments {
    @Option(help: "Only the samples inside every update of this view, each stack from its body frame.")
    var view: String?

    @Option(help: "The view's module (default: every module).")
    var module: String?

    @Option(help: "Only the samples from here, from the recording's start (\"1s\", \"1.5 s\", \"250 ms\", or ns).")
    var start: DurationOption?

    @Option(help: "... up to here (a duration, as --start).")
    var end: DurationOption?

    @Option(help: "START,END (durations, as --start): the same as --start and --end.")
    var range: String?

    @Option(help: "Only this thread (its index, as `inspect` lists threads).")
    var thread: Int?

    @Flag(help: "Leave system library frames out, charging their time to the app frame that called them.")
    var hideSystem = false

    @Flag(help: "Leave inner calls of a function already on the stack out (recursion), charging them to the outermost.")
    var flatten = false

    @Flag(help: "Bottom-up: the functions on CPU as roots, their callers below.")
    var invert = false

    @Option(help: "Width of the picture in pixels.")
    var width = 1200

    /// The query of these options for `trace`; a bad range or thread exits 1 naming the option.
    func query(for trace: Trace) throws -> CallTreeQuery {
        var (from, to) = (start, end)
        if let range {
            let parts = range.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let a = DurationOption(argument: parts[0]), let b = DurationOption(argument: parts[1]) else {
                CommandContext.printError("--range: give START,END as durations from the recording's start, e.g. --range 1s,2.5s")
                throw ExitCode(1)
            }
            (from, to) = (a, b)
        }
        if let thread, !(0..<trace.threads.count).contains(thread) {
            CommandContext.printError("--thread: the trace has \(trace.threads.count) threads (0...\(max(0, trace.threads.count - 1))), not \(thread)")
            throw ExitCode(1)
        }
        guard (100...20_000).contains(width) else {
            CommandContext.printError("--width: between 100 and 20000 pixels, not \(width)")
            throw ExitCode(1)
        }
        return CallTreeQuery(
            range: try commandLineRange(start: from, end: to, of: trace, options: range != nil ? "--range" : "--start/--end"),
            mode: invert ? .bottomUp : .topDown, thread: thread,
            view: view.map { CallTreeQuery.ViewSelector(name: $0, module: module) },
            hideSystemLibraries: hideSystem, flattenRecursion: flatten
        )
    }

    func scopeText(trace: Trace, range: TimeRange?) -> String {
        var parts: [String] = []
        if let view { parts.append("every update of \(view)") }
        if let range { parts.append(String(format: "%.3f–%.3f s", Double(range.start) / 1e9, Double(range.end) / 1e9)) }
        if let thread, thread < trace.threads.count { parts.append(trace.threads[thread].name) }
        return parts.isEmpty ? "Whole trace" : parts.joined(separator: ", ").prefix(1).uppercased() + parts.joined(separator: ", ").dropFirst()
    }

    var transformsText: String {
        let on = [(hideSystem, "system libraries hidden"), (flatten, "recursion flattened"), (invert, "inverted")].filter(\.0).map(\.1)
        return on.isEmpty ? "" : " (\(on.joined(separator: ", ")))"
    }
}

/// Writes `text` to `path`; a failure prints the path and the reason and exits 1.
func writeOrExit(_ text: String, to path: String) throws {
    do {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    } catch {
        CommandContext.printError("\(path): \(error.localizedDescription)")
        throw ExitCode(1)
    }
}
