import TraceModel

/// How often compare, check and history claim a change, measured on `NoisyRecordings`: the
/// false-alarm rates when nothing changed and the power when something did (docs/statistics.md).
/// Every recording is drawn afresh from its seed, none is reused between trials.
public struct NoiseSimulation: Sendable {
    public struct Rate: Sendable {
        public var name: String
        /// "<= 5 %", ">= 85 %", "> 50 %", or "–" (measured, no target).
        public var target: String
        public var hits: Int
        public var trials: Int
        public var meets: Bool

        /// Without `atMost`, `atLeast` or `over`: a measured rate with no target ("–", always met).
        init(_ name: String, hits: Int, trials: Int, atMost: Double? = nil, atLeast: Double? = nil, over: Double? = nil) {
            self.name = name
            self.hits = hits
            self.trials = trials
            let share = Double(hits) / Double(max(1, trials))
            func percent(_ value: Double) -> Int { Int((value * 100).rounded()) }
            if let atMost {
                target = "<= \(percent(atMost)) %"
                meets = share <= atMost
            } else if let atLeast {
                target = ">= \(percent(atLeast)) %"
                meets = share >= atLeast
            } else if let over {
                target = "> \(percent(over)) %"
                meets = share > over
            } else {
                target = "–"
                meets = true
            }
        }

        public var percent: Double { Double(hits) / Double(max(1, trials)) * 100 }

        /// The 95 % Wilson score interval of the rate, in percent: what `trials` can tell of it.
        public var interval: (low: Double, high: Double) {
            let n = Double(max(1, trials)), share = Double(hits) / n, z = 1.959964
            let centre = (share + z * z / (2 * n)) / (1 + z * z / n)
            let half = z * (share * (1 - share) / n + z * z / (4 * n * n)).squareRoot() / (1 + z * z / n)
            return (max(0, centre - half) * 100, min(1, centre + half) * 100)
        }
    }

    /// The view a slower build slows.
    public static let slowView = "TreeRow"

    public var seed: UInt64
    private var nextSeed: UInt64

    public init(seed: UInt64) {
        self.seed = seed
        nextSeed = seed &* 1_000_003
    }

    private mutating func recordings(_ count: Int, _ build: NoisyRecordings.Build = .init()) -> [Trace] {
        (0..<count).map { _ in
            nextSeed &+= 1
            return NoisyRecordings.trace(build, seed: nextSeed)
        }
    }

    private static func side(_ traces: [Trace]) -> ComparisonSide { .pooled(traces.map { $0.comparisonSide(findings: []) }) }

    /// Whether a comparison claims any view changed: a count or a time per update, either way.
    static func claimsAnyViewChange(_ comparison: TraceComparison) -> Bool {
        comparison.views.contains { view in
            [.fewer, .more, .new, .gone].contains(view.countChange) || view.speedChange == .faster || view.speedChange == .slower
        }
    }

    /// Compare `runs` recordings a side, B's `slowView` (or, `everyView`, every view) slower by
    /// `factor` (1: nothing changed): how many of `trials` claim any change (factor 1), or name
    /// `slowView` slower.
    public mutating func compare(runs: Int, factor: Double, trials: Int, everyView: Bool = false) -> Int {
        let slowed = everyView ? NoisyRecordings.views.map(\.name) : [Self.slowView]
        var hits = 0
        for _ in 0..<trials {
            let slowdown = factor == 1 ? [:] : Dictionary(uniqueKeysWithValues: slowed.map { ($0, factor) })
            let a = Self.side(recordings(runs)), b = Self.side(recordings(runs, .init(slowdown: slowdown)))
            let comparison = TraceComparison(a, b, causeLimit: 0, functionLimit: 0)
            if factor == 1 {
                if Self.claimsAnyViewChange(comparison) { hits += 1 }
            } else if comparison.views.contains(where: { $0.view == Self.slowView && $0.speedChange == .slower }) {
                hits += 1
            }
        }
        return hits
    }

    /// `tracesvc check --baseline` with `baselines` recordings: how many of `trials` new
    /// recordings (`slowView` slower by `factor`) fail either baseline rule.
    public mutating func check(baselines: Int, factor: Double, trials: Int) -> Int {
        var failures = 0
        for _ in 0..<trials {
            let before = recordings(baselines)
            let after = recordings(1, .init(slowdown: factor == 1 ? [:] : [Self.slowView: factor]))[0]
            if after.baselineResults(against: before, tolerance: BaselineTolerance()).contains(where: { !$0.passed }) { failures += 1 }
        }
        return failures
    }

