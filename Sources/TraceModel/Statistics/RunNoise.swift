// Run-to-run noise: a recording is one sample of a noisy process (the device's thermal state,
// background work, the CI machine), so every claim is decided on per-recording values, on a log
// scale (a duration's noise is a factor, not an amount). docs/statistics.md explains the model,
// the prior and the rates the shipped simulation (`tracesvc-bench noise`) measures.

#if canImport(Glibc)
import Glibc  // log, exp, erfc: the C math library only
#elseif canImport(Darwin)
import Darwin
#endif

/// The spread of one recording's log value about the build's own: where it came from and how sure.
public struct RunNoise: Sendable, Equatable, Codable {
    /// Standard deviation of a recording's natural-log value (0.12: a recording is within about
    /// ±12 % of its build's value two times in three).
    public var sigma: Double
    /// "runs" (the recordings compared, steadied by the prior), "history" (earlier recordings with
    /// the same tags), or "prior" (`defaultSigma`: nothing measured).
    public var source: String
    /// Degrees of freedom of the measured spread (0 for the prior).
    public var degreesOfFreedom: Int

    /// The default for durations when nothing is measured: re-recordings of one build differ by
    /// 10-20 % (issue 40's measurements of the samples and of CI machines), lognormal sigma 0.12.
    public static let defaultSigma = 0.12
    public static let prior = RunNoise(sigma: defaultSigma, source: "prior", degreesOfFreedom: 0)
    /// The prior counts as this many degrees of freedom beside measured ones, so two or three
    /// recordings that happen to agree closely do not make every difference "significant".
    public static let priorWeight = 4.0

    /// The pooled within-group spread of `groups` (each the log values of one build or side),
    /// combined with `prior` as a scaled-inverse-χ² prior worth `priorWeight` degrees of freedom.
    /// With no group of two or more values this is `prior`.
    public static func measured(_ groups: [[Double]], prior: RunNoise = .prior, source: String = "runs") -> RunNoise {
        var squares = 0.0, freedom = 0
        for group in groups where group.count > 1 {
            let mean = group.reduce(0, +) / Double(group.count)
            for value in group { squares += (value - mean) * (value - mean) }
            freedom += group.count - 1
        }
        guard freedom > 0 else { return prior }
        let variance = (squares + priorWeight * prior.sigma * prior.sigma) / (Double(freedom) + priorWeight)
        return RunNoise(sigma: variance.squareRoot(), source: source, degreesOfFreedom: freedom)
    }
}

/// Normal quantiles and tails (the tests here use known or prior-steadied spreads, so z, not t).
public enum NormalDistribution {
    /// P(|Z| > z).
    public static func twoSidedP(_ z: Double) -> Double { min(1, erfc(abs(z) / 2.0.squareRoot())) }

    /// The z with P(Z < z) = p (Acklam's rational approximation, relative error below 1.2e-9).
    public static func quantile(_ p: Double) -> Double {
        precondition(p > 0 && p < 1, "a quantile needs 0 < p < 1")
        let a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00]
        let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01]
        let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let low = 0.02425
        if p < low {
            let q = (-2 * log(p)).squareRoot()
            return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        if p > 1 - low { return -quantile(1 - p) }
        let q = p - 0.5, r = q * q
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }
}

/// A change of one metric between two sets of recordings, decided on one value per recording:
/// the difference of the sides' mean log values against the run-to-run noise, with its 95 %
/// interval and what these recordings could and could not tell.
public struct RecordingEffect: Sendable, Equatable, Encodable {
    /// Two-sided level of a claim. Stricter than the usual 0.05: a comparison tests every view,
    /// and the views of one recording share its noise, so their false alarms come together.
    public static let alpha = 0.01
    /// Power at which `runsToTell` is given.
    public static let power = 0.8
    /// More recordings a side than this are not suggested ("more than 50").
    public static let runsLimit = 50

