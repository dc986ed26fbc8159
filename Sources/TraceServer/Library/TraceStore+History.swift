import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
    /// One metric over the latest traces with the request's tags, read from the catalog only:
    /// the view picker summed in SQL, the view rows of the asked view only (none for a trace or
    /// finding metric), of each trace's tags only those that place it (`build`, `commit`,
    /// `commit-time`), all of it within a claim on the memory budget. Off the store's actor: the
    /// series and its change points are computed on the request's task, so the store's other
    /// calls never wait behind a history.
    public nonisolated func history(_ request: HistoryRequest) async throws(StoreError) -> HistoryAnswer {
        let catalog = storage.catalog
        let claim: MemoryBudget.Claim
        do { claim = try await memory.claim(Self.historyMemoryEstimate(traces: request.limit)) } catch { throw Self.storeError(error) }
        defer { withExtendedLifetime(claim) {} }
        var query = CatalogQuery(tags: request.tags)
        query.tagKeys = Self.historyTagKeys
        let page = try await service { [query] in try await catalog.page(query, limit: request.limit, after: nil) }
        let ids = page.entries.map(\.id)
        // A trace uploaded a moment ago may still be having its figures stored.
        try await waitForExtras(of: ids)
        let metric = request.metric ?? .bodyTimeTotal
        var view = request.view, module = request.module
        // The catalog's reads at once, each on its own connection: the view picker (the views of
        // the latest few traces, most body time first), the verdicts, and the measurements as
        // soon as the view they need is known (the picker's first unless the request names one).
        let measured: [String: TraceMeasurements], verdicts: [String: CheckVerdict], views: [HistoryAnswer.ViewChoice]
        do {
            async let viewsRead = catalog.topViews(of: Array(ids.prefix(3)), limit: 100)
                .map { HistoryAnswer.ViewChoice(module: $0.module, view: $0.view, totalNs: $0.totalNs) }
            async let verdictsRead = catalog.verdicts(of: ids)
            if metric.scope == .view, view == nil {
                let picked = try await viewsRead
                if let top = picked.first(where: { $0.view != TraceMeasurements.otherViewsName }) ?? picked.first { (view, module) = (top.view, top.module) }
            }
            let wantedViews: MeasuredViews = if metric.scope == .view, let view { .named(view) } else { .none }
            (measured, verdicts, views) = try await (catalog.measurements(of: ids, views: wantedViews), verdictsRead, viewsRead)
        } catch {
            throw Self.storeError(error)
        }

        var notes: [String] = []
        var withoutCommitTime = 0
        let traces = page.entries.compactMap { entry -> HistoryTrace? in
            guard let measurements = measured[entry.id] else { return nil }
            let orderKey: Int64
            switch request.order {
            case .upload: orderKey = entry.uploadedAtMicros
            case .commit:
                guard let key = Self.commitTime(of: entry) else {
                    withoutCommitTime += 1
                    return nil
                }
                orderKey = key
            }
            let check = verdicts[entry.id].map {
                HistoryCheck(passed: $0.passed, failedRules: $0.failedRules, rules: $0.rules, baselineId: $0.baselineID, summary: $0.summary)
            }
            return HistoryTrace(
                id: entry.id, name: entry.name, orderKey: orderKey, uploadedAt: entry.uploadedAtText, tags: entry.tags,
                value: metric.value(in: measurements, module: module, view: view, finding: request.finding), check: check
            )
        }
        if page.total > page.entries.count { notes.append("the latest \(page.entries.count) of \(page.total) traces with these tags") }
        if withoutCommitTime > 0 { notes.append("\(withoutCommitTime) traces have no commit-time tag and are left out of the commit order") }
        let pending = ids.count - measured.count
        if pending > 0 { notes.append("\(pending) traces are still being measured") }
        let series = HistorySeries(metric: metric, traces: traces, window: request.window)
        return HistoryAnswer(
            metric: .init(metric), tags: request.tags.map(\.text), view: metric.scope == .view ? view : nil, module: metric.scope == .view ? module : nil,
            finding: metric.scope == .finding ? request.finding : nil, order: request.order.rawValue, matched: page.total, shown: traces.count,
            pending: pending, window: series.window, builds: series.builds, changePoints: series.changePoints, firstBad: series.firstBad,
            suspect: series.suspect, noise: series.noise, verdict: series.verdict,
            findings: Array(series.findingHistories { measured[$0]?.findings ?? [] }.prefix(100)), views: views,
            metrics: HistoryMetric.allCases.map(HistoryAnswer.MetricInfo.init), notes: notes
        )
    }

    /// The tags a history reads of its traces: what groups them into builds and orders them.
    static let historyTagKeys: Set<String> = HistoryTrace.buildKeyTags.union(["commit-time"])

    /// What one history read may hold: per trace its totals, the asked view's rows and its
    /// findings (both bounded per trace: `TraceMeasurements.maxViewRows`, `maxFindingRows`).
    nonisolated static func historyMemoryEstimate(traces: Int) -> Int {
        (1 << 20) + traces * (8 << 10)
    }

    /// The `commit-time` tag as µs since 1970: ISO 8601, or whole seconds.
    nonisolated static func commitTime(of entry: CatalogEntry) -> Int64? {
        guard let text = entry.tags.first(where: { $0.hasPrefix("commit-time:") })?.dropFirst("commit-time:".count) else { return nil }
        if let seconds = Int64(text) { return seconds.multipliedReportingOverflow(by: 1_000_000).partialValue }
        return CatalogEntry.micros(fromISO8601: String(text))
    }
}
