import Foundation
import TraceAgent
import TraceModel

/// What `tracesvc check` found, in each of its output formats.
struct CheckReport {
    var trace: String
    var baseline: String?
    /// The budget file as given: GitHub annotations point at the line of a rule that failed.
    var budgetFile: String? = nil
    var results: [BudgetResult]
    /// `--source-root`: stripped from a finding's file so that its annotation points into the repository.
    var sourceRoot: String? = nil
    /// Set when the traces were uploaded with --server.
    var links: ShareLinks?

    var passed: Bool { results.allSatisfy(\.passed) }
    var failures: [BudgetResult] { results.filter { !$0.passed } }

    var verdict: String {
        passed
            ? "within budget: \(results.count) \(results.count == 1 ? "rule" : "rules") passed"
            : "\(failures.count) of \(results.count) \(results.count == 1 ? "rule" : "rules") failed"
    }

    // MARK: Values

    static func format(_ value: Int64, _ unit: BudgetUnit) -> String {
        switch unit {
        case .count: "\(value)"
        case .nanoseconds: Units.duration(value)
        case .percent: "\(value >= 0 ? "+" : "")\(value) %"
        }
    }

    /// "87 (limit 0)", "-92 % in LandmarkListItemView (limit +10 %)".
    static func measuredText(_ result: BudgetResult) -> String {
        "\(format(result.measured, result.unit))" + (result.measuredIn.map { " in \($0)" } ?? "") + " (limit \(format(result.limit, result.unit)))"
    }

    /// One line about an offender: "Landmarks LandmarkListItemView: 87; updates 12, 40, 41 … (87 in all)".
    func offenderLine(_ offender: BudgetOffender, in result: BudgetResult) -> String {
        var line = offender.module.map { "\(offender.title) (\($0))" } ?? offender.title
        if let source = offender.source { line += " — \(source.shortText)" }
        if let span = offender.span {
            line += " at \(Units.seconds(span.start)), \(Units.duration(span.duration))"
        } else {
            line += ": \(Self.format(offender.measured, result.unit))"
        }
        if let change = offender.change {
            line += "; \(change.countBefore) → \(change.countAfter) bodies, \(Units.duration(change.totalBefore)) → \(Units.duration(change.totalAfter))"
            if let effect = change.timeEffect { line += ", time per body \(effect.text)" }
        }
        if !offender.updates.isEmpty {
            let ids = offender.updates.prefix(8).map(String.init).joined(separator: ", ")
            let what = offender.span == nil ? "updates" : "updates during it"
            line += "; \(what) \(ids)" + (offender.updateCount > 8 ? " … (\(offender.updateCount) in all)" : "")
        }
        return line
    }

    // MARK: Text

