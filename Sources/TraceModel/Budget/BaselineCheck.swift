// The baseline rule of `tracesvc check --baseline`: a view regressed when its body count or
// total body time grew beyond the tolerance AND the comparison finds the change significant
// (ViewComparison.significant: counts beyond noise, or the time per body over recordings beyond
// the run-to-run noise, the baselines' spread when there are two or more: docs/statistics.md).

extension Trace {
    /// Two results, "baseline-body-count" and "baseline-body-time", of this trace (the new one)
    /// against `baseline`, each restricted to `window` (ns from each recording's start).
    public func baselineResults(against baseline: Trace, tolerance: BaselineTolerance, window: BudgetWindow? = nil) -> [BudgetResult] {
        baselineResults(against: [baseline], tolerance: tolerance, window: window)
    }

    /// The same against several recordings of the baseline, pooled (`ComparisonSide.pooled`): a
    /// view regressed when this trace is beyond the baseline's runs (their mean, and beyond every
    /// run for a count) and the durations of all of them tell it apart.
    /// `earlier`: the noise of earlier recordings with the baseline's tags (`--baseline-tags`),
    /// the spread when the baselines cannot measure their own.
    public func baselineResults(
        against baselines: [Trace], tolerance: BaselineTolerance, window: BudgetWindow? = nil, earlier: EarlierNoise? = nil
    ) -> [BudgetResult] {
        let before = ComparisonSide.pooled(baselines.map { $0.comparisonSide(in: window?.range(in: $0), findings: []) })
        let comparison = TraceComparison(before, comparisonSide(in: window?.range(in: self), findings: []), earlier: earlier)
        let bodies = comparison.views.filter { view in
            view.kind == UpdateKind.viewBody.wireName && (tolerance.views.isEmpty || tolerance.views.contains { $0.matches(view.view) })
        }
        var notes: [String] = []
        let appeared = bodies.filter { $0.change == .appeared }.map(\.view)
        if !appeared.isEmpty {
            notes.append("only in the new trace (not counted as regressions): " + appeared.prefix(10).joined(separator: ", ")
                + (appeared.count > 10 ? " and \(appeared.count - 10) more" : ""))
        }
        if !tolerance.views.isEmpty, bodies.isEmpty {
            notes.append("no view body matches " + tolerance.views.map { "\"\($0.pattern)\"" }.joined(separator: ", "))
        }
        // Counts are exact: the rank-sum test's p-value is the time rule's evidence only.
        let count = baselineResult(
            name: "baseline: view body count", metric: "baseline-body-count", views: bodies, tolerance: tolerance.count,
            range: window?.range(in: self), notes: notes, usesDurationTest: false
        ) { Self.growth(Int64($0.a.count), Int64($0.b.count)) }
        // The time rule says where its noise came from.
        let time = baselineResult(
            name: "baseline: view body time", metric: "baseline-body-time", views: bodies, tolerance: tolerance.time,
            range: window?.range(in: self), notes: ["run-to-run noise: " + comparison.noise.text], usesDurationTest: true
        ) { Self.growth($0.a.totalNs, $0.b.totalNs) }
        return [count, time]
    }

    /// Growth from `before` to `after` as a fraction (0.5 = 50 % more); nil when there was nothing before.
    private static func growth(_ before: Int64, _ after: Int64) -> Double? {
        before > 0 ? Double(after - before) / Double(before) : nil
    }

    private func baselineResult(
        name: String, metric: String, views: [ViewComparison], tolerance: Double, range: TimeRange?, notes: [String],
        usesDurationTest: Bool, growth: (ViewComparison) -> Double?
    ) -> BudgetResult {
        let regressed = views.compactMap { view -> (ViewComparison, Double)? in
            guard view.significant, let grown = growth(view), grown > tolerance else { return nil }
            return (view, grown)
        }.sorted { ($0.1, $1.0.view) > ($1.1, $0.0.view) }
        let offenders = regressed.map { view, grown in
            let updates = viewUpdates(ViewUpdatesQuery(
                view: view.view, module: view.module, category: view.category, range: range,
                sort: .duration, descending: true, limit: BudgetOffender.listedUpdates
            ))
            return BudgetOffender(
                title: view.view, module: view.module, view: view.view, measured: Self.percent(grown),
                updates: updates.updates.map(\.id), updateCount: updates.total,
                change: BudgetOffender.Change(
                    countBefore: view.a.count, countAfter: view.b.count, totalBefore: view.a.totalNs, totalAfter: view.b.totalNs,
                    // Printed only where it decided: a view whose count moved beyond noise regressed on its count.
                    pValue: nil,
                    timeEffect: usesDurationTest && !ViewComparison.isCountChange(view.a, view.b) && view.recordings?.significant == true ? view.recordings : nil
                )
            )
        }
        // A pass reports the change there was: the largest beyond noise (a view that fell 61 % reads
        // "-61 %", not "+0 %"), else the largest growth within it.
        let changes = views.compactMap { view in growth(view).map { (view: view, growth: $0) } }
        let shown = changes.filter(\.view.significant).max { (abs($0.growth), $1.view.view) < (abs($1.growth), $0.view.view) }
            ?? changes.max { ($0.growth, $1.view.view) < ($1.growth, $0.view.view) }
        // A growth past the tolerance that the recordings could not tell: say what would settle it.
        var notes = notes
        if offenders.isEmpty, usesDurationTest,
           let untold = changes.filter({ $0.growth > tolerance && !$0.view.significant && $0.view.recordings != nil })
               .max(by: { ($0.growth, $1.view.view) < ($1.growth, $0.view.view) }), let effect = untold.view.recordings {
            notes.append("within run-to-run noise: \(untold.view.view) time per body \(effect.text); \(effect.limitText)")
        }
        var result = BudgetResult(
            name: name, metric: metric, unit: .percent, measured: offenders.first?.measured ?? shown.map { Self.percent($0.growth) } ?? 0,
            limit: Self.percent(tolerance),
            passed: offenders.isEmpty, offenders: Array(offenders.prefix(BudgetOffender.listedOffenders)), notes: notes
        )
        // A failure's offenders name the views; a pass names the one its figure is read from.
        result.measuredIn = offenders.isEmpty ? shown?.view.view : nil
        return result
    }

    private static func percent(_ fraction: Double) -> Int64 {
        Int64((min(fraction, 1e12) * 100).rounded())
    }
}
