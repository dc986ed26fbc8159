// The comparison's vocabulary, defined once: the CLI prints these words and the browser prints
// them from the JSON, so a change reads the same everywhere (docs/api.md, "Compare two traces").
// How many times something ran and how long each run took are two readings with two words:
// "fewer bodies" is not "faster", and a view can have fewer bodies that are each slower.

#if canImport(Glibc)
import Glibc  // log10, pow: the C math library only
#elseif canImport(Darwin)
import Darwin
#endif

/// How a row's count per run changed: beyond noise (`ViewComparison.isCountChange`) or not.
public enum CountChange: String, Sendable, Equatable, Encodable {
    case fewer, more, same
    /// Only in B / only in A.
    case new, gone
    /// The count moved with the frames drawn, at the same time per update
    /// (`ComparisonChange.followsFrames`): more frames drawn is what a fixed hitch does.
    case followsFrames = "follows-frames"
}

/// How the time of one run (one body, one update) changed, by the rank test on the durations.
public enum SpeedChange: String, Sendable, Equatable, Encodable {
    case faster, slower, same
    /// A side has fewer durations than the test needs (`RankSumTest.minimumSampleSize`).
    case untested
    /// One side has none: there is nothing to compare.
    case none
}

public enum ComparisonWords {
    /// What one run of a row is called: a body for view bodies, else an update.
    public static func noun(kind: String, plural: Bool) -> String {
        kind == UpdateKind.viewBody.wireName ? (plural ? "bodies" : "body") : (plural ? "updates" : "update")
    }

    /// "fewer bodies", "more updates", "as many bodies", "new", "gone".
    public static func count(_ change: CountChange, kind: String) -> String {
        let things = noun(kind: kind, plural: true)
        switch change {
        case .fewer: return "fewer \(things)"
        case .more: return "more \(things)"
        case .same: return "as many \(things)"
        case .new: return "new"
        case .gone: return "gone"
        case .followsFrames: return "as many per frame"
        }
    }

    /// "faster per body", "slower per update", "within noise per body" (no change told over the
    /// recordings: not a claim that it is as fast), "too few to time", "".
    public static func speed(_ change: SpeedChange, kind: String) -> String {
        let one = noun(kind: kind, plural: false)
        switch change {
        case .faster: return "faster per \(one)"
        case .slower: return "slower per \(one)"
        case .same: return "within noise per \(one)"
        case .untested: return "too few to time"
        case .none: return ""
        }
    }

    /// The row in a few words, what changed beyond noise first: "fewer bodies, slower per body",
    /// "slower per body", "no change beyond noise", "new", "gone".
    public static func summary(count: CountChange, speed: SpeedChange, kind: String) -> String {
        switch count {
        case .new, .gone, .followsFrames: return self.count(count, kind: kind)
        default: break
        }
        var parts: [String] = []
        if count != .same { parts.append(self.count(count, kind: kind)) }
        if speed == .faster || speed == .slower { parts.append(self.speed(speed, kind: kind)) }
        return parts.isEmpty ? "no change beyond noise" : parts.joined(separator: ", ")
    }

    /// A time that is better lower (Main Actor busy, waiting), or a count better higher (frames).
    public static func time(_ change: ComparisonChange) -> String {
        switch change {
        case .appeared: "new"
        case .disappeared: "gone"
        case .regressed: "worse"
        case .improved: "better"
        default: "same"
        }
    }

    /// "more frames drawn: +14", "fewer frames drawn: -3".
    public static func frames(_ delta: Int) -> String {
        delta >= 0 ? "more frames drawn: +\(delta)" : "fewer frames drawn: \(delta)"
    }

    /// A measure per signpost interval: "fewer bodies", "more body time", "shorter", "as many
    /// hitches", "as long" (`direction`: -1 less, 1 more, 0 no change beyond noise).
    public static func interval(_ measure: IntervalMeasure, direction: Int) -> String {
        switch (measure, direction) {
        case (.duration, -1): return "shorter"
        case (.duration, 1): return "longer"
        case (.duration, _): return "as long"
        case (_, -1): return measure.isTime ? "less \(measure.noun)" : "fewer \(measure.noun)"
        case (_, 1): return "more \(measure.noun)"
        default: return measure.isTime ? "as much \(measure.noun)" : "as many \(measure.noun)"
        }
    }

    /// A p-value as people read it: "p = 0.41", "p = 0.003", "p = 3e-11", "p < 1e-300".
    public static func pValue(_ p: Double) -> String {
        if p <= 0 { return "p < 1e-300" }
        if p >= 0.001 {
            let digits = p >= 0.1 ? 2.0 : 3.0
            let scale = pow(10, digits), value = (p * scale).rounded() / scale
            return value == value.rounded() ? "p = \(Int(value))" : "p = \(value)"
        }
        var exponent = Int(log10(p).rounded(.down))
        var mantissa = Int((p / pow(10, Double(exponent))).rounded())
        // 9.6e-5 rounds to 10e-5: say 1e-4.
        if mantissa >= 10 { (mantissa, exponent) = (1, exponent + 1) }
        return "p = \(mantissa)e\(exponent)"
    }
}
