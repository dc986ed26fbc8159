import ArgumentParser
import Foundation
import TraceFormats
import TraceModel

struct Inspect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a readable summary of a trace: lanes, long updates, top views and causes, hitches, hangs."
    )

    @Argument(help: "A trace file: native JSON (.json / .json.gz) or xctrace export XML.")
    var file: String

    @Option(help: "Only what overlaps the range starting here, from the recording's start (\"1s\", \"1.5 s\", \"250 ms\", or ns).")
    var start: DurationOption?

    @Option(help: "Only what overlaps the range ending here.")
    var end: DurationOption?

    @Option(help: "Rows per table.")
    var top = 8

    @Option(help: "Which run of an xctrace export holding several to read (default: run 1; runs are never added together).")
    var run: Int?

    @Option(help: "text, or json: the whole result (metadata, lanes, summary, causes, state changes, hitches, hangs, findings).")
    var format: OutputFormat = .text

    @Option(name: .customLong("threshold"), help: ArgumentHelp(
        "A findings threshold, NAME=VALUE (repeatable; docs/findings.md).",
        discussion: FindingsOptions.parameters.map { "\($0.name): \($0.summary)" }.joined(separator: "; ")
    ))
    var thresholds: [String] = []

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case text, json }

    func validate() throws {
        if let run, run < 1 { throw ValidationError("--run \(run): runs are numbered from 1") }
        _ = try findingsOptions()
    }

    private func findingsOptions() throws -> FindingsOptions {
        var options = FindingsOptions()
        for threshold in thresholds {
            let parts = threshold.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw ValidationError("--threshold \(threshold): expected NAME=VALUE") }
            do {
                try options.set(String(parts[0]), to: String(parts[1]))
            } catch {
                throw ValidationError("--threshold \(error)")
            }
        }
        return options
    }

    func run() async throws {
        let url = URL(fileURLWithPath: file)
        let trace: Trace
        do {
            trace = try TraceImporter.importTrace(at: url, displayName: file, run: run)
        } catch {
            CommandContext.printError(error.description)
            throw ExitCode(1)
        }
        let range = try commandLineRange(start: start, end: end, of: trace)
        let result = InspectResult(trace: trace, range: range, findings: try findingsOptions())
        switch format {
        case .text:
            CommandContext.print(TraceReport(trace: trace, result: result, top: top, colors: CommandContext.current.outputIsTerminal).text)
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            CommandContext.print(String(decoding: try encoder.encode(result), as: UTF8.self))
        }
    }
}

/// Everything `inspect` reports, from the same queries the server answers with. `--format json`
/// prints it as is; the text report is rendered from it.
struct InspectResult: Encodable {
    struct LaneCount: Encodable {
        var lane: String
        var title: String
        var count: Int
        var orange: Int
        var red: Int
    }

    struct CPU: Encodable {
        var samples: Int
        /// Sum of the samples' weights: ns of CPU time, or cycles when `unit` is "cycles".
        var weightNs: Nanoseconds
        var unit: String
    }

    /// "@Observable X → Row.body ×12 per event": one `Trace.causeFanOuts` row.
    struct Cause: Encodable {
        var source: String
        var target: String
        var label: String
        var property: String
        var events: Int
        var updates: Int
        var minPerEvent: Int
        var maxPerEvent: Int
    }

    struct StateChange: Encodable {
        var time: Nanoseconds
        var value: String
        var description: String
        /// The app's own frames of where the value was written, innermost first.
        var appFrames: [String]
    }

    var metadata: TraceMetadata
    /// What the report covers: the --start/--end range, or the whole recording.
    var range: TimeRange
    var lanes: [LaneCount]
    var cpu: CPU
    var summary: UpdateSummary
    var causes: [Cause]
    var stateChanges: [StateChange]
    var hitches: [TimelineInterval]
    var hangs: [TimelineInterval]
    /// Swift concurrency: running and waiting time per resume function and actor.
    var tasks: [TaskSummaryRow]
    /// For the whole recording (not only the range), costliest first.
    var findings: [Finding]

