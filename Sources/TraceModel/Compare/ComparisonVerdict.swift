// The comparison's story in a few lines, told first by the page, the CLI's text and its
// Markdown: findings resolved, new and still present; the fan-outs and notifications that went
// away or appeared; the largest count and time changes with their significance; per-interaction
// changes; hitches and hangs; main-actor time, and frames drawn when a count followed them.
// Each line names the row below that is its evidence.

/// One line of the verdict.
public struct VerdictLine: Sendable, Equatable, Encodable {
    /// "finding", "cause", "count", "speed", "interval", "total", "main-actor", "frames", "none",
    /// "noise" (what the recordings could not tell).
    public var kind: String
    /// "better", "worse" or "neutral" (B against A).
    public var tone: String
    public var text: String
    /// The evidence: a table of the comparison ("findings", "causes", "views", "intervals",
    /// "totals" (and "frames" there), "main-actor") and the row's key in it; "" for the "none" line.
    public var section: String
    public var key: String
}

/// Builds the verdict of a comparison from its tables (no second way of counting anything).
struct ComparisonVerdict {
    var lines: [VerdictLine] = []

    /// Lines of each group at most.
    static let perGroup = 3

    init(_ c: TraceComparison) {
        findingLines(c)
        causeLines(c)
        countLines(c)
        speedLines(c)
        intervalLines(c)
        totalLines(c)
        mainActorLines(c)
        if lines.isEmpty {
            lines.append(VerdictLine(kind: "none", tone: "neutral", text: "No change beyond noise", section: "", key: ""))
        }
        noiseLine(c)
    }

    /// What these recordings could not tell: the largest time change within the run-to-run
    /// noise, how small a change they could tell, and how many recordings a side would tell it.
    private mutating func noiseLine(_ c: TraceComparison) {
        let untold = c.views.filter { view in
            guard let effect = view.recordings, !effect.significant, view.change != .appeared, view.change != .disappeared else { return false }
            return abs(effect.percent) >= Self.speedMinimumShare * 100
        }.max { (abs($0.recordings!.percent), $1.view) < (abs($1.recordings!.percent), $0.view) }
        guard let view = untold, let effect = view.recordings else { return }
        lines.append(VerdictLine(
            kind: "noise", tone: "neutral",
            text: "Within run-to-run noise: \(view.view) \(Self.perOne(view)) \(effect.text); \(effect.limitText)",
            section: "views", key: Self.key(view)
        ))
    }

    /// "per body" or "per update".
    static func perOne(_ view: ViewComparison) -> String { "per " + ComparisonWords.noun(kind: view.kind, plural: false) }

    private mutating func findingLines(_ c: TraceComparison) {
        for change in [FindingChange.resolved, .new] {
            for finding in c.findings.filter({ $0.change == change }).prefix(Self.perGroup) {
                let side = change == .resolved ? finding.a : finding.b
                let counted = finding.key.isEmpty ? " ×\(side?.occurrences ?? 0)" : ""
                lines.append(VerdictLine(
                    kind: "finding", tone: change == .resolved ? "better" : "worse",
                    text: "\(finding.kind.title) \(change.rawValue): \(finding.subject)\(counted)",
                    section: "findings", key: "\(finding.kind.rawValue):\(finding.key)"
                ))
            }
        }
        let still = c.findings.filter { $0.change == .stillPresent }
        if !still.isEmpty {
            let names = still.prefix(Self.perGroup).map { "\($0.kind.title) (\($0.subject))" }
            lines.append(VerdictLine(
                kind: "finding", tone: "neutral",
                text: "still present: " + names.joined(separator: ", ") + (still.count > Self.perGroup ? " and \(still.count - Self.perGroup) more" : ""),
                section: "findings", key: "\(still[0].kind.rawValue):\(still[0].key)"
            ))
        }
    }