    /// "recordings": against the run-to-run noise; "other-views": against the other views of the
    /// same recordings (their shared factor taken out), when the view moved and they did not.
    public var against: String
    public var runsA: Int
    public var runsB: Int
    /// B against A as a percentage change (+31: B is 1.31 times A), and its interval at `level`.
    public var percent: Double
    public var low: Double
    public var high: Double
    /// The interval's confidence in percent: the claim's own (99; more when many views are
    /// tested at once), so a claim is made exactly when its interval leaves out no change.
    public var level: Double
    public var noise: RunNoise
    public var significant: Bool
    /// "up" or "down" when significant.
    @NullWhenAbsent public var direction: String? = nil
    /// The smallest change (either way, percent) these recordings could tell from noise.
    public var detectable: Double
    /// Recordings a side that would tell a change as large as the one seen (80 % power); nil
    /// when it is already told, or it would take more than `runsLimit`.
    @NullWhenAbsent public var runsToTell: Int? = nil

    static let zClaim = NormalDistribution.quantile(1 - alpha / 2)
    static let zPower = NormalDistribution.quantile(power)

    /// `difference`: mean log B minus mean log A; `standardError` its standard error; `noise`:
    /// one recording's spread behind it, and `extraVariance` what more recordings do not shrink,
    /// for the runs it would take.
    /// `z`: the claim's critical value (more than `zClaim` when many such tests are made at once).
    init(
        against: String, runsA: Int, runsB: Int, difference: Double, standardError: Double, noise: RunNoise, extraVariance: Double = 0,
        z: Double = zClaim
    ) {
        self.against = against
        self.runsA = runsA
        self.runsB = runsB
        self.noise = noise
        percent = Self.percent(difference)
        low = Self.percent(difference - z * standardError)
        high = Self.percent(difference + z * standardError)
        level = (2 * (1 - 0.5 * NormalDistribution.twoSidedP(z)) - 1) * 100
        significant = standardError > 0 ? abs(difference) > z * standardError : difference != 0
        if significant { direction = difference > 0 ? "up" : "down" }
        detectable = Self.percent(z * standardError)
        if !significant, difference != 0 {
            // n a side with (z_claim + z_power) · sqrt(2σ²/n + extra) <= |difference|.
            let needed = pow((z + Self.zPower) / abs(difference), 2)
            let room = 1 / needed - extraVariance
            if room > 0 {
                let runs = Int((2 * noise.sigma * noise.sigma / room).rounded(.up))
                if runs <= Self.runsLimit { runsToTell = max(runs, max(runsA, runsB) + 1) }
            }
        }
        text = textNow
        limitText = limitTextNow
    }

    /// The test over recordings of log values `a` and `b` (one per recording each side), the
    /// noise measured from them when either side has two or more, else `prior`. `within`: the
    /// variance of each side's mean that the recording's own updates add (few updates, much jitter).
    public init(logsA a: [Double], logsB b: [Double], prior: RunNoise = .prior, within: Double = 0) {
        let noise = RunNoise.measured([a, b], prior: prior)
        let difference = b.reduce(0, +) / Double(b.count) - a.reduce(0, +) / Double(a.count)
        let runs = 1 / Double(a.count) + 1 / Double(b.count)
        let variance = noise.sigma * noise.sigma * runs + (noise.source == "runs" ? 0 : within)
        self.init(against: "recordings", runsA: a.count, runsB: b.count, difference: difference, standardError: variance.squareRoot(), noise: noise,
                  extraVariance: noise.source == "runs" ? 0 : within)
    }

    static func percent(_ logRatio: Double) -> Double { (exp(logRatio) - 1) * 100 }

    /// "+31 %, 99 % interval +18 … +45 %, 5 vs 5 recordings": the CLI and the page print it.
    public private(set) var text = ""
    /// "with one recording a side, changes under ~55 % cannot be told; record 12 a side to tell +20 %".
    public private(set) var limitText = ""