    init(trace: Trace, range: TimeRange?, findings options: FindingsOptions) {
        func inRange(_ start: Nanoseconds, _ length: Nanoseconds) -> Bool { range?.overlaps(start: start, end: start + length) ?? true }
        func inRange(instant time: Nanoseconds) -> Bool { range.map { time >= $0.start && time < $0.end } ?? true }

        metadata = trace.metadata
        self.range = range ?? TimeRange(start: trace.metadata.start, end: trace.metadata.end)
        summary = trace.summary(in: range, filter: .all)
        // The CPU lane is the report's own line, with the samples' weight.
        lanes = trace.laneCounts(in: range).filter { $0.lane != .fixed(.cpu) }.map { lane in
            // Overlapping signposts of a group stack in rows, one lane each.
            let title = if let level = lane.level, level > 0 { "\(lane.title) (row \(level + 1))" } else { lane.title }
            return LaneCount(lane: lane.lane.wireName, title: title, count: lane.count, orange: lane.orange, red: lane.red)
        }
        tasks = trace.taskSummary(in: range)
        let samples = trace.cpu.samples
        let sampleRows = samples.time.indices.filter { inRange(instant: samples.time[$0]) }
        cpu = CPU(samples: sampleRows.count, weightNs: sampleRows.reduce(0) { $0 + samples.weight[$1] }, unit: trace.metadata.cpuWeightUnit.rawValue)
        causes = trace.causeFanOuts(in: range).map { fanOut in
            let perEvent = fanOut.events.map(\.updates.count)
            // A layout pass's target says so, as the cause graph's node does.
            let target = trace.layoutPass(of: fanOut.events.lazy.flatMap(\.updates))?.title(of: fanOut.target) ?? fanOut.target
            return Cause(
                source: fanOut.source, target: target, label: fanOut.label.wireName, property: fanOut.property,
                events: perEvent.count, updates: fanOut.updateCount, minPerEvent: perEvent.min() ?? 0, maxPerEvent: perEvent.max() ?? 0
            )
        }
        let changes = trace.stateChanges
        stateChanges = (0..<changes.count).filter { inRange(instant: changes.timestamp[$0]) }.map { row in
            let stack = changes.backtrace[row]
            let frames = stack == noRow ? [] : trace.cpu.stacks.frames(of: Int(stack)).reversed().filter { trace.cpu.frames.isAppCode[Int($0)] }
            let node = Int(changes.node[row])
            let name = trace.string(trace.graph.nodes.name[node])
            return StateChange(
                time: changes.timestamp[row], value: trace.graph.nodes.kind[node] == .viewBody ? "\(name).body" : name,
                description: trace.string(changes.description[row]),
                appFrames: frames.map { frame in
                    trace.string(trace.cpu.frames.name[Int(frame)]) + (trace.sourceLocation(ofFrame: Int(frame)).map { " — \($0.shortText)" } ?? "")
                }
            )
        }
        hitches = trace.hitches.filter { inRange($0.start, $0.duration) }
        hangs = trace.hangs.filter { inRange($0.start, $0.duration) }
        findings = trace.findings(options)
    }
}

/// The text `inspect` prints.
struct TraceReport {
    var trace: Trace
    var result: InspectResult
    var top: Int
    var colors: Bool

    private var isWholeTrace: Bool { result.range == TimeRange(start: trace.metadata.start, end: trace.metadata.end) }

