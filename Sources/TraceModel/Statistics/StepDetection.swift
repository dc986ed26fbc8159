// Where a metric stepped over a series of builds (docs/statistics.md, "History"): one value per
// recording, on a log scale, split only between builds. For every split the difference of the
// two sides' means over its standard error (the residual spread steadied by the prior, as
// `RunNoise.measured`); the largest over all splits is a step when it passes a threshold that
// holds the false-alarm rate over the whole series (Bonferroni over its splits), not per split.
// Each side of a step is searched again (binary segmentation, with a work list, no recursion).
// A count that every recording of each side has exactly (0 -> 10 red bodies) is a step without
// any test. A step with fewer than `confirmingBuilds` builds after it is "suspect": named at
// once, confirmed as builds arrive.

#if canImport(Glibc)
import Glibc  // log: the C math library only
#elseif canImport(Darwin)
import Darwin
#endif

public struct DetectedStep: Sendable, Equatable, Encodable {
    /// The first build after the step.
    public var index: Int
    /// "up" or "down".
    public var direction: String
    /// "confirmed" (`confirmingBuilds` or more after it) or "suspect".
    public var status: String
    /// Every recording of each side counted exactly the same: no test needed.
    public var exact: Bool
    /// The split's statistic (difference over its standard error) and the threshold it passed;
    /// nil for an exact step.
    @NullWhenAbsent public var strength: Double? = nil
    @NullWhenAbsent public var threshold: Double? = nil
    /// The chance that a series of this many builds without a step has a split this strong
    /// (over all its splits, as the threshold); nil for an exact step.
    @NullWhenAbsent public var pValue: Double? = nil
    /// After against before, percent (+300: four times), and its interval at the threshold's level.
    public var percent: Double
    public var low: Double
    public var high: Double
    public var buildsBefore: Int
    public var buildsAfter: Int
}

public struct StepDetection: Sendable {
    /// False-alarm rate over a whole series with no step.
    public static let alpha = 0.05
    /// Builds after a step that confirm it.
    public static let confirmingBuilds = 3
    /// A step smaller than this share (10 %) is not named, however sure.
    public static let minimumShift = log(1.1)
    /// Steps named in one series at most.
    public static let maximumSteps = 8

    public var steps: [DetectedStep] = []
    /// The recordings' spread about their segments' means (steadied by the prior).
    public var noise: RunNoise
    /// The log values of each stretch between steps (what `noise` is measured from).
    public var segments: [[Double]] = []
    /// The smallest step the series could tell in its middle and at its last build (percent);
    /// nil with fewer than two builds.
    @NullWhenAbsent public var detectableMiddle: Double? = nil
    @NullWhenAbsent public var detectableLast: Double? = nil

    /// `builds`: each build's values (one per recording), in order. `isCount`: values are counts.
    public init(builds: [[Int64]], prior: RunNoise = .prior) {
        let logs = builds.map { $0.map { log(Double(max($0, 0)) + 1) } }
        let filled = logs.indices.filter { !logs[$0].isEmpty }
        var segments = [(lo: 0, hi: filled.count)]
        var found: [DetectedStep] = []
        while let segment = segments.popLast(), found.count < Self.maximumSteps {
            let part = Array(filled[segment.lo..<segment.hi])
            guard part.count >= 2, let step = Self.bestStep(part.map { logs[$0] }, raw: part.map { builds[$0] }, prior: prior, total: filled.count) else { continue }
            var named = step
            named.index = part[step.index]
            found.append(named)
            segments.append((segment.lo, segment.lo + step.index))
            segments.append((segment.lo + step.index, segment.hi))
        }
        steps = found.sorted { $0.index < $1.index }
        // The noise about the segments the steps leave.
        var groups: [[Double]] = []
        var start = 0
        for end in steps.map(\.index) + [builds.count] {
            groups.append(logs[start..<end].flatMap { $0 })
            start = end
        }
        self.segments = groups
        noise = RunNoise.measured(groups, prior: prior, source: "series")
        let n = Double(filled.count)
        if filled.count >= 2 {
            let z = Self.threshold(splits: filled.count - 1)
            detectableMiddle = RecordingEffect.percent(z * noise.sigma * (4 / n).squareRoot())
            detectableLast = RecordingEffect.percent(z * noise.sigma * (1 + 1 / (n - 1)).squareRoot())
        }
    }

