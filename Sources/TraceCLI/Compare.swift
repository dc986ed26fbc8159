import ArgumentParser
import Foundation
import TraceModel

struct Compare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare trace A (before) with trace B (after): views, cause fan-outs, hitches, hangs, CPU self time.",
        discussion: """
            Deltas are B minus A. Rows marked "~" changed within noise (docs/api.md, "Compare two traces").
              tracesvc compare before.json after.json
              tracesvc compare before.json after.json --format markdown > comment.md
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, markdown }

    @Argument(help: "Trace A, before the change (native JSON, .json.gz or xctrace export XML).")
    var before: String

    @Argument(help: "Trace B, after the change.")
    var after: String

    @Option(help: "text, json (the API's shape) or markdown (for a pull request comment).")
    var format: Format = .text

    @Option(name: .customLong("a-start"), help: "Only what overlaps A from here, from its recording's start (\"1s\", \"1.5 s\", \"250 ms\", or ns).")
    var aStart: DurationOption?
    @Option(name: .customLong("a-end"), help: "... up to here.")
    var aEnd: DurationOption?
    @Option(name: .customLong("b-start"), help: "Only what overlaps B from here.")
    var bStart: DurationOption?
    @Option(name: .customLong("b-end"), help: "... up to here.")
    var bEnd: DurationOption?

    @Option(help: "Rows per table (text and markdown).")
    var top = 10

    func run() async throws {
        let a = try readTraceOrExit(before), b = try readTraceOrExit(after)
        let comparison = TraceComparison(
            before: a, after: b,
            beforeRange: try commandLineRange(start: aStart, end: aEnd, of: a, options: "--a-start/--a-end"),
            afterRange: try commandLineRange(start: bStart, end: bEnd, of: b, options: "--b-start/--b-end")
        )
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

/// The comparison as tables, rendered as aligned text or as Markdown (same cells either way).
struct ComparisonReport {
    var comparison: TraceComparison
    var top: Int

    private struct Table {
        var title: String
        var header: [String]
        var rows: [[String]]
        /// Note printed under the table when rows were left out or to explain marks.
        var note: String?
        /// Columns of words (left-aligned in text); the others are numbers (right-aligned).
        var wordColumns: Set<Int> = []
        /// A table about data neither trace has (Swift tasks) is left out.
        var shown = true
    }

    func render(markdown: Bool) -> String {
        var lines: [String] = []
        let c = comparison
        lines.append(markdown ? "### tracesvc compare: \(c.a.name) → \(c.b.name)" : "Compare \(c.a.name) (A, before) → \(c.b.name) (B, after)")
        for (side, trace) in [("A", c.a), ("B", c.b)] {
            let about = [trace.app, trace.device, trace.osVersion].filter { !$0.isEmpty }.joined(separator: ", ")
            var line = "\(side): \(trace.name) (\(about)), \(Units.duration(trace.durationNs)), \(trace.updates) updates"
            if trace.start != 0 || trace.end != trace.durationNs {
                line += ", range \(Units.seconds(trace.start))–\(Units.seconds(trace.end))"
            }
            lines.append(markdown ? "- \(line)" : line)
        }
        for difference in c.differences {
            lines.append(markdown ? "- ⚠️ **differs**: \(difference)" : "warning: the traces differ in \(difference)")
        }
        for table in [viewsTable, causesTable, totalsTable, mainActorTable, tasksTable, functionsTable] where table.shown {
            lines.append("")
            lines.append(contentsOf: markdown ? self.markdown(table) : text(table))
        }
        return lines.joined(separator: "\n")
    }

    private var viewsTable: Table {
        let shown = comparison.views.prefix(top)
        let perInteraction = comparison.interactions.first { $0.a > 0 && $0.b > 0 }
        var header = ["Δ total", "Δ %", "total A → B", "count A → B", "avg A → B", "p95 A → B", "red A → B", "change", "view (module, category)"]
        if let perInteraction { header.insert("per \(perInteraction.label) A → B", at: 4) }
        let rows = shown.map { view -> [String] in
            var cells = [
                signed(view.delta.totalNs), view.delta.totalPercent.map { String(format: "%+.0f%%", $0) } ?? "new",
                "\(Units.duration(view.a.totalNs)) → \(Units.duration(view.b.totalNs))", "\(view.a.count) → \(view.b.count)",
                "\(Units.duration(view.a.avgNs)) → \(Units.duration(view.b.avgNs))", "\(Units.duration(view.a.p95Ns)) → \(Units.duration(view.b.p95Ns))",
                "\(view.a.red) → \(view.b.red)", view.changeText + (view.significant || view.change == .unchanged || view.change == .followsFrames ? "" : " ~"),
                "\(view.view) (\(view.module)\(view.category.isEmpty ? "" : ", \(view.category)"))",
            ]
            if let perInteraction {
                let rate = view.perInteraction.first { $0.label == perInteraction.label }
                cells.insert("\(rate?.a.map(number) ?? "0") → \(rate?.b.map(number) ?? "0")", at: 4)
            }
            return cells
        }
        return Table(
            title: "Views by change of total time", header: header, rows: rows,
            note: (["~ = within noise (Mann-Whitney U on durations, p ≥ 0.05, and count within 10%)"] + framesNote + more(comparison.views.count)).joined(separator: "; "),
            wordColumns: [header.count - 2, header.count - 1]
        )
    }

    /// Says why a row reads "more frames drawn" instead of slower.
    private var framesNote: [String] {
        guard comparison.views.prefix(top).contains(where: { $0.change == .followsFrames }) else { return [] }
        let frames = comparison.frames
        return ["more/fewer frames drawn = the count followed the frames drawn (\(frames.a) → \(frames.b)) at the same time per update: not a regression"]
    }

    private var causesTable: Table {
        let shown = comparison.causes.prefix(top)
        let rows = shown.map { cause -> [String] in
            let property = cause.property.isEmpty ? "" : " (\(cause.property))"
            func side(_ fanOut: CauseFanOutSide?) -> String {
                fanOut.map { "\($0.fanOut) per event, \(plural($0.events, "event")), \(plural($0.updates, "update"))" } ?? "–"
            }
            return [cause.change.rawValue, "\(cause.source)\(property) → \(cause.target)", side(cause.a), side(cause.b)]
        }
        return Table(title: "Causes (cause event → bodies it made run)", header: ["change", "fan-out", "A", "B"], rows: rows,
                     note: more(comparison.causesTotal).first, wordColumns: [0, 1, 2, 3])
    }

    private var totalsTable: Table {
        let names = ["updates": "Updates", "hitches": "Hitches", "hangs": "Hangs", "cpu": "CPU samples"]
        var rows = comparison.totals.map { total in
            [names[total.name] ?? total.name, "\(total.a.count) → \(total.b.count)", "\(Units.duration(total.a.totalNs)) → \(Units.duration(total.b.totalNs))", signed(total.totalNsDelta), ""]
        }
        let frames = comparison.frames
        rows.insert(["Frames drawn", "\(frames.a) → \(frames.b)", "", "", frames.changeText], at: 1)
        return Table(title: "Frames, hitches, hangs and CPU", header: ["", "count A → B", "time A → B", "Δ time", "change"], rows: rows, note: nil, wordColumns: [0, 4])
    }

    private var hasTasks: Bool { !comparison.tasks.isEmpty }

    private var mainActorTable: Table {
        let rows = comparison.mainActor.map { row in
            let counts = row.countA.map { a in "\(a) → \(row.countB ?? 0)" } ?? ""
            return [row.title, counts, "\(Units.duration(row.a)) → \(Units.duration(row.b))", signed(row.deltaNs), row.changeText]
        }
        return Table(title: "Swift tasks on the Main Actor", header: ["", "count A → B", "time A → B", "Δ time", "change"], rows: rows,
                     note: nil, wordColumns: [0, 4], shown: hasTasks)
    }

    private var tasksTable: Table {
        let rows = comparison.tasks.prefix(top).map { task in
            [signed(task.mainActorDeltaNs), "\(Units.duration(task.a.running)) → \(Units.duration(task.b.running))",
             "\(Units.duration(task.a.waiting)) → \(Units.duration(task.b.waiting))",
             "\(Units.duration(task.a.longestWait)) → \(Units.duration(task.b.longestWait))", task.changeText, "\(task.function) on \(task.actor.isEmpty ? "?" : task.actor)"]
        }
        return Table(title: "Swift tasks by resume function and actor (Δ: time on or waiting for the Main Actor)",
                     header: ["Δ", "running A → B", "waiting A → B", "longest wait A → B", "change", "resume function on actor"], rows: rows,
                     note: more(comparison.tasks.count).first, wordColumns: [4, 5], shown: hasTasks)
    }

    private var functionsTable: Table {
        let rows = comparison.functions.prefix(top).map { function in
            [signed(function.deltaNs), "\(Units.duration(function.aSelfNs)) → \(Units.duration(function.bSelfNs))", "\(function.name) (\(function.binary))"]
        }
        return Table(title: "Top self-time changes (CPU)", header: ["Δ self", "self A → B", "function (binary)"], rows: rows,
                     note: more(comparison.functionsTotal).first, wordColumns: [2])
    }

    // MARK: Rendering

    private func text(_ table: Table) -> [String] {
        guard !table.rows.isEmpty else { return ["\(table.title): none"] }
        let widths = table.header.indices.map { column in ([table.header] + table.rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                if column == cells.count - 1 { return table.wordColumns.contains(column) ? cell : padding + cell }
                return table.wordColumns.contains(column) ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        var lines = [table.title, "  " + line(table.header)]
        lines += table.rows.map { "  " + line($0) }
        if let note = table.note, !note.isEmpty { lines.append("  \(note)") }
        return lines
    }

    private func markdown(_ table: Table) -> [String] {
        guard !table.rows.isEmpty else { return ["**\(table.title)**: none"] }
        func escape(_ cell: String) -> String { cell.replacingOccurrences(of: "|", with: "\\|") }
        func line(_ cells: [String]) -> String { "| " + cells.map(escape).joined(separator: " | ") + " |" }
        var lines = ["**\(table.title)**", "", line(table.header), "|" + table.header.map { _ in "---|" }.joined()]
        lines += table.rows.map(line)
        if let note = table.note, !note.isEmpty { lines += ["", "_\(note)_"] }
        return lines
    }

    private func signed(_ ns: Nanoseconds) -> String { (ns > 0 ? "+" : ns < 0 ? "-" : "±") + Units.duration(ns == .min ? .max : abs(ns)) }

    private func number(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value) }

    private func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    private func more(_ count: Int) -> [String] { count > top ? ["\(count - top) more rows (--top)"] : [] }
}