    var text: String {
        var lines: [String] = []
        let m = trace.metadata
        lines.append(bold("\(m.name)") + "  (\(m.sourceFormat))")
        var about = [m.app, m.device, m.osVersion].filter { !$0.isEmpty }
        if let refreshRate = m.refreshRate { about.append("\(Units.number(refreshRate)) Hz") }
        if let recordedAt = m.recordedAt { about.append("recorded \(recordedAt)") }
        lines.append(about.joined(separator: ", "))
        lines.append("Time span \(seconds(m.start)) – \(seconds(m.end)) (\(duration(m.duration)))")
        let range = result.range
        if !isWholeTrace {
            lines.append("Showing \(seconds(range.start)) – \(seconds(range.end)) (\(duration(range.duration))): what overlaps it")
        }
        for note in m.importNotes { lines.append("note: \(note)") }

        lines.append(contentsOf: findingsSection())

        lines.append("")
        lines.append(bold("Lanes") + pad("count", 29) + pad("orange", 8) + pad("red", 6))
        for lane in result.lanes {
            // A signpost lane's title ("Points of Interest · com.example.app") is shown whole.
            let title = lane.title.count > 26 ? lane.title + " " : lane.title.padding(toLength: 26, withPad: " ", startingAt: 0)
            var line = "  " + title + pad("\(lane.count)", 6)
            if let kind = Lane(rawValue: lane.lane), kind.isUpdateLane || kind == .mainActor || kind == .mainActorWaits {
                line += pad(paint("\(lane.orange)", lane.orange > 0 ? .orange : nil), 8) + pad(paint("\(lane.red)", lane.red > 0 ? .red : nil), 6)
            }
            lines.append(line)
        }
        lines.append("  " + "CPU samples".padding(toLength: 26, withPad: " ", startingAt: 0) + pad("\(result.cpu.samples)", 6) + "   " + cpuWeightText(result.cpu.weightNs))

        if !result.tasks.isEmpty {
            lines.append("")
            lines.append(bold("Swift tasks") + " by resume function and actor (waits: orange > 16 ms, red > 100 ms on the main actor)")
            for row in result.tasks.prefix(8) {
                let function = row.title
                let wait = row.isMainActor ? MainActorWait.severity(row.longestWait) : .normal
                let waiting = paint("waiting \(duration(row.waiting))", wait == .red ? .red : wait == .orange ? .orange : nil)
                lines.append("  \(duration(row.running)) running, \(waiting)  \(function) on \(row.actor.isEmpty ? "?" : row.actor)")
            }
        }

        let total = result.summary.total
        lines.append("")
        lines.append(
            "Updates: \(total.count), \(duration(total.totalNs)) in total; long: "
                + paint("\(total.orange) orange (> 500 µs)", total.orange > 0 ? .orange : nil) + ", "
                + paint("\(total.red) red (> 1 ms)", total.red > 0 ? .red : nil)
        )

        let views = result.summary.processes.flatMap { process in process.modules.flatMap { module in module.views.map { (module.name, $0) } } }
        let long = views.filter { $0.1.stats.orange + $0.1.stats.red > 0 }
            .sorted { ($0.1.stats.red, $0.1.stats.orange, $0.1.stats.totalNs) > ($1.1.stats.red, $1.1.stats.orange, $1.1.stats.totalNs) }
        lines.append("")
        lines.append(bold("Top views by long updates"))
        if long.isEmpty { lines.append("  none: every update took 500 µs or less") }
        lines.append(contentsOf: viewTable(Array(long.prefix(top))))
        lines.append("")
        lines.append(bold("Top views by total time"))
        let byTotal = views.sorted { ($0.1.stats.totalNs, $1.1.name) > ($1.1.stats.totalNs, $0.1.name) }
        lines.append(contentsOf: viewTable(Array(byTotal.prefix(top))))

        lines.append("")
        lines.append(bold("Top causes") + "  (what made bodies run: one cause event fanning out to N updates)")
        if result.causes.isEmpty { lines.append("  none recorded") }
        for cause in result.causes.prefix(top) {
            let fan = cause.minPerEvent == cause.maxPerEvent ? "×\(cause.minPerEvent)" : "×\(cause.minPerEvent)–\(cause.maxPerEvent)"
            let property = cause.property.isEmpty ? "" : " (\(cause.property))"
            let label = cause.label == EdgeLabel.creation.wireName ? " [creation]" : ""
            let events = cause.events == 1 ? "1 event" : "\(cause.events) events, \(cause.updates) updates"
            lines.append("  \(cause.source)\(property) → \(cause.target) \(fan)\(label) per event: \(events)")
        }

        lines.append(contentsOf: stateChangeSection())
        lines.append(contentsOf: intervalSection("Hitches", result.hitches))
        lines.append(contentsOf: intervalSection("Hangs", result.hangs))
        lines.append(contentsOf: instruments27Sections())
        return lines.joined(separator: "\n")
    }