    private var textNow: String {
        "\(Self.signed(percent)), \(Self.levelText(level)) interval \(Self.signed(low)) … \(Self.signed(high)), \(runsA) vs \(runsB) recordings"
            + (against == "other-views" ? ", against the other views of the same recordings" : "")
    }

    /// "99 %", "99.9 %".
    static func levelText(_ level: Double) -> String {
        // As many decimals as the distance from 100 % needs ("99.9 %", not "100 %"), at most two.
        let gap = ((100 - level) * 1e6).rounded() / 1e6
        let digits = min(2, max(0, Int(ceil(-log10(max(1e-9, gap))))))
        return DurationText.fixed(level, digits: digits) + " %"
    }

    /// "+31 %", "−8 %", "+0.4 %".
    public static func signed(_ percent: Double) -> String {
        let magnitude = abs(percent)
        let digits = magnitude < 1 ? 1 : 0
        let number = DurationText.fixed(magnitude, digits: digits)
        return (percent < 0 ? "−" : "+") + number + " %"
    }

    private var limitTextNow: String {
        let sides = runsA == runsB ? (runsA == 1 ? "one recording a side" : "\(runsA) recordings a side") : "\(runsA) vs \(runsB) recordings"
        var text = "with \(sides), changes under ~\(Int(detectable.rounded())) % cannot be told"
        if let runsToTell { text += "; record \(runsToTell) a side to tell \(Self.signed(percent))" }
        return text
    }
}

/// A count per recording (hitches, hangs) compared over recordings: exact when every recording
/// of each side (two or more a side) counted the same; else against Poisson noise, or the
/// recordings' own spread when it is larger.
public struct RecordingCountTest: Sendable, Equatable, Encodable {
    public var runsA: Int
    public var runsB: Int
    /// Every recording of each side counted the same (and each side has two or more).
    public var exact: Bool
    public var significant: Bool
    /// The change over its standard error (nil when exact).
    @NullWhenAbsent public var z: Double? = nil

    public init(_ a: [Int], _ b: [Int]) {
        runsA = a.count
        runsB = b.count
        exact = a.count > 1 && b.count > 1 && Set(a).count == 1 && Set(b).count == 1
        guard !a.isEmpty, !b.isEmpty else {
            significant = false
            return
        }
        let meanA = Double(a.reduce(0, +)) / Double(a.count), meanB = Double(b.reduce(0, +)) / Double(b.count)
        if exact {
            significant = meanA != meanB
            return
        }
        // Under no change both sides count at the pooled rate; a spread larger than Poisson's wins.
        let pooled = Double(a.reduce(0, +) + b.reduce(0, +)) / Double(a.count + b.count)
        let measured = RunNoise.measured([a.map(Double.init), b.map(Double.init)], prior: RunNoise(sigma: 0, source: "", degreesOfFreedom: 0))
        let variance = max(pooled, measured.sigma * measured.sigma, 0.5) * (1 / Double(a.count) + 1 / Double(b.count))
        let score = (meanB - meanA) / variance.squareRoot()
        z = score
        significant = abs(score) > RecordingEffect.zClaim
    }
}

extension RecordingEffect {
    /// A time known only as each side's mean over its recordings (`runsA`, `runsB`): against the
    /// prior's noise. Nil when either is zero (from nothing, a time is beyond any factor).
    public static func ofMeans(_ a: Int64, _ b: Int64, runsA: Int, runsB: Int, prior: RunNoise = .prior) -> RecordingEffect? {
        guard a > 0, b > 0 else { return nil }
        let error = prior.sigma * (1 / Double(runsA) + 1 / Double(runsB)).squareRoot()
        return RecordingEffect(
            against: "recordings", runsA: runsA, runsB: runsB, difference: log(Double(b) / Double(a)), standardError: error, noise: prior
        )
    }
}
