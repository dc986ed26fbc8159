// Whether two samples of update durations differ beyond noise: a two-sided Mann-Whitney U test
// (Wilcoxon rank-sum), normal approximation with tie correction and continuity correction.
// Rank-based because durations are skewed with long tails; no assumption of normality.

#if canImport(Glibc)
import Glibc  // erfc: the C math library only
#elseif canImport(Darwin)
import Darwin
#endif

/// The test of a compared view's durations (`durations` in the API): A's against B's.
public struct RankSumTest: Sendable, Equatable, Encodable {
    /// Below this many updates on either side the test is not run (the normal approximation
    /// of U is poor for smaller samples) and the durations count as not significantly different.
    public static let minimumSampleSize = 8
    /// Two-sided significance level.
    public static let alpha = 0.05

    /// "mann-whitney-u".
    public var test = "mann-whitney-u"
    /// False when a side has fewer than `minimumSampleSize` updates.
    public var tested: Bool
    @NullWhenAbsent public var pValue: Double? = nil
    @NullWhenAbsent public var z: Double? = nil
    public var significant: Bool
    /// "slower" or "faster" (B's durations against A's) when significant.
    @NullWhenAbsent public var direction: String? = nil

    /// Both arrays sorted ascending.
    public init(_ a: [Nanoseconds], _ b: [Nanoseconds]) {
        tested = a.count >= Self.minimumSampleSize && b.count >= Self.minimumSampleSize
        significant = false
        guard tested else { return }
        let statistic = Self.rankSum(a, b)
        let nA = Double(a.count), nB = Double(b.count), n = nA + nB
        let u = statistic.rankSumA - nA * (nA + 1) / 2
        let mean = nA * nB / 2
        let variance = nA * nB / 12 * ((n + 1) - statistic.tieTerm / (n * (n - 1)))
        guard variance > 0 else {
            // Every duration equal: nothing differs.
            pValue = 1
            z = 0
            return
        }
        let distance = max(0, abs(u - mean) - 0.5)
        let score = distance / variance.squareRoot() * (u >= mean ? 1 : -1)
        let p = min(1, erfc(abs(score) / 2.0.squareRoot()))
        pValue = p
        z = score
        significant = p < Self.alpha
        // U counts pairs where A's update is the longer one: above its mean, B is faster.
        if significant { direction = u > mean ? "faster" : "slower" }
    }

    /// Sum of A's ranks in the merged sample (ties get their average rank) and Σ(t³ − t) over tie groups.
    static func rankSum(_ a: [Nanoseconds], _ b: [Nanoseconds]) -> (rankSumA: Double, tieTerm: Double) {
        // Twice the rank sum, in integers: every rank is a whole or a half number, and the sum of
        // a side's ranks is far below 2⁶² (the same value summing doubles gives, exactly).
        var i = 0, j = 0
        var ranked = 0, twiceRankSumA = 0
        var tieTerm = 0.0
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                while i < a.count || j < b.count {
                    let value = min(i < a.count ? a[i] : .max, j < b.count ? b[j] : .max)
                    var inA = 0, inB = 0
                    while i < a.count, a[i] == value { inA += 1; i += 1 }
                    while j < b.count, b[j] == value { inB += 1; j += 1 }
                    let tied = inA + inB
                    twiceRankSumA += inA * (2 * ranked + tied + 1)
                    if tied > 1 {
                        let t = Double(tied)
                        tieTerm += t * t * t - t
                    }
                    ranked += tied
                }
            }
        }
        return (Double(twiceRankSumA) / 2, tieTerm)
    }
}
