// Whether the two sides of a comparison cover comparable spans. A range on one side only (a
// signpost's 4.9 ms against the other recording's whole 4.2 s), or spans over 2x apart, make every
// count and total below differ for that reason alone: the comparison says so first, offers the
// other side the same range, and its verdict then calls nothing better or worse.

/// The two sides' compared spans differ (one side a range, the other whole, or over 2x apart).
public struct SpanMismatch: Sendable, Equatable, Encodable {
    /// What differs, in a sentence.
    public var text: String
    /// The side to change ("a" or "b") and the range that makes it cover what the other does:
    /// the other's range at the same offsets, clamped to this recording.
    public var side: String
    public var start: Nanoseconds
    public var end: Nanoseconds

    /// Spans further apart than this ratio are not compared as equals.
    public static let maxRatio = 2.0

    /// "1.400 s": a time from the recording's start to the millisecond.
    static func seconds(_ ns: Nanoseconds) -> String {
        let ms = (max(0, ns) + 500_000) / 1_000_000
        let fraction = String(ms % 1000)
        return "\(ms / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
    }

    /// nil when the spans are comparable, or either side pools several recordings (whole each).
    public static func check(_ a: ComparedTrace, _ b: ComparedTrace) -> SpanMismatch? {
        guard a.runs == 1, b.runs == 1 else { return nil }
        func isRange(_ side: ComparedTrace) -> Bool { side.start > 0 || side.end < side.durationNs }
        let spanA = max(1, a.end - a.start), spanB = max(1, b.end - b.start)
        let (rangedA, rangedB) = (isRange(a), isRange(b))
        let ratio = Double(max(spanA, spanB)) / Double(min(spanA, spanB))
        guard rangedA != rangedB || ratio > maxRatio else { return nil }
        // The side to change: the whole one when only one has a range, else the longer.
        let (from, to, side) = rangedA != rangedB ? (rangedA ? (a, b, "b") : (b, a, "a")) : (spanA < spanB ? (a, b, "b") : (b, a, "a"))
        func described(_ name: String, _ trace: ComparedTrace) -> String {
            isRange(trace)
                ? "\(name) is the range \(seconds(trace.start))–\(seconds(trace.end)) (\(DurationText.format(trace.end - trace.start)))"
                : "\(name) the whole recording (\(DurationText.format(trace.durationNs)))"
        }
        let start = min(from.start, to.durationNs), end = min(from.end, to.durationNs)
        return SpanMismatch(
            text: "The compared spans differ: \(described("A", a)), \(described("B", b)). Counts and totals differ for that alone, "
                + "so nothing below is called better or worse; compare \(side.uppercased()) over the same range.",
            side: side, start: start, end: max(start, end)
        )
    }
}
