import ArgumentParser
import Foundation
import TraceFormats
import TraceModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Inspect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a readable summary of a trace: lanes, long updates, top views and causes, hitches, hangs."
    )

    @Argument(help: "A trace file: native JSON (.json / .json.gz) or xctrace export XML.")
    var file: String

    @Option(help: "Only what overlaps the range starting here (ns from the recording's start).")
    var start: Int64?

    @Option(help: "Only what overlaps the range ending here (ns).")
    var end: Int64?

    @Option(help: "Rows per table.")
    var top = 8

    func run() async throws {
        let trace = try readTraceOrExit(file)
        let range = try commandLineRange(start: start, end: end, of: trace)
        print(TraceReport(trace: trace, range: range, top: top, colors: isatty(1) == 1).text)
    }
}

/// The text `inspect` prints. Numbers come from the same queries the server answers with.
struct TraceReport {
    var trace: Trace
    var range: TimeRange?
    var top: Int
    var colors: Bool

    var text: String {
        var lines: [String] = []
        let m = trace.metadata
        lines.append(bold("\(m.name)") + "  (\(m.sourceFormat))")
        var about = [m.app, m.device, m.osVersion].filter { !$0.isEmpty }
        about.append("\(Units.number(m.refreshRate)) Hz")
        if let recordedAt = m.recordedAt { about.append("recorded \(recordedAt)") }
        lines.append(about.joined(separator: ", "))
        lines.append("Time span \(seconds(m.start)) – \(seconds(m.end)) (\(duration(m.duration)))")
        if let range {
            lines.append("Showing \(seconds(range.start)) – \(seconds(range.end)) (\(duration(range.duration))): what overlaps it")
        }
        for note in m.importNotes { lines.append("note: \(note)") }

        let summary = trace.summary(in: range, filter: .all)
        lines.append("")
        lines.append(bold("Lanes") + pad("count", 29) + pad("orange", 8) + pad("red", 6))
        for lane in Lane.allCases where lane != .cpu {
            let (count, orange, red) = laneCounts(lane)
            var line = "  " + lane.title.padding(toLength: 26, withPad: " ", startingAt: 0) + pad("\(count)", 6)
            if lane.isUpdateLane { line += pad(paint("\(orange)", orange > 0 ? .orange : nil), 8) + pad(paint("\(red)", red > 0 ? .red : nil), 6) }
            lines.append(line)
        }
        let samples = sampleRows()
        let weight = samples.reduce(0) { $0 + trace.cpu.samples.weight[$1] }
        lines.append("  " + "CPU samples".padding(toLength: 26, withPad: " ", startingAt: 0) + pad("\(samples.count)", 6) + "   \(duration(weight)) of CPU time")

        let total = summary.total
        lines.append("")
        lines.append(
            "Updates: \(total.count), \(duration(total.totalNs)) in total; long: "
                + paint("\(total.orange) orange (> 500 µs)", total.orange > 0 ? .orange : nil) + ", "
                + paint("\(total.red) red (> 1 ms)", total.red > 0 ? .red : nil)
        )

        let views = summary.processes.flatMap { process in process.modules.flatMap { module in module.views.map { (module.name, $0) } } }
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
        let causes = causeRows()
        if causes.isEmpty { lines.append("  none recorded") }
        for cause in causes.prefix(top) { lines.append("  " + cause) }

        lines.append(contentsOf: stateChangeSection())
        lines.append(contentsOf: intervalSection("Hitches", trace.hitches))
        lines.append(contentsOf: intervalSection("Hangs", trace.hangs))
        return lines.joined(separator: "\n")
    }

    // MARK: Sections

    private func laneCounts(_ lane: Lane) -> (Int, Int, Int) {
        switch lane {
        case .updateGroups:
            let groups = trace.updateGroups
            return ((0..<groups.count).filter { inRange(groups.start[$0], groups.duration[$0]) }.count, 0, 0)
        case .hitches: return (trace.hitches.filter { inRange($0.start, $0.duration) }.count, 0, 0)
        case .hangs: return (trace.hangs.filter { inRange($0.start, $0.duration) }.count, 0, 0)
        case .cpu: return (0, 0, 0)
        default:
            var count = 0, orange = 0, red = 0
            for row in trace.indexes.updatesByLane[lane] ?? [] {
                let start = trace.updates.start[Int(row)], length = trace.updates.duration[Int(row)]
                guard inRange(start, length) else { continue }
                count += 1
                switch LongUpdateSeverity(duration: length) {
                case .normal: break
                case .orange: orange += 1
                case .red: red += 1
                }
            }
            return (count, orange, red)
        }
    }