    /// The threshold of the largest of `splits` statistics for `alpha` over all of them.
    static func threshold(splits: Int) -> Double {
        NormalDistribution.quantile(1 - alpha / (2 * Double(max(1, splits))))
    }

    /// Exact counts: the split with every recording before it one value and every one after it
    /// another (two or more before). At most one split can be that, so one pass finds it: the
    /// builds that hold only the first build's value from the start must end exactly where the
    /// builds that hold only the last build's value from the end begin.
    static func exactSplit(_ raw: [[Int64]]) -> Int? {
        guard let first = raw.first?.first, let last = raw.last?.first, first != last else { return nil }
        var before = 0, recordingsBefore = 0
        while before < raw.count, !raw[before].isEmpty, raw[before].allSatisfy({ $0 == first }) {
            recordingsBefore += raw[before].count
            before += 1
        }
        var after = raw.count
        while after > 0, !raw[after - 1].isEmpty, raw[after - 1].allSatisfy({ $0 == last }) { after -= 1 }
        return before == after && recordingsBefore >= 2 ? before : nil
    }

    /// The strongest split of `logs` (builds of one segment) that passes, as a step at an index of `logs`.
    private static func bestStep(_ logs: [[Double]], raw: [[Int64]], prior: RunNoise, total: Int) -> DetectedStep? {
        let m = logs.count
        if let k = exactSplit(raw) {
            let a = Double(raw[0][0]), b = Double(raw[m - 1][0])
            let percent = a > 0 ? (b / a - 1) * 100 : 100 * b
            return DetectedStep(
                index: k, direction: b > a ? "up" : "down", status: m - k >= 2 ? "confirmed" : "suspect", exact: true,
                percent: percent, low: percent, high: percent, buildsBefore: k, buildsAfter: m - k
            )
        }
        var count = [Double](repeating: 0, count: m + 1), sum = count, squares = count
        for (i, values) in logs.enumerated() {
            count[i + 1] = count[i] + Double(values.count)
            sum[i + 1] = sum[i] + values.reduce(0, +)
            squares[i + 1] = squares[i] + values.reduce(0) { $0 + $1 * $1 }
        }
        let n = count[m], total2 = squares[m] - sum[m] * sum[m] / n
        let z = threshold(splits: m - 1)
        var best: (k: Int, t: Double, difference: Double, error: Double)?
        for k in 1..<m {
            let n1 = count[k], n2 = n - n1
            let mean1 = sum[k] / n1, mean2 = (sum[m] - sum[k]) / n2
            let difference = mean2 - mean1
            let residual = max(0, total2 - n1 * n2 / n * difference * difference)
            let variance = (residual + RunNoise.priorWeight * prior.sigma * prior.sigma) / (n - 2 + RunNoise.priorWeight)
            let error = (variance * (1 / n1 + 1 / n2)).squareRoot()
            let t = abs(difference) / error
            if t > (best?.t ?? 0) { best = (k, t, difference, error) }
        }
        guard let best, best.t > z, abs(best.difference) >= minimumShift else { return nil }
        return DetectedStep(
            index: best.k, direction: best.difference > 0 ? "up" : "down", status: m - best.k >= confirmingBuilds ? "confirmed" : "suspect",
            exact: false, strength: best.t, threshold: z, pValue: min(1, Double(m - 1) * NormalDistribution.twoSidedP(best.t)), percent: RecordingEffect.percent(best.difference),
            low: RecordingEffect.percent(best.difference - z * best.error), high: RecordingEffect.percent(best.difference + z * best.error),
            buildsBefore: best.k, buildsAfter: m - best.k
        )
    }
}
