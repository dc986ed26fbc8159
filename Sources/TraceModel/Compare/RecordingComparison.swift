// A view's time per update compared recording by recording (docs/statistics.md): each recording
// gives one value, the mean duration of the view's updates in it, on a log scale. A change is
// claimed when it is beyond the run-to-run noise (`RecordingEffect`), or when the view moved
// against the other views of the same recordings: the views of one recording share its factor
// (a hot device slows them all), so a view that moved while the rest did not is told apart from
// noise even with one recording a side. The rank test of the updates stays as detail within
// the recordings (`ViewComparison.durations`): its updates are not independent samples.

#if canImport(Glibc)
import Glibc  // log: the C math library only
#elseif canImport(Darwin)
import Darwin
#endif

extension ComparisonSide.ViewSample {
    /// The log of the view's mean duration in each recording that ran it.
    var runLogMeans: [Double] {
        zip(runTotals, runCounts).compactMap { total, count in count > 0 && total > 0 ? log(Double(total) / Double(count)) : nil }
    }

    /// The log variance of one update's duration, read from at most 256 evenly spaced of the
    /// sorted durations; nil below `RecordingComparison.ownSpreadMinimum` updates.
    var updateLogVariance: Double? {
        let durations = sortedDurations.filter { $0 > 0 }
        guard durations.count >= RecordingComparison.ownSpreadMinimum else { return nil }
        let step = max(1, durations.count / 256)
        var sum = 0.0, squares = 0.0, n = 0.0
        for index in stride(from: 0, to: durations.count, by: step) {
            let value = log(Double(durations[index]))
            sum += value
            squares += value * value
            n += 1
        }
        return max(0, (squares - sum * sum / n) / (n - 1))
    }

    /// Updates in a recording that ran the view, on average.
    var updatesPerRun: Double { Double(sortedDurations.count) / Double(max(1, runCounts.count { $0 > 0 })) }
}

enum RecordingComparison {
    /// Views the shared factor is read from, at least: fewer give no reference.
    static let referenceViews = 5
    /// A view's own move against the others counts from this share on (the verdict's 10 %).
    static let minimumRelativeShift = log(1.1)
    /// A view's own spread of single updates is read from this many updates on; fewer take the
    /// spread of the other views' updates (one update says nothing of its own spread).
    static let ownSpreadMinimum = 8

    /// The time-per-update effect of every view both sides ran, by key. `prior`: the noise when
    /// the recordings do not measure it (the history's, else `RunNoise.prior`).
    static func speedEffects(
        _ a: ComparisonSide, _ b: ComparisonSide, prior: RunNoise = .prior
    ) -> [ComparisonSide.ViewKey: RecordingEffect] {
        struct Row { var key: ComparisonSide.ViewKey, absolute: RecordingEffect, difference: Double, within: Double }
        var rows: [Row] = []
        // The spread of single updates of the median view that shows its own (one long-tailed
        // view does not make every other one untellable).
        let spreads = [a, b].flatMap { $0.views.values.compactMap(\.updateLogVariance) }
        let typicalSpread = spreads.isEmpty ? RunNoise.defaultSigma * RunNoise.defaultSigma : median(spreads)
        func within(_ sample: ComparisonSide.ViewSample, runs: Int) -> Double {
            (sample.updateLogVariance ?? typicalSpread) / sample.updatesPerRun / Double(runs)
        }
        for (key, before) in a.views {
            guard let after = b.views[key] else { continue }
            let logsA = before.runLogMeans, logsB = after.runLogMeans
            guard !logsA.isEmpty, !logsB.isEmpty else { continue }
            let within = within(before, runs: logsA.count) + within(after, runs: logsB.count)
            let difference = logsB.reduce(0, +) / Double(logsB.count) - logsA.reduce(0, +) / Double(logsA.count)
            rows.append(Row(key: key, absolute: RecordingEffect(logsA: logsA, logsB: logsB, prior: prior, within: within), difference: difference, within: within))
        }
        var effects: [ComparisonSide.ViewKey: RecordingEffect] = [:]
        for row in rows { effects[row.key] = row.absolute }
        guard rows.count >= referenceViews else { return effects }
        // The recordings' shared factor: the median view's change; the views' own spread about it
        // (the median absolute deviation, scaled to a standard deviation).
        let shared = median(rows.map(\.difference))
        let spread = 1.4826 * median(rows.map { abs($0.difference - shared) })
        let z = NormalDistribution.quantile(1 - RecordingEffect.alpha / (2 * Double(rows.count)))
        for row in rows where !row.absolute.significant {
            let own = row.difference - shared
            guard abs(own) >= minimumRelativeShift else { continue }
            let relative = RecordingEffect(
                against: "other-views", runsA: row.absolute.runsA, runsB: row.absolute.runsB, difference: own,
                standardError: (spread * spread + row.within).squareRoot(), noise: row.absolute.noise, z: z
            )
            if relative.significant { effects[row.key] = relative }
        }
        return effects
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