    private func viewTable(_ rows: [(String, ViewUpdateSummary)]) -> [String] {
        guard !rows.isEmpty else { return [] }
        var lines = ["  " + pad("red", 5) + pad("orange", 8) + pad("count", 7) + pad("total", 11) + pad("avg", 11) + pad("max", 11) + "   view (module, category)"]
        for (module, view) in rows {
            let s = view.stats
            lines.append(
                "  " + pad(paint("\(s.red)", s.red > 0 ? .red : nil), 5) + pad(paint("\(s.orange)", s.orange > 0 ? .orange : nil), 8)
                    + pad("\(s.count)", 7) + pad(duration(s.totalNs), 11) + pad(duration(s.avgNs), 11) + pad(duration(s.maxNs), 11)
                    + "   \(view.name) (\(module)\(view.category.isEmpty ? "" : ", \(view.category)"))"
            )
        }
        return lines
    }

    /// "@Observable X → Row.body ×12 per event: 2 events, 24 updates"
    private func causeRows() -> [String] {
        trace.causeFanOuts(in: range).map { fanOut in
            let events = fanOut.events == 1 ? "1 event" : "\(fanOut.events) events, \(fanOut.updates) updates"
            return "\(fanOut.edgeText) per event: \(events)"
        }
    }

    private func title(_ node: Int) -> String {
        let name = trace.string(trace.graph.nodes.name[node])
        return trace.graph.nodes.kind[node] == .viewBody ? "\(name).body" : name
    }

    /// Writes to State / @Observable values, with the app's own frames of where they happened.
    private func stateChangeSection() -> [String] {
        let changes = trace.stateChanges
        let shown = (0..<changes.count).filter { inRange(instant: changes.timestamp[$0]) }
        var lines = ["", bold("State changes") + (shown.isEmpty ? ": none" : ": \(shown.count)")]
        for row in shown.prefix(top) {
            lines.append("  at \(seconds(changes.timestamp[row]))  \(title(Int(changes.node[row]))): \(trace.string(changes.description[row]))")
            let stack = changes.backtrace[row]
            guard stack != noRow else { continue }
            let frames = trace.cpu.stacks.frames(of: Int(stack)).reversed().filter { trace.cpu.frames.isAppCode[Int($0)] }
            if !frames.isEmpty {
                lines.append("      in " + frames.prefix(4).map { trace.string(trace.cpu.frames.name[Int($0)]) }.joined(separator: " ← "))
            }
        }
        if shown.count > top { lines.append("  … \(shown.count - top) more") }
        return lines
    }

    private func intervalSection(_ name: String, _ intervals: [TimelineInterval]) -> [String] {
        let shown = intervals.filter { inRange($0.start, $0.duration) }
        let total = shown.reduce(0) { $0 + $1.duration }
        var lines = ["", bold(name) + (shown.isEmpty ? ": none" : ": \(shown.count), \(duration(total)) in total")]
        for interval in shown.prefix(top) {
            let thread = interval.thread == noRow ? "" : "  [\(trace.threads[Int(interval.thread)].name)]"
            lines.append("  at \(seconds(interval.start))  \(pad(duration(interval.duration), 9))  \(interval.kind): \(interval.detail)\(thread)")
        }
        if shown.count > top { lines.append("  … \(shown.count - top) more") }
        return lines
    }

    private func sampleRows() -> [Int] {
        let time = trace.cpu.samples.time
        return time.indices.filter { inRange(instant: time[$0]) }
    }

    private func inRange(instant time: Nanoseconds) -> Bool {
        guard let range else { return true }
        return time >= range.start && time < range.end
    }

    private func inRange(_ start: Nanoseconds, _ length: Nanoseconds) -> Bool {
        range?.overlaps(start: start, end: start + length) ?? true
    }

    // MARK: Formatting

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
    static func duration(_ ns: Int64) -> String {
        let value = Double(ns)
        if ns < 1_000_000 { return String(format: "%.0f µs", value / 1e3) }
        if ns < 1_000_000_000 { return String(format: "%.2f ms", value / 1e6) }
        return String(format: "%.3f s", value / 1e9)
    }

    static func seconds(_ ns: Int64) -> String { String(format: "%.3f s", Double(ns) / 1e9) }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : String(value)
    }
}
