import Testing
@testable import TraceModel
import TraceSamples

/// Issue 40: with one recording a side, the run-to-run spread comes from earlier recordings with
/// the same tags (else the prior), and the comparison says where it came from.
@Suite struct EarlierNoiseTests {
    /// `count` Orchard recordings of one build each, `sigma` a recording; from `stepAt` on every view `factor` slower.
    static func earlier(_ count: Int, sigma: Double, seed: UInt64, stepAt: Int = .max, factor: Double = 2) -> [EarlierRecording] {
        (0..<count).map { index in
            let build = index >= stepAt ? NoisyRecordings.Build(slowdown: Dictionary(uniqueKeysWithValues: NoisyRecordings.views.map { ($0.name, factor) })) : .init()
            let trace = NoisyRecordings.trace(build, seed: seed + UInt64(index), sigma: sigma)
            return EarlierRecording(build: "b\(index)", measurements: trace.measurements())
        }
    }

    @Test func aQuietDevicesEarlierRecordingsMeasureItsSpreadAndAStepBetweenBuildsIsNotNoise() throws {
        let quiet = try #require(EarlierNoise(Self.earlier(12, sigma: 0.04, seed: 100), tags: ["scenario:orchard", "branch:main"]))
        #expect(quiet.noise.source == "history" && quiet.recordings == 12)
        #expect(quiet.noise.sigma > 0.03 && quiet.noise.sigma < 0.07, "σ \(quiet.noise.sigma)")
        #expect(quiet.noise.degreesOfFreedom > 50)
        // Every view twice as slow from build 6 on: the step splits the series, the spread stays the device's.
        let stepped = try #require(EarlierNoise(Self.earlier(12, sigma: 0.04, seed: 200, stepAt: 6), tags: ["scenario:orchard"]))
        #expect(stepped.noise.sigma < 0.07, "a 2x step read as noise: σ \(stepped.noise.sigma)")
        // A noisy device reads as noisy.
        let noisy = try #require(EarlierNoise(Self.earlier(12, sigma: 0.25, seed: 300), tags: ["scenario:orchard"]))
        #expect(noisy.noise.sigma > 0.17, "σ \(noisy.noise.sigma)")
        // Too few to say anything: the prior stands.
        #expect(EarlierNoise(Self.earlier(2, sigma: 0.04, seed: 400), tags: ["scenario:orchard"]) == nil)
        #expect(quiet.tagText == "scenario=orchard, branch=main")
    }

    @Test func oneRecordingASideTellsAChangeOfEveryViewBeyondTheEarlierNoiseAndSaysWhereItCameFrom() throws {
        // Every view 1.3x slower, one quiet recording a side: beyond the quiet device's noise, within the prior's.
        let earlier = try #require(EarlierNoise(Self.earlier(10, sigma: 0.04, seed: 500), tags: ["scenario:orchard"]))
        let slower = NoisyRecordings.Build(slowdown: Dictionary(uniqueKeysWithValues: NoisyRecordings.views.map { ($0.name, 1.3) }))
        var toldWithHistory = 0, toldWithPrior = 0
        for trial in 0..<10 {
            let a = NoisyRecordings.trace(seed: 600 + UInt64(trial) * 2, sigma: 0.04).comparisonSide(findings: [])
            let b = NoisyRecordings.trace(slower, seed: 601 + UInt64(trial) * 2, sigma: 0.04).comparisonSide(findings: [])
            let withHistory = TraceComparison(a, b, earlier: earlier), withPrior = TraceComparison(a, b)
            if withHistory.views.first(where: { $0.view == "TreeRow" })?.speedChange == .slower { toldWithHistory += 1 }
            if withPrior.views.first(where: { $0.view == "TreeRow" })?.speedChange == .slower { toldWithPrior += 1 }
            #expect(withHistory.noise.source == "history" && withHistory.noise.text.hasPrefix("noise from 10 earlier recordings tagged scenario=orchard"))
            #expect(withPrior.noise.source == "prior" && withPrior.noise.text.hasPrefix("the default prior, σ 12 %"))
            #expect(withHistory.views.first { $0.view == "TreeRow" }?.recordings?.noise.source == "history")
        }
        #expect(toldWithHistory >= 9, "told \(toldWithHistory) of 10 with the earlier recordings' noise")
        #expect(toldWithPrior <= 2, "told \(toldWithPrior) of 10 with the prior: one recording a side cannot tell 1.3x")

        // Nothing changed, with the earlier noise: no claim.
        var falseClaims = 0
        for trial in 0..<10 {
            let a = NoisyRecordings.trace(seed: 700 + UInt64(trial) * 2, sigma: 0.04).comparisonSide(findings: [])
            let b = NoisyRecordings.trace(seed: 701 + UInt64(trial) * 2, sigma: 0.04).comparisonSide(findings: [])
            if TraceComparison(a, b, earlier: earlier).views.contains(where: { $0.speedChange == .slower || $0.speedChange == .faster }) { falseClaims += 1 }
        }
        #expect(falseClaims <= 1, "\(falseClaims) of 10 unchanged pairs claimed a change")

        // Several recordings a side: their own spread, steadied by the earlier recordings'.
        let pooled = TraceComparison(
            .pooled([NoisyRecordings.trace(seed: 800).comparisonSide(findings: []), NoisyRecordings.trace(seed: 801).comparisonSide(findings: [])]),
            NoisyRecordings.trace(seed: 802).comparisonSide(findings: []), earlier: earlier)
        #expect(pooled.noise.source == "runs" && pooled.noise.text.contains("steadied by 10 earlier recordings tagged scenario=orchard"))
    }

