import ArgumentParser
import Foundation
import TraceModel

struct Compare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare trace A (before) with trace B (after): verdict, findings, views, interactions, cause fan-outs, hitches, hangs, CPU.",
        discussion: """
            Deltas are B minus A. Several recordings a side are pooled (counts per run, with their
            spread; every duration and interval in the tests): give A's, then B's after `--`.
            Options go before `--`. docs/api.md ("Compare two traces") has the rules.
              tracesvc compare before.json after.json
              tracesvc compare before.json after.json --format markdown > comment.md
              tracesvc compare --format json a1.json a2.json a3.json -- b1.json b2.json
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, markdown }

    /// As typed, with the `--` between A's recordings and B's (ArgumentParser keeps it in an
    /// `allUnrecognized` array; two positional arrays cannot be declared).
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp(
        "Trace A then trace B (native JSON, .json.gz or xctrace export XML); or A's recordings, `--`, then B's.",
        valueName: "trace"
    ))
    var traces: [String] = []

    @Option(help: "text, json (the API's shape) or markdown (for a pull request comment).")
    var format: Format = .text

    @Option(name: .customLong("a-start"), help: "Only what overlaps A from here, from its recording's start (one recording a side; \"1s\", \"1.5 s\", \"250 ms\", or ns).")
    var aStart: DurationOption?
    @Option(name: .customLong("a-end"), help: "... up to here.")
    var aEnd: DurationOption?
    @Option(name: .customLong("b-start"), help: "Only what overlaps B from here.")
    var bStart: DurationOption?
    @Option(name: .customLong("b-end"), help: "... up to here.")
    var bEnd: DurationOption?

    @Option(help: "Rows per table (text and markdown).")
    var top = 10

    @Option(help: "Also write the differential flame graph to this SVG file: B's flame graph coloured by each frame's change of self time per run against A, the functions that went away beside it.")
    var flamegraph: String?

    @Flag(help: "With --flamegraph: colour by the change of self share of each side's CPU instead of self time per run.")
    var flamegraphByShare = false

    @Option(help: "With --flamegraph: only the samples inside every update of this view, each stack from its body frame.")
    var flamegraphView: String?

    @Option(help: "With --flamegraph: the picture's width in pixels.")
    var flamegraphWidth = 1200

    /// A's paths and B's.
    var sides: (a: [String], b: [String]) {
        guard let separator = traces.firstIndex(of: "--") else { return (Array(traces.prefix(1)), Array(traces.dropFirst())) }
        return (Array(traces[..<separator]), Array(traces[(separator + 1)...]))
    }

    func validate() throws {
        // The array takes what ArgumentParser did not recognize: an unknown option lands here.
        if let unknown = traces.first(where: { $0.hasPrefix("-") && $0 != "--" && $0 != "-" }) {
            let afterSeparator = traces.firstIndex(of: "--").map { traces[$0...].contains(unknown) } ?? false
            throw ValidationError(afterSeparator ? "Options go before `--`: '\(unknown)' would be read as a trace." : "Unknown option '\(unknown)'.")
        }
        if traces.filter({ $0 == "--" }).count > 1 { throw ValidationError("Give `--` once, between A's recordings and B's.") }
        let (a, b) = sides
        if !traces.contains("--"), traces.count != 2 {
            throw ValidationError(traces.count < 2
                ? "Give trace A and trace B (or A's recordings, `--`, then B's)."
                : "\(traces.count) traces: to pool several recordings a side, give A's, then `--`, then B's.")
        }
        if a.isEmpty { throw ValidationError("Give at least one recording of A before `--`.") }
        if b.isEmpty { throw ValidationError("Give at least one recording of B after `--`.") }
        if (aStart != nil || aEnd != nil) && a.count > 1 || (bStart != nil || bEnd != nil) && b.count > 1 {
            throw ValidationError("--a-start/--a-end and --b-start/--b-end apply to one recording a side.")
        }
    }

    func run() async throws {
        let (pathsA, pathsB) = sides
        let tracesA = try pathsA.map(readTraceOrExit), tracesB = try pathsB.map(readTraceOrExit)
        let rangeA = try commandLineRange(start: aStart, end: aEnd, of: tracesA[0], options: "--a-start/--a-end")
        let rangeB = try commandLineRange(start: bStart, end: bEnd, of: tracesB[0], options: "--b-start/--b-end")
        let comparison = TraceComparison(
            .pooled(tracesA.map { $0.comparisonSide(in: rangeA) }), .pooled(tracesB.map { $0.comparisonSide(in: rangeB) })
        )
        if let mismatch = comparison.spanMismatch {
            // Said first, whatever the format: the verdict below calls nothing better or worse.
            CommandContext.printError("warning: \(mismatch.text) (--\(mismatch.side)-start \(mismatch.start) --\(mismatch.side)-end \(mismatch.end))")
        }
        if let flamegraph {
            try writeFlameGraph(a: tracesA, b: tracesB, comparison: comparison, to: flamegraph)
        }
        switch format {
        case .json:
            let encoder = JSONEncoder()
            // Sorted keys: the same comparison prints the same bytes (diffable, as inspect's).
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            CommandContext.print(String(decoding: try encoder.encode(comparison), as: UTF8.self))
        case .text: CommandContext.print(ComparisonReport(comparison: comparison, top: top).render(markdown: false))
        case .markdown: CommandContext.print(ComparisonReport(comparison: comparison, top: top).render(markdown: true))
        }
    }
}

extension Compare {
    /// Several recordings a side: pooled (merged by frame names, weights per run).
    private func writeFlameGraph(a: [Trace], b: [Trace], comparison: TraceComparison, to path: String) throws {
        guard (100...20_000).contains(flamegraphWidth) else {
            CommandContext.printError("--flamegraph-width: between 100 and 20000 pixels, not \(flamegraphWidth)")
            throw ExitCode(1)
        }
        let view = flamegraphView.map { CallTreeQuery.ViewSelector(name: $0, module: nil) }
        for (side, traces) in [("A", a), ("B", b)] where Set(traces.map(\.metadata.cpuWeightUnit)).count > 1 {
            CommandContext.printError("--flamegraph: the recordings of \(side) weigh their samples in different units (time and cycles): their means mean nothing")
            throw ExitCode(1)
        }
        let before = CallTreeQuery(range: try commandLineRange(start: aStart, end: aEnd, of: a[0], options: "--a-start/--a-end"), view: view)
        let after = CallTreeQuery(range: try commandLineRange(start: bStart, end: bEnd, of: b[0], options: "--b-start/--b-end"), view: view)
        let diff = Trace.differentialFlameGraph(before: a, after: b, DifferentialFlameGraphQuery(before: before, after: after, width: flamegraphWidth - FlameGraphSVG.removedWidth))
        let scope = (flamegraphView.map { "\($0)'s bodies" } ?? "the compared ranges")
            + (a.count > 1 || b.count > 1 ? ", per run of \(a.count) recordings of A and \(b.count) of B" : "")
        let svg = FlameGraphSVG(
            graph: diff.graph, diff: diff, title: "\(comparison.a.name) → \(comparison.b.name): CPU, B against A",
            subtitle: "B's flame graph of \(scope) (\(FlameGraphCommand.weight(diff.graph.totalWeight, diff.graph.unit)), \(diff.graph.sampleCount) samples; "
                + "A \(FlameGraphCommand.weight(diff.beforeTotal, diff.beforeUnit)), \(diff.beforeSamples) samples), coloured by each frame's change of self \(flamegraphByShare ? "share" : "time\(a.count > 1 || b.count > 1 ? " per run" : "")")",
            colorByShare: flamegraphByShare
        ).render(width: flamegraphWidth)
        try writeOrExit(svg, to: path)
        CommandContext.printError("wrote \(path): \(diff.graph.frames.count) frames of B, \(diff.removedCount) functions gone since A")
    }
}
