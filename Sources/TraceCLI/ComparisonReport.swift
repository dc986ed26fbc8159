import Foundation
import TraceModel

/// The comparison as its verdict then tables, rendered as aligned text or as Markdown (same cells
/// either way). Words for changes are the model's (`ComparisonWords`), as the browser prints them.
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
        /// Said instead of an empty table ("none"); nil leaves the table out.
        var whenEmpty: String? = "none"
        /// Markdown: one of several tables under a heading of their own (bold, not a heading).
        var underHeading: String? = nil
    }

    /// Section titles, the targets of the verdict's lines (Markdown headings: GitHub anchors them).
    private static let sectionTitles = [
        "findings": "Findings", "causes": "Causes", "views": "Views", "intervals": "Per interaction", "totals": "Frames, hitches, hangs and CPU",
        "main-actor": "Swift tasks on the Main Actor",
    ]

    func render(markdown: Bool) -> String {
        var lines: [String] = []
        let c = comparison
        // A pooled side is named by its first run and how many others it has.
        func name(_ side: ComparedTrace) -> String { side.runs > 1 ? "\(side.name) and \(side.runs - 1) more" : side.name }
        lines.append(markdown ? "### tracesvc compare: \(name(c.a)) → \(name(c.b))" : "Compare \(name(c.a)) (A, before) → \(name(c.b)) (B, after)")
        for (side, trace) in [("A", c.a), ("B", c.b)] {
            let about = [trace.app, trace.device, trace.osVersion].filter { !$0.isEmpty }.joined(separator: ", ")
            var line = "\(side): \(trace.name) (\(about)), \(Units.duration(trace.durationNs)), \(trace.updates) updates"
            if trace.runs > 1 {
                line = "\(side): \(trace.runs) runs pooled (\(trace.runNames.joined(separator: ", "))), \(about), \(trace.updates) updates in all"
            }
            if trace.start != 0 || trace.end != trace.durationNs {
                line += ", range \(Units.seconds(trace.start))–\(Units.seconds(trace.end))"
            }
            lines.append(markdown ? "- \(line)" : line)
        }
        if let mismatch = c.spanMismatch {
            let options = "--\(mismatch.side)-start \(mismatch.start) --\(mismatch.side)-end \(mismatch.end)"
            lines.append(markdown ? "- ⚠️ **spans differ**: compare again with `\(options)` to set \(mismatch.side.uppercased()) the same way"
                : "warning: the compared spans differ; compare again with \(options) to set \(mismatch.side.uppercased()) the same way")
        }
        for difference in c.differences {
            lines.append(markdown ? "- ⚠️ **differs**: \(difference)" : "warning: the traces differ in \(difference)")
        }
        // Where the spread every "faster / slower" is judged against came from (docs/statistics.md).
        lines.append(markdown ? "- Run-to-run noise: \(c.noise.text)" : "Run-to-run noise: \(c.noise.text)")
        lines.append("")
        lines.append(contentsOf: verdict(markdown: markdown))
        var heading: String?
        for table in [findingsTable, viewsTable] + intervalTables + [causesTable, totalsTable, mainActorTable, tasksTable, functionsTable] {
            guard !table.rows.isEmpty || table.whenEmpty != nil else { continue }
            if markdown, let under = table.underHeading, under != heading { lines += ["", "#### \(under)"] }
            heading = table.underHeading
            lines.append("")
            lines.append(contentsOf: markdown ? self.markdown(table) : text(table))
        }
        return lines.joined(separator: "\n")
    }

    // MARK: Verdict

    private func verdict(markdown: Bool) -> [String] {
        let lines = comparison.verdict
        if markdown {
            let marks = ["better": "✅", "worse": "❌", "neutral": "➖"]
            return ["#### Verdict", ""] + lines.map { line in
                let title = Self.sectionTitles[line.section]
                let link = title.map { " ([\($0)](#\(Self.anchor($0))))" } ?? ""
                return "- \(marks[line.tone] ?? "➖") \(escape(line.text))\(link)"
            }
        }
        let width = lines.map(\.tone.count).max() ?? 0
        return ["Verdict"] + lines.map { line in
            let see = Self.sectionTitles[line.section].map { "  (see \($0))" } ?? ""
            return "  \(line.tone.padding(toLength: width, withPad: " ", startingAt: 0))  \(line.text)\(see)"
        }
    }

    /// GitHub's anchor of a heading: lower case, spaces to hyphens, punctuation dropped.
    private static func anchor(_ title: String) -> String {
        String(title.lowercased().compactMap { $0 == " " ? "-" : ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : nil })
    }

    // MARK: Tables

    private var findingsTable: Table {
        let rows = comparison.findings.prefix(top).map { finding -> [String] in
            func side(_ presence: FindingPresence?, runs sideRuns: Int) -> String {
                guard let presence else { return "–" }
                let runs = presence.runs < sideRuns ? ", in \(presence.runs) of \(sideRuns) runs" : ""
                return "\(presence.severity.rawValue), \(plural(presence.occurrences, "occurrence")), "
                    + "\(Units.duration(presence.costNs))\(runs)"
            }
            return [finding.change.rawValue, finding.kind.rawValue, finding.subject, side(finding.a, runs: comparison.a.runs), side(finding.b, runs: comparison.b.runs)]
        }
        return Table(title: "Findings", header: ["change", "kind", "about", "A", "B"], rows: rows,
                     note: more(comparison.findings.count).first, wordColumns: [0, 1, 2, 3, 4])
    }

    private var viewsTable: Table {
        let shown = comparison.views.prefix(top)
        let header = ["Δ total", "total A → B", "count A → B", "how many", "per interaction A → B", "avg A → B", "p95 A → B", "each one", "red A → B",
                      "view (module, category)"]
        let rows = shown.map { view -> [String] in
            let rate = view.interaction.map { "\($0.label) \(number($0.a)) → \(number($0.b))" } ?? "–"
            let speed = view.speedText + (view.recordings.map { view.speedChange == .faster || view.speedChange == .slower ? " (\(RecordingEffect.signed($0.percent)))" : "" } ?? "")
            return [
                signed(view.delta.totalNs), "\(Units.duration(view.a.totalNs)) → \(Units.duration(view.b.totalNs))",
                "\(count(view.a)) → \(count(view.b))", view.countText, rate,
                "\(Units.duration(view.a.avgNs)) → \(Units.duration(view.b.avgNs))", "\(Units.duration(view.a.p95Ns)) → \(Units.duration(view.b.p95Ns))",
                speed.isEmpty ? "–" : speed, "\(view.a.red) → \(view.b.red)",
                "\(view.view) (\(view.module)\(view.category.isEmpty ? "" : ", \(view.category)"))",
            ]
        }
        let runs = comparison.a.runs > 1 || comparison.b.runs > 1
        let note = [
            "how many: fewer/more when the count\(runs ? " per run" : "") changed by at least 2 and more than 10%\(runs ? " and every run is beyond every run of the other side" : "")",
            "each one: faster/slower per body or update when each recording's mean is beyond run-to-run noise (docs/statistics.md)",
        ] + framesNote + more(comparison.views.count)
        return Table(title: "Views", header: header, rows: rows, note: note.joined(separator: "; "), wordColumns: [3, 4, 7, 9])
    }

    /// Says why a row reads "more frames drawn" instead of more updates.
    private var framesNote: [String] {
        guard comparison.views.prefix(top).contains(where: { $0.countChange == .followsFrames }) else { return [] }
        let frames = comparison.frames
        return ["more/fewer frames drawn = the count followed the frames drawn (\(frames.a) → \(frames.b)) at the same time per update: not a regression"]
    }

    /// One table per signpost name: its measures per interval, then bodies per interval by view.
    private var intervalTables: [Table] {
        let perRun = comparison.a.runs > 1 || comparison.b.runs > 1 ? " per run" : ""
        return comparison.intervals.prefix(top).map { interval in
            // A measure that is zero on both sides (no hitches in any interval) says nothing.
            var rows = interval.measures.filter { ($0.a ?? 0) != 0 || ($0.b ?? 0) != 0 }.map { measure -> [String] in
                let isTime = measure.unit == "nanoseconds"
                func value(_ x: Double?) -> String { x.map { isTime ? Units.duration(Int64($0.rounded())) : number($0) } ?? "–" }
                let test = measure.recordings?.text ?? measure.counts?.text ?? "too few intervals to test"
                return [measure.name.replacingOccurrences(of: "-", with: " "), "\(value(measure.a)) → \(value(measure.b))",
                        "\(value(measure.medianA)) → \(value(measure.medianB))", measure.changeText, test]
            }
            rows += interval.views.map { rate in
                ["\(rate.view) bodies", "\(number(rate.a)) → \(number(rate.b))", "", "", ""]
            }
            let place = [interval.subsystem, interval.category].filter { !$0.isEmpty }.joined(separator: ", ")
            return Table(
                title: "Per interaction: \(interval.name) (\(interval.intervalsA) → \(interval.intervalsB) intervals\(perRun)\(place.isEmpty ? "" : "; \(place)"))",
                header: ["per interval", "mean A → B", "median A → B", "change", "test"], rows: rows,
                note: interval.viewsComplete ? nil : "bodies by view cover only some intervals (very many overlapping intervals)",
                wordColumns: [0, 3, 4], whenEmpty: nil, underHeading: "Per interaction"
            )
        }
    }

    private var causesTable: Table {
        let shown = comparison.causes.prefix(top)
        let rows = shown.map { cause -> [String] in
            let property = cause.property.isEmpty ? "" : " (\(cause.property))"
            let skipped = cause.outcome == "skipped"
            func side(_ fanOut: CauseFanOutSide?) -> String {
                fanOut.map { "\($0.fanOut) per event, \(plural($0.events, "event")), \(plural($0.updates, skipped ? "notification" : "update"))" } ?? "–"
            }
            let target = skipped ? "\(cause.target) (notified, did not run)" : cause.target
            return [cause.change.rawValue, "\(cause.source)\(property) → \(target)", side(cause.a), side(cause.b)]
        }
        return Table(title: "Causes", header: ["change", "cause event → bodies it made run (or notified)", "A", "B"], rows: rows,
                     note: more(comparison.causesTotal).first, wordColumns: [0, 1, 2, 3])
    }

    private var totalsTable: Table {
        let names = ["updates": "Updates", "hitches": "Hitches", "hangs": "Hangs", "cpu": "CPU samples"]
        var rows = comparison.totals.map { total in
            [names[total.name] ?? total.name, "\(count(total.a)) → \(count(total.b))", "\(Units.duration(total.a.totalNs)) → \(Units.duration(total.b.totalNs))",
             signed(total.totalNsDelta), ""]
        }
        let frames = comparison.frames
        rows.insert(["Frames drawn", "\(frames.a) → \(frames.b)", "", "", frames.changeText], at: 1)
        return Table(title: "Frames, hitches, hangs and CPU", header: ["", "count A → B", "time A → B", "Δ time", "change"], rows: rows, note: nil,
                     wordColumns: [0, 4])
    }

    /// Neither trace recorded Swift tasks: their tables are left out.
    private var hasTasks: Bool { !comparison.tasks.isEmpty }

    private var mainActorTable: Table {
        let rows = comparison.mainActor.map { row in
            let counts = row.countA.map { a in "\(a) → \(row.countB ?? 0)" } ?? ""
            return [row.title, counts, "\(Units.duration(row.a)) → \(Units.duration(row.b))", signed(row.deltaNs), row.changeText]
        }
        return Table(title: "Swift tasks on the Main Actor", header: ["", "count A → B", "time A → B", "Δ time", "change"], rows: hasTasks ? rows : [],
                     note: nil, wordColumns: [0, 4], whenEmpty: nil)
    }

    private var tasksTable: Table {
        let rows = comparison.tasks.prefix(top).map { task in
            [signed(task.mainActorDeltaNs), "\(Units.duration(task.a.running)) → \(Units.duration(task.b.running))",
             "\(Units.duration(task.a.waiting)) → \(Units.duration(task.b.waiting))",
             "\(Units.duration(task.a.longestWait)) → \(Units.duration(task.b.longestWait))", task.changeText, "\(task.function) on \(task.actor.isEmpty ? "?" : task.actor)"]
        }
        return Table(title: "Swift tasks by resume function and actor (Δ: time on or waiting for the Main Actor)",
                     header: ["Δ", "running A → B", "waiting A → B", "longest wait A → B", "change", "resume function on actor"], rows: rows,
                     note: more(comparison.tasks.count).first, wordColumns: [4, 5], whenEmpty: nil)
    }

    private var functionsTable: Table {
        let rows = comparison.functions.prefix(top).map { function in
            [signed(function.deltaNs), "\(Units.duration(function.aSelfNs)) → \(Units.duration(function.bSelfNs))", "\(function.name) (\(function.binary))" + (function.source.map { " — \($0.shortText)" } ?? "")]
        }
        return Table(title: "Top self-time changes (CPU)", header: ["Δ self", "self A → B", "function (binary)"], rows: rows,
                     note: more(comparison.functionsTotal).first, wordColumns: [2])
    }

    // MARK: Rendering

    private func text(_ table: Table) -> [String] {
        guard !table.rows.isEmpty else { return ["\(table.title): \(table.whenEmpty ?? "none")"] }
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
        // Under its heading a table's title drops the heading's words: "**Add to Cart (10 → 10 intervals)**".
        let title = table.underHeading.map { under in
            "**\(escape(table.title.hasPrefix(under + ": ") ? String(table.title.dropFirst(under.count + 2)) : table.title))**"
        } ?? "#### \(table.title)"
        guard !table.rows.isEmpty else { return [title, "", table.whenEmpty ?? "none"] }
        func line(_ cells: [String]) -> String { "| " + cells.map(escape).joined(separator: " | ") + " |" }
        var lines = [title, "", line(table.header), "|" + table.header.map { _ in "---|" }.joined()]
        lines += table.rows.map(line)
        if let note = table.note, !note.isEmpty { lines += ["", "_\(note)_"] }
        return lines
    }

    private func escape(_ cell: String) -> String { cell.replacingOccurrences(of: "|", with: "\\|") }

    private func signed(_ ns: Nanoseconds) -> String { (ns > 0 ? "+" : ns < 0 ? "-" : "±") + Units.duration(ns == .min ? .max : abs(ns)) }

    /// "12", "1.5", "0.03", "–" (nil).
    private func number(_ value: Double?) -> String {
        guard let value else { return "–" }
        if value == value.rounded() { return String(Int(value)) }
        return String(format: abs(value) < 0.1 ? "%.2f" : "%.1f", value)
    }

    /// "36", or a pooled side's mean with its runs' least and most when they differ: "36 (35–37)".
    private func count(_ stats: ComparedViewStats) -> String {
        stats.spread.flatMap { $0.countMin == $0.countMax ? nil : "\(stats.count) (\($0.countMin)–\($0.countMax))" } ?? "\(stats.count)"
    }

    private func count(_ total: ComparedTotal) -> String {
        total.spread.flatMap { $0.countMin == $0.countMax ? nil : "\(total.count) (\($0.countMin)–\($0.countMax))" } ?? "\(total.count)"
    }

    private func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    private func more(_ count: Int) -> [String] { count > top ? ["\(count - top) more rows (--top)"] : [] }
}