    func text(colors: Bool) -> String {
        func paint(_ text: String, _ code: String) -> String { colors ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
        var lines = ["tracesvc check \(trace)" + (baseline.map { " against baseline \($0)" } ?? "") + ": "
            + paint(verdict, passed ? "32" : "31")]
        for result in results {
            let status = result.passed ? paint("PASS", "32") : paint("FAIL", "31")
            lines.append("  \(status)  \(result.name): \(Self.measuredText(result))")
            for offender in result.offenders {
                lines.append("        " + offenderLine(offender, in: result))
                if let link = links?.link(for: offender, in: result) { lines.append("          \(link)") }
            }
            for note in result.notes { lines.append("        note: \(note)") }
        }
        if let links {
            lines.append("Trace: \(links.trace)")
            if let comparison = links.comparison { lines.append("Comparison with the baseline: \(comparison)") }
        }
        return lines.joined(separator: "\n")
    }

    // MARK: JSON

    var json: String {
        // Absent values are null, as in the API.
        struct Document: Encodable {
            var trace: String
            @NullWhenAbsent var baseline: String?
            var passed: Bool
            @NullWhenAbsent var links: Links?
            var results: [Result]
        }
        struct Links: Encodable { var trace: String; @NullWhenAbsent var baseline: String?; @NullWhenAbsent var comparison: String? }
        struct Result: Encodable {
            var name: String, metric: String, unit: String, measured: Int64, limit: Int64, passed: Bool
            var offenders: [Offender]
            var notes: [String]
        }
        struct Offender: Encodable {
            var title: String
            @NullWhenAbsent var module: String?
            @NullWhenAbsent var view: String?
            var measured: Int64
            var updates: [Int], updateCount: Int
            @NullWhenAbsent var start: Int64?
            @NullWhenAbsent var duration: Int64?
            @NullWhenAbsent var countBefore: Int?
            @NullWhenAbsent var countAfter: Int?
            @NullWhenAbsent var totalBefore: Int64?
            @NullWhenAbsent var totalAfter: Int64?
            @NullWhenAbsent var pValue: Double?
            /// The time per body over recordings when it decided (`RecordingEffect`).
            @NullWhenAbsent var timeEffect: RecordingEffect?
            /// Main-actor rules: the task's interval, a row for `…/task-states/{row}`.
            @NullWhenAbsent var taskState: Int?
            @NullWhenAbsent var link: String?
        }
        let document = Document(
            trace: trace, baseline: baseline, passed: passed,
            links: links.map { Links(trace: $0.trace, baseline: $0.baselineTrace, comparison: $0.comparison) },
            results: results.map { result in
                Result(
                    name: result.name, metric: result.metric, unit: result.unit.rawValue, measured: result.measured, limit: result.limit,
                    passed: result.passed, offenders: result.offenders.map { offender in
                        Offender(
                            title: offender.title, module: offender.module, view: offender.view, measured: offender.measured,
                            updates: offender.updates, updateCount: offender.updateCount,
                            start: offender.span?.start, duration: offender.span?.duration,
                            countBefore: offender.change?.countBefore, countAfter: offender.change?.countAfter,
                            totalBefore: offender.change?.totalBefore, totalAfter: offender.change?.totalAfter,
                            pValue: offender.change?.pValue, timeEffect: offender.change?.timeEffect, taskState: offender.taskState, link: links?.link(for: offender, in: result)
                        )
                    },
                    notes: result.notes
                )
            }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs cannot fail.
        return String(decoding: (try? encoder.encode(document)) ?? Data(), as: UTF8.self)
    }

    // MARK: JUnit XML

    /// One test case per rule, failures with the offenders as text, so any CI lists them.
    var junit: String {
        let suite = xmlEscaped(trace)
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="tracesvc check" tests="\#(results.count)" failures="\#(failures.count)">"#,
            #"  <testsuite name="\#(suite)" tests="\#(results.count)" failures="\#(failures.count)" errors="0" skipped="0">"#,
        ]
        for result in results {
            let open = #"    <testcase classname="tracesvc.check.\#(suite)" name="\#(xmlEscaped(result.name))""#
            if result.passed && result.notes.isEmpty {
                lines.append(open + "/>")
                continue
            }
            lines.append(open + ">")
            if !result.passed {
                let message = "\(result.metric): \(Self.measuredText(result))"
                lines.append(#"      <failure message="\#(xmlEscaped(message))" type="\#(xmlEscaped(result.metric))">\#(xmlEscaped(details(result)))</failure>"#)
            }
            if !result.notes.isEmpty {
                lines.append("      <system-out>\(xmlEscaped(result.notes.map { "note: \($0)" }.joined(separator: "\n")))</system-out>")
            }
            lines.append("    </testcase>")
        }
        lines += ["  </testsuite>", "</testsuites>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The offenders of a failed rule, one per line, with links.
    private func details(_ result: BudgetResult) -> String {
        var lines: [String] = []
        for offender in result.offenders {
            lines.append(offenderLine(offender, in: result))
            if let link = links?.link(for: offender, in: result) { lines.append("  \(link)") }
        }
        if let links { lines.append("Trace: \(links.trace)") }
        return lines.joined(separator: "\n")
    }

    // MARK: GitHub Actions

    /// `::error title=...::...` for each failed rule, `::warning` for each note.
    var githubAnnotations: String {
        var lines: [String] = []
        for result in results {
            let title = Self.annotationProperty("tracesvc check: \(result.name)")
            var place = ""
            if let budgetFile, let line = result.line {
                place = "file=\(Self.annotationProperty(budgetFile)),line=\(line),"
            }
            if !result.passed {
                let body = ([Self.measuredText(result)] + details(result).split(separator: "\n").map(String.init)).joined(separator: "\n")
                lines.append("::error \(place)title=\(title)::\(Self.annotationData(body))")
                // A finding whose frame has a source (Instruments 27) is annotated at that file and line too.
                for offender in result.offenders {
                    guard let source = offender.source else { continue }
                    var path = source.path
                    if let root = sourceRoot.map({ $0.hasSuffix("/") ? $0 : $0 + "/" }), path.hasPrefix(root) { path.removeFirst(root.count) }
                    let line = source.line > 0 ? ",line=\(source.line)" : ""
                    lines.append("::error file=\(Self.annotationProperty(path))\(line),title=\(title)::\(Self.annotationData(offender.title))")
                }
            }
            for note in result.notes {
                lines.append("::warning \(place)title=\(title)::\(Self.annotationData(note))")
            }
        }
        if passed { lines.append("::notice title=tracesvc check::\(Self.annotationData("\(trace): \(verdict)"))") }
        return lines.joined(separator: "\n") + "\n"
    }

    static func annotationData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    static func annotationProperty(_ text: String) -> String {
        annotationData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    /// The job summary: a table of rules, then what failed with links.
    var markdown: String {
        func cell(_ text: String) -> String {
            text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
        }
        var lines = [
            "### tracesvc check: \(passed ? "✅" : "❌") \(cell(trace))" + (baseline.map { " against \(cell($0))" } ?? ""),
            "",
            "\(verdict).",
            "",
            "| | Rule | Measured | Limit |",
            "|---|---|---:|---:|",
        ]
        for result in results {
            lines.append("| \(result.passed ? "✅" : "❌") | \(cell(result.name)) | \(Self.format(result.measured, result.unit)) | \(Self.format(result.limit, result.unit)) |")
        }
        for result in failures {
            lines += ["", "#### ❌ \(cell(result.name))", ""]
            for offender in result.offenders {
                let line = cell(offenderLine(offender, in: result))
                lines.append("- " + (links?.link(for: offender, in: result).map { "[\(line)](\($0))" } ?? line))
            }
            for note in result.notes { lines.append("- note: \(cell(note))") }
        }
        if let links {
            lines += ["", "[Open the trace](\(links.trace))" + (links.comparison.map { " · [Compare with the baseline](\($0))" } ?? "")]
        }
        return lines.joined(separator: "\n") + "\n\n"
    }
}

/// Where the report's links point: the server check uploaded to and the traces' ids there.
struct ShareLinks {
    /// The server's root URL, without a trailing slash.
    var server: String
    var traceID: String
    /// The baseline's recordings (none without --baseline).
    var baselineIDs: [String] = []

    var trace: String { server + ShareLink.trace(traceID) }
    var baselineTrace: String? { baselineIDs.first.map { server + ShareLink.trace($0) } }
    var comparison: String? { baselineIDs.isEmpty ? nil : server + ShareLink.comparison(baselineIDs, [traceID]) }

    /// A hang's or hitch's span on the timeline (with some room around it), with a Swift task's
    /// interval selected (its details in the side panel); a cause event's or a finding's update in
    /// the cause graph; a view's updates pane.
    func link(for offender: BudgetOffender, in result: BudgetResult) -> String? {
        if let span = offender.span {
            let margin = max(span.duration / 2, 5_000_000)
            return server + ShareLink.trace(traceID, .init(window: (span.start - margin)...(span.end + margin), taskState: offender.taskState))
        }
        let showsCause = [BudgetMetric.fanOut.rawValue, BudgetMetric.findings.rawValue].contains(result.metric)
        if showsCause, let update = offender.updates.first {
            return server + ShareLink.trace(traceID, .init(update: update, pane: "graph", graph: "u\(update)"))
        }
        if let module = offender.module, let view = offender.view {
            return server + ShareLink.trace(traceID, .init(pane: "updates", paneView: (module, view, "")))
        }
        return nil
    }
}