    /// Instruments 27's measures, printed only when the recording has them (older ones print as before).
    private func instruments27Sections() -> [String] {
        let range = result.range
        let updates = trace.updates
        var lines: [String] = []
        let inRange = { (row: Int) in range.overlaps(start: updates.start[row], end: updates.end(row)) }
        let layouts = (0..<updates.count).filter { updates.kind[$0] == .layout && updates.selfDuration($0) != nil && inRange($0) }
        if !layouts.isEmpty {
            lines += ["", bold("Layout updates") + ": \(layouts.count), longest first (self: without the layouts it called)"]
            for row in layouts.sorted(by: { (updates.duration[$0], $1) > (updates.duration[$1], $0) }).prefix(top) {
                let own = updates.selfDuration(row).map { ", self \(duration($0))" } ?? ""
                let depth = updates.layoutDepth(row).map { ", depth \($0)" } ?? ""
                let cached = updates.isCached(row).map { $0 ? ", cached" : ", not cached" } ?? ""
                lines.append("  at \(seconds(updates.start[row]))  \(pad(duration(updates.duration[row]), 9))  \(updates.severity(row).wireName)  \(trace.string(updates.viewName[row])): \(trace.string(updates.description[row]))\(own)\(depth)\(cached)")
            }
        }
        if updates.hasDownstream {
            let costly = (0..<updates.count).filter { (updates.downstreamCost($0) ?? 0) > 0 && inRange($0) }
                .sorted { (updates.downstreamCost($0)!, $1) > (updates.downstreamCost($1)!, $0) }
            lines += ["", bold("Downstream cost") + ": what an update made run after it" + (costly.isEmpty ? ": none" : "")]
            for row in costly.prefix(top) {
                let events = updates.downstreamEvents(row) ?? 0
                lines.append("  at \(seconds(updates.start[row]))  \(trace.string(updates.viewName[row])) made \(events) update\(events == 1 ? "" : "s") run, \(duration(updates.downstreamCost(row)!))")
            }
        }
        let risks = trace.hangRisks(from: range.start, to: range.end)
        if !risks.isEmpty {
            lines += ["", bold("Hang risks") + ": \(risks.count)"]
            for row in risks.prefix(top) {
                let severity = trace.string(trace.hangRisks.severity[row])
                lines.append("  at \(seconds(trace.hangRisks.time[row]))  \(severity.isEmpty ? "" : "[\(severity)] ")\(trace.hangRiskText(row))")
            }
        }
        return lines
    }

    // MARK: Sections

    private func findingsSection() -> [String] {
        let findings = result.findings
        let covered = findings.isEmpty ? "" : ", \(duration(trace.totalCost(of: findings))) in all (time two findings share counted once)"
        var lines = ["", bold("Findings") + (findings.isEmpty ? ": none" : ": \(findings.count), costliest first\(covered)") + (isWholeTrace ? "" : " (whole recording)")]
        for finding in findings.prefix(top) {
            let severity = paint("[\(finding.severity.rawValue)]", finding.severity == .high ? .red : finding.severity == .medium ? .orange : nil)
            lines.append("  \(severity) \(finding.kind.rawValue): \(finding.title)")
            if !finding.parts.isEmpty {
                lines.append("      one incident, \(finding.parts.count) parts: " + finding.parts.map { "\($0.kind.rawValue) \(duration($0.costNs))" }.joined(separator: ", "))
            }
            // As the browser says it (findings.js numbers): count, total and worst; "at least" for a lower bound.
            let cost = finding.occurrences > 1
                ? "\(finding.occurrences) occurrences cost \(duration(finding.costNs)) in all, the worst \(duration(finding.worstNs))"
                : "costs \(duration(finding.costNs))"
            lines.append("      \(cost); " + (finding.savingNs > 0
                ? "the fix would save \(finding.savingIsLowerBound ? "at least" : "about") \(duration(finding.savingNs))"
                : "no saving estimated (the cause is not identified)"))
            lines.append("      fix: \(finding.fix)")
            let evidence = finding.evidence
            var proof: [String] = []
            if !evidence.updates.isEmpty {
                let shown = evidence.updates.prefix(6).map(String.init).joined(separator: ", ")
                proof.append("updates \(shown)\(evidence.updateCount > 6 ? " … (\(evidence.updateCount))" : "")")
            }
            if let update = evidence.representativeUpdate { proof.append("cause graph of update \(update)") }
            if !evidence.taskStates.isEmpty {
                proof.append("task state\(evidence.taskStates.count == 1 ? "" : "s") " + evidence.taskStates.prefix(4).map(String.init).joined(separator: ", "))
            }
            if let cpuRange = evidence.range {
                let thread = evidence.thread.map { " on \(trace.threads[$0].name)" } ?? ""
                proof.append("CPU \(seconds(cpuRange.start)) – \(seconds(cpuRange.end))\(thread)")
            }
            if !proof.isEmpty { lines.append("      evidence: " + proof.joined(separator: "; ")) }
            for frame in evidence.frames.prefix(3) {
                let source = frame.source.map { " — \($0.shortText)" } ?? ""
                let caller = frame.caller.isEmpty ? "" : " ← \(frame.caller)" + (frame.callerSource.map { " — \($0.shortText)" } ?? "")
                // A frame the recording flagged (a hang risk's) was not sampled: no weight to print.
                let weight = frame.weightNs == 0 ? "flagged" : duration(frame.weightNs)
                lines.append("      \(pad(weight, 9))  \(frame.name) (\(frame.binary))\(source)\(caller)")
            }
        }
        if findings.count > top { lines.append("  … \(findings.count - top) more (--top, or --format json for all)") }
        return lines
    }