    /// Runs the compare and check simulations; `trials` each.
    public mutating func compareAndCheck(trials: Int) -> [Rate] {
        [
            Rate("compare 1 vs 1, nothing changed: claims any view change", hits: compare(runs: 1, factor: 1, trials: trials), trials: trials, atMost: 0.05),
            Rate("compare 1 vs 1, one view 1.6x slower: names it slower (against the other views)", hits: compare(runs: 1, factor: 1.6, trials: trials),
                 trials: trials, atLeast: 0.85),
            // No target: what one recording a side cannot tell (docs/statistics.md says so).
            Rate("compare 1 vs 1, every view 1.6x slower: names TreeRow slower", hits: compare(runs: 1, factor: 1.6, trials: trials, everyView: true),
                 trials: trials),
            Rate("compare 5 vs 5, one view 1.3x slower: names it slower", hits: compare(runs: 5, factor: 1.3, trials: trials), trials: trials, atLeast: 0.92),
            Rate("compare 5 vs 5, nothing changed: claims any view change", hits: compare(runs: 5, factor: 1, trials: trials), trials: trials, atMost: 0.05),
            Rate("check, 1 baseline, nothing changed: fails", hits: check(baselines: 1, factor: 1, trials: trials), trials: trials, atMost: 0.05),
            Rate("check, 5 baselines, nothing changed: fails", hits: check(baselines: 5, factor: 1, trials: trials), trials: trials, atMost: 0.05),
            Rate("check, 5 baselines, one view 1.6x slower: fails", hits: check(baselines: 5, factor: 1.6, trials: trials), trials: trials, atLeast: 0.92),
        ]
    }
}

extension NoiseSimulation {
    /// One series of `builds` builds, one recording each, of `metric` over `NoisyRecordings`:
    /// from build `stepAt` on (nil: never), `build` instead of the unchanged one.
    private mutating func series(builds: Int, stepAt: Int?, _ build: NoisyRecordings.Build, metric: (Trace) -> Int64) -> [[Int64]] {
        (0..<builds).map { index in
            let changed = stepAt.map { index >= $0 } ?? false
            return [metric(recordings(1, changed ? build : .init())[0])]
        }
    }

    static func bodyTime(_ view: String) -> (Trace) -> Int64 {
        { trace in
            var total: Int64 = 0
            for row in 0..<trace.updates.count where trace.string(trace.updates.viewName[row]) == view { total += trace.updates.duration[row] }
            return total
        }
    }

    /// The red bodies of `NoisyRecordings.redView` (the history's red-bodies metric of that view):
    /// 0 in an unchanged build. Other views have red bodies of their own (HarvestChart's 2.4 ms).
    static func redBodies(_ trace: Trace) -> Int64 {
        var count: Int64 = 0
        for row in 0..<trace.updates.count
        where LongUpdateSeverity(duration: trace.updates.duration[row]) == .red && trace.string(trace.updates.viewName[row]) == NoisyRecordings.redView {
            count += 1
        }
        return count
    }

    /// The history rows: unchanged 30-build series (any step is a false alarm), a 1.3x step from
    /// build 16 on, after 15 good ones (named within 2 builds), and a 4x step and 0 -> 10 red bodies after 4 good builds
    /// (named by the second bad build).
    public mutating func history(series count: Int) -> [Rate] {
        var falseAlarms = 0, placed = 0, exact = 0, early = 0, earlyRed = 0
        let time = Self.bodyTime(Self.slowView)
        for _ in 0..<count {
            if !StepDetection(builds: series(builds: 30, stepAt: nil, .init(), metric: time)).steps.isEmpty { falseAlarms += 1 }
            let stepped = StepDetection(builds: series(builds: 30, stepAt: 15, .init(slowdown: [Self.slowView: 1.3]), metric: time))
            if stepped.steps.contains(where: { abs($0.index - 15) <= 2 && $0.direction == "up" }) { placed += 1 }
            if stepped.steps.contains(where: { $0.index == 15 && $0.direction == "up" }) { exact += 1 }
            let young = StepDetection(builds: series(builds: 6, stepAt: 4, .init(slowdown: [Self.slowView: 4]), metric: time))
            if young.steps.contains(where: { $0.index == 4 && $0.direction == "up" }) { early += 1 }
            let red = StepDetection(builds: series(builds: 6, stepAt: 4, .init(redBodies: 10), metric: Self.redBodies))
            if red.steps.contains(where: { $0.index == 4 && $0.direction == "up" }) { earlyRed += 1 }
        }
        return [
            Rate("history, unchanged 30 builds: shows any change point", hits: falseAlarms, trials: count, atMost: 1.0 / 12),
            Rate("history, 1.3x step from build 16 of 30: named within 2 builds", hits: placed, trials: count, atLeast: 11.0 / 12),
            // "Most of them exactly": more than half.
            Rate("history, 1.3x step from build 16 of 30: named at build 16 exactly", hits: exact, trials: count, over: 0.5),
            Rate("history, 4x step after 4 good builds: named by the 2nd bad build", hits: early, trials: count, atLeast: 1),
            Rate("history, ThumbnailView red bodies 0 -> 10 after 4 good: by the 2nd bad", hits: earlyRed, trials: count, atLeast: 1),
        ]
    }
}