    @Test func checkWithEarlierRecordingsFailsAStepOneBaselineCannotTellAndSaysWhereTheNoiseCameFrom() throws {
        let earlier = try #require(EarlierNoise(Self.earlier(10, sigma: 0.04, seed: 900), tags: ["scenario:orchard", "branch:main"]))
        let slower = NoisyRecordings.Build(slowdown: Dictionary(uniqueKeysWithValues: NoisyRecordings.views.map { ($0.name, 1.4) }))
        let baseline = NoisyRecordings.trace(seed: 950, sigma: 0.04), new = NoisyRecordings.trace(slower, seed: 951, sigma: 0.04)
        let withHistory = new.baselineResults(against: [baseline], tolerance: BaselineTolerance(), earlier: earlier)
        let time = try #require(withHistory.first { $0.metric == "baseline-body-time" })
        #expect(!time.passed)
        #expect(time.notes.contains { $0.contains("noise from 10 earlier recordings tagged scenario=orchard, branch=main") })
        let withPrior = try #require(new.baselineResults(against: [baseline], tolerance: BaselineTolerance()).first { $0.metric == "baseline-body-time" })
        #expect(withPrior.passed, "one baseline against the 12 % prior cannot tell 1.4x of every view")
        #expect(withPrior.notes.contains { $0.contains("the default prior") })
    }

    @Test func anInteractionsTimesUseTheEarlierRecordingsNoiseAsTheViewsDo() throws {
        // One recording a side, four "Pick Tap" intervals each, every measure 1.3x longer in B:
        // beyond a quiet device's earlier noise, within the 12 % prior's, as a view's time is.
        let earlier = try #require(EarlierNoise(Self.earlier(10, sigma: 0.04, seed: 1_000), tags: ["scenario:orchard"]))
        func side(_ seed: UInt64, factor: Double) -> ComparisonSide {
            var side = NoisyRecordings.trace(seed: seed, sigma: 0.04).comparisonSide(findings: [])
            let base: [Int64] = [40_000_000, 41_500_000, 39_200_000, 40_600_000]
            let values = IntervalMeasure.allCases.map { measure in
                measure.isTime ? base.map { Int64(Double($0) * factor) } : [Int64](repeating: 6, count: base.count)
            }
            side.intervals = ["Pick Tap": IntervalSample(
                subsystem: "com.example.orchard", category: "taps", runIntervals: [base.count], values: values, bodiesByView: [:],
                viewsComplete: true, hasTaskData: false
            )]
            return side
        }
        let a = side(1_100, factor: 1), b = side(1_101, factor: 1.3)
        let withHistory = try #require(TraceComparison(a, b, earlier: earlier).intervals.first { $0.name == "Pick Tap" })
        let withPrior = try #require(TraceComparison(a, b).intervals.first { $0.name == "Pick Tap" })
        for measure in [IntervalMeasure.duration, .bodyTime] {
            let told = try #require(withHistory.measure(measure)?.recordings)
            #expect(told.noise.source == "history" && told.significant && told.direction == "up", "\(measure): \(told.text)")
            let untold = try #require(withPrior.measure(measure)?.recordings)
            #expect(untold.noise.source == "prior" && !untold.significant, "\(measure): \(untold.text)")
        }
    }
}