    private func viewTable(_ rows: [(String, ViewUpdateSummary)]) -> [String] {
        guard !rows.isEmpty else { return [] }
        var lines = ["  " + pad("red", 5) + pad("orange", 8) + pad("count", 7) + pad("total", 11) + pad("avg", 11) + pad("max", 11) + "   view (module, category)"]
        for (module, view) in rows {
            let s = view.stats
            lines.append(
                "  " + pad(paint("\(s.red)", s.red > 0 ? .red : nil), 5) + pad(paint("\(s.orange)", s.orange > 0 ? .orange : nil), 8)
                    + pad("\(s.count)", 7) + pad(duration(s.totalNs), 11) + pad(duration(s.avgNs), 11) + pad(duration(s.maxNs), 11)
                    + "   \(view.name) (\(module)\(view.category.isEmpty ? "" : ", \(view.category)"))" + bodySource(of: view)
            )
        }
        return lines
    }

    /// " — TripCard.swift:88": where a view body row's body is, when a sampled frame of it has a source.
    private func bodySource(of view: ViewUpdateSummary) -> String {
        guard view.kind == UpdateKind.viewBody.wireName, let source = trace.bodySource(ofView: view.name) else { return "" }
        return " — \(source.shortText)"
    }

    /// Writes to State / @Observable values, with the app's own frames of where they happened.
    private func stateChangeSection() -> [String] {
        let shown = result.stateChanges
        var lines = ["", bold("State changes") + (shown.isEmpty ? ": none" : ": \(shown.count)")]
        for change in shown.prefix(top) {
            lines.append("  at \(seconds(change.time))  \(change.value): \(change.description)")
            if !change.appFrames.isEmpty { lines.append("      in " + change.appFrames.prefix(4).joined(separator: " ← ")) }
        }
        if shown.count > top { lines.append("  … \(shown.count - top) more") }
        return lines
    }

    private func intervalSection(_ name: String, _ shown: [TimelineInterval]) -> [String] {
        let total = shown.reduce(0) { $0 + $1.duration }
        var lines = ["", bold(name) + (shown.isEmpty ? ": none" : ": \(shown.count), \(duration(total)) in total")]
        for interval in shown.prefix(top) {
            // An empty detail or thread name prints nothing, not "Hitch: " or "[]".
            let detail = interval.detail.isEmpty ? "" : ": \(interval.detail)"
            let threadName = interval.thread == noRow ? "" : trace.threads[Int(interval.thread)].name
            let thread = threadName.isEmpty ? "" : " on \(threadName)"
            lines.append("  at \(seconds(interval.start))  \(pad(duration(interval.duration), 9))  \(interval.kind)\(thread)\(detail)")
        }
        if shown.count > top { lines.append("  … \(shown.count - top) more") }
        return lines
    }

    // MARK: Formatting

    /// CPU weight in the trace's unit: time (Time Profiler) or cycles (CPU Profiler).
    private func cpuWeightText(_ weight: Int64) -> String {
        switch trace.metadata.cpuWeightUnit {
        case .nanoseconds: "\(duration(weight)) of CPU time"
        case .cycles: "\(Units.number(Double(weight))) CPU cycles (CPU Profiler)"
        }
    }

    private func duration(_ ns: Int64) -> String { Units.duration(ns) }
    private func seconds(_ ns: Int64) -> String { Units.seconds(ns) }

    enum Color: String {
        case orange = "\u{1B}[38;5;208m"
        case red = "\u{1B}[31m"
    }

    private func paint(_ text: String, _ color: Color?) -> String {
        guard colors, let color else { return text }
        return color.rawValue + text + "\u{1B}[0m"
    }

    private func bold(_ text: String) -> String { colors ? "\u{1B}[1m\(text)\u{1B}[0m" : text }

    /// Right-aligns to `width` visible characters (escape codes take no room).
    private func pad(_ text: String, _ width: Int) -> String {
        var visible = text
        if let escape = visible.range(of: "\u{1B}[") {
            visible = String(visible[..<escape.lowerBound]) + visible[escape.upperBound...].drop { $0 != "m" }.dropFirst()
            visible = visible.replacingOccurrences(of: "\u{1B}[0m", with: "")
        }
        return String(repeating: " ", count: max(0, width - visible.count)) + text
    }
}

/// Human units for the CLI's reports.
enum Units {
    static func duration(_ ns: Int64) -> String { DurationText.format(ns) }

    static func seconds(_ ns: Int64) -> String { DurationText.seconds(ns) }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : String(value)
    }
}