    private mutating func causeLines(_ c: TraceComparison) {
        // A cause of fewer bodies per event than the findings' fan-out threshold is no fan-out:
        // one body per change is the cure. One that appeared where a fan-out of the same target
        // went away is that fan-out's replacement, told on the fan-out's line.
        let wide = FindingsOptions().fanOutMinBodies
        func isFanOut(_ side: CauseFanOutSide?) -> Bool { (side?.maxPerEvent ?? 0) >= wide }
        let changed = c.causes.enumerated().filter { $0.element.change != .unchanged }
            .filter { $0.element.outcome == "skipped" || isFanOut($0.element.a) || isFanOut($0.element.b) }
            .sorted { (abs($0.element.updatesDelta), $1.offset) > (abs($1.element.updatesDelta), $0.offset) }
        for (index, cause) in changed.prefix(2) {
            let property = cause.property.isEmpty ? "" : " (\(cause.property))"
            let what = cause.outcome == "skipped" ? "notifications of bodies that did not run" : "fan-out"
            let edge = "\(cause.source)\(property) → \(cause.target)"
            var text: String
            switch cause.change {
            case .disappeared: text = "\(what) gone: \(edge) \(cause.a?.fanOut ?? "") per event"
            case .appeared: text = "\(what) new: \(edge) \(cause.b?.fanOut ?? "") per event"
            default: text = "\(what) changed: \(edge) \(cause.a?.fanOut ?? "") → \(cause.b?.fanOut ?? "") per event"
            }
            if cause.outcome == "ran", !isFanOut(cause.b), let replacement = c.causes.first(where: {
                $0.outcome == "ran" && $0.target == cause.target && $0.change == .appeared && !isFanOut($0.b)
            }) {
                let property = replacement.property.isEmpty ? "" : " (\(replacement.property))"
                text += ", replaced by \(replacement.source)\(property) \(replacement.b?.fanOut ?? "") per event"
            }
            lines.append(VerdictLine(
                kind: "cause", tone: cause.updatesDelta < 0 ? "better" : cause.updatesDelta > 0 ? "worse" : "neutral",
                text: text, section: "causes", key: String(index)
            ))
        }
    }

    private mutating func countLines(_ c: TraceComparison) {
        let rows = c.views.filter { $0.countChange == .fewer || $0.countChange == .more }
            .sorted { (abs($0.b.count - $0.a.count), $1.view) > (abs($1.b.count - $1.a.count), $0.view) }
        for view in rows.prefix(2) {
            var text = "\(view.view): \(view.countText), \(count(view.a)) → \(count(view.b))"
            if let rate = view.interaction, rate.a != rate.b {
                text += " (per \(rate.label) \(Self.number(rate.a)) → \(Self.number(rate.b)))"
            }
            lines.append(VerdictLine(
                kind: "count", tone: view.countChange == .fewer ? "better" : "worse", text: text, section: "views", key: Self.key(view)
            ))
        }
    }

    private mutating func speedLines(_ c: TraceComparison) {
        // Significant and large enough to matter: many rows are tested, a few pass by chance.
        let rows = c.views.filter { ($0.speedChange == .faster || $0.speedChange == .slower) && Self.isNoticeable($0) }
            .sorted { (abs($0.b.avgNs - $0.a.avgNs) * Int64(max($0.a.count, $0.b.count)), $1.view) > (abs($1.b.avgNs - $1.a.avgNs) * Int64(max($1.a.count, $1.b.count)), $0.view) }
        for view in rows.prefix(2) {
            let text = "\(view.view): \(view.speedText), avg \(DurationText.format(view.a.avgNs)) → \(DurationText.format(view.b.avgNs)), "
                + "p95 \(DurationText.format(view.a.p95Ns)) → \(DurationText.format(view.b.p95Ns))"
                + (view.recordings.map { " (time \(Self.perOne(view)) \($0.text))" } ?? "")
            lines.append(VerdictLine(
                kind: "speed", tone: view.speedChange == .faster ? "better" : "worse", text: text, section: "views", key: Self.key(view)
            ))
        }
    }

    private mutating func intervalLines(_ c: TraceComparison) {
        var shown = 0
        let perRun = c.a.runs > 1 || c.b.runs > 1 ? " per run" : ""
        for interval in c.intervals where shown < 2 {
            // Bodies first (the fan-out a tap causes), then the interval's own duration.
            guard let measure = [IntervalMeasure.bodies, .duration, .longUpdates, .hitches].compactMap({ interval.measure($0) })
                .first(where: { $0.significant }) else { continue }
            let before = measure.a ?? 0, after = measure.b ?? 0
            let values = measure.unit == "count"
                ? "\(Self.number(before)) → \(Self.number(after)) \(IntervalMeasure(rawValue: measure.name)!.noun)"
                : "\(DurationText.format(Int64(before))) → \(DurationText.format(Int64(after)))"
            let test = (measure.recordings?.text ?? measure.counts?.text).map { ", \($0)" } ?? ""
            lines.append(VerdictLine(
                kind: "interval", tone: after < before ? "better" : "worse",
                text: "\(interval.name): \(measure.changeText) per interval, \(values) (\(interval.intervalsA) → \(interval.intervalsB) intervals\(perRun)\(test))",
                section: "intervals", key: interval.name
            ))
            shown += 1
        }
    }

    private mutating func totalLines(_ c: TraceComparison) {
        for total in c.totals where total.name == "hitches" || total.name == "hangs" {
            guard total.a.count + total.b.count > 0, total.a.count != total.b.count || total.totalNsDelta != 0 else { continue }
            let name = total.name == "hitches" ? "Hitches" : "Hangs"
            // Better or worse only when the count per recording moved beyond its noise.
            let told = total.countTest?.significant ?? false
            lines.append(VerdictLine(
                kind: "total", tone: !told ? "neutral" : total.totalNsDelta < 0 ? "better" : total.totalNsDelta > 0 ? "worse" : "neutral",
                text: "\(name): \(count(total.a)) → \(count(total.b)), \(DurationText.format(total.a.totalNs)) → \(DurationText.format(total.b.totalNs))",
                section: "totals", key: total.name
            ))
        }
    }

    /// Swift tasks on the Main Actor (busy, waiting, the longest wait) when either side spent a
    /// millisecond or more; frames drawn when a view's count followed them (that is not a regression).
    private mutating func mainActorLines(_ c: TraceComparison) {
        for row in c.mainActor where row.a != row.b && max(row.a, row.b) >= Self.mainActorMinimum {
            // A time per recording: better or worse only beyond the run-to-run noise (a time
            // that appeared or went away from nothing is beyond it).
            let effect = row.recordings
            let told = effect?.significant ?? true
            lines.append(VerdictLine(
                kind: "main-actor", tone: !told ? "neutral" : row.b < row.a ? "better" : "worse",
                text: "\(row.title): \(DurationText.format(row.a)) → \(DurationText.format(row.b))"
                    + (effect.map { told ? " (\($0.text))" : " (within run-to-run noise: \($0.limitText))" } ?? ""),
                section: "main-actor", key: row.name
            ))
        }
        let following = c.views.filter { $0.countChange == .followsFrames }
        if c.frames.delta != 0, !following.isEmpty {
            let views = following.prefix(Self.perGroup).map(\.view).joined(separator: ", ")
            lines.append(VerdictLine(
                kind: "frames", tone: c.frames.delta > 0 ? "better" : "worse",
                text: "Frames drawn: \(c.frames.a) → \(c.frames.b) (\(c.frames.changeText)); \(views) ran as often per frame: not a regression",
                section: "totals", key: "frames"
            ))
        }
    }

    /// The average run changed by at least this share of A's: a 3 µs change of a 50 µs update,
    /// significant or not, is not the story.
    static let speedMinimumShare = 0.1

    static func isNoticeable(_ view: ViewComparison) -> Bool {
        Double(abs(view.b.avgNs - view.a.avgNs)) >= speedMinimumShare * Double(max(view.a.avgNs, 1))
    }

    /// Main-actor time below this on both sides is not worth a line.
    static let mainActorMinimum: Nanoseconds = 1_000_000

    /// "36", or "36 (35–37)" for a pooled side's mean and spread (when its runs differ).
    private func count(_ stats: ComparedViewStats) -> String {
        stats.spread.flatMap { $0.countMin == $0.countMax ? nil : "\(stats.count) (\($0.countMin)–\($0.countMax))" } ?? "\(stats.count)"
    }

    private func count(_ total: ComparedTotal) -> String {
        total.spread.flatMap { $0.countMin == $0.countMax ? nil : "\(total.count) (\($0.countMin)–\($0.countMax))" } ?? "\(total.count)"
    }

    /// "12", "1.5", "0.03", "–" (no value): as the CLI's tables and the page print rates.
    static func number(_ value: Double?) -> String {
        guard let value else { return "–" }
        if value == value.rounded() { return String(Int(value)) }
        return DurationText.fixed(value, digits: abs(value) < 0.1 ? 2 : 1)
    }

    /// A view row's key: "module:view:category" (the page's row key).
    static func key(_ view: ViewComparison) -> String { "\(view.module):\(view.view):\(view.category)" }
}
