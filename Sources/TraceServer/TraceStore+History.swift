import Foundation
import TraceFormats
import TraceModel
import TraceStorage

/// What a history chart asks for (`GET /api/history`).
public struct HistoryRequest: Sendable {
    public var tags: [TraceTag] = []
    /// nil: the view's total body time.
    public var metric: HistoryMetric?
    public var module: String?
    /// nil with a view metric: the view with the most body time in the latest traces.
    public var view: String?
    public var finding: String?
    public var order: HistoryOrder = .upload
    /// The latest this many traces the tags match.
    public var limit = 200
    public var window = HistorySeries.defaultWindow

    public init() {}
}

/// The chart's axis: upload order, or the `commit-time` tag's (ISO 8601 or seconds since 1970).
public enum HistoryOrder: String, Sendable, CaseIterable {
    case upload, commit
}

/// `GET /api/history`: one metric over builds, its change points, the findings' history.
public struct HistoryAnswer: Sendable, Encodable {
    public struct MetricInfo: Sendable, Encodable {
        public var name: String
        public var title: String
        public var unit: String
        public var scope: String

        init(_ metric: HistoryMetric) {
            name = metric.rawValue
            title = metric.title
            unit = metric.unit
            scope = metric.scope.rawValue
        }
    }

    public struct ViewChoice: Sendable, Encodable {
        public var module: String
        public var view: String
        public var totalNs: Int64
    }

    public var metric: MetricInfo
    public var tags: [String]
    @NullWhenAbsent public var view: String?
    @NullWhenAbsent public var module: String?
    @NullWhenAbsent public var finding: String?
    public var order: String
    /// Traces the tags match; the chart holds the latest `limit` of them that are measured.
    public var matched: Int
    public var shown: Int
    /// Of the latest `limit`, those whose figures the background has not made yet.
    public var pending: Int
    public var window: Int
    public var builds: [HistorySeries.Build]
    public var changePoints: [HistorySeries.ChangePoint]
    @NullWhenAbsent public var firstBad: HistorySeries.ChangePoint?
    /// `HistorySeries.suspect`, `noise` and `verdict`: a young step, the noise band, the sentence.
    @NullWhenAbsent public var suspect: HistorySeries.ChangePoint?
    public var noise: RunNoise
    public var verdict: String
    public var findings: [HistorySeries.FindingHistory]
    /// The views of the latest traces, the most body time first (the page's view picker).
    public var views: [ViewChoice]
    /// Every metric a history can follow.
    public var metrics: [MetricInfo]
    public var notes: [String]
}

extension TraceStore {
    /// Stamped on stored measurements: a parser bump or a change of what is measured makes the
    /// background measure every trace again.
    public static let measuredVersion = TraceImporter.parserVersion * 1000 + TraceMeasurements.version

    // MARK: Tags

    /// Replaces an upload's tags.
    public func setTags(_ tags: [TraceTag], id: String) async throws(StoreError) -> TraceRecord {
        if let sample = samples[id] { throw .readOnlySample(name: sample.record.name) }
        guard let entry = try await service({ try await self.storage.catalog.setTags(tags, id: id) }) else { throw .unknownTrace(id: id) }
        return TraceRecord(entry: entry)
    }

    /// The tags of an upload sent again: its keys take the given values, the others stay.
    func adding(_ tags: [TraceTag], to entry: CatalogEntry) async throws(StoreError) -> TraceRecord {
        let given = Set(tags.map(\.key))
        let kept = entry.tags.compactMap { try? TraceTag(parsing: $0) }.filter { !given.contains($0.key) }
        let merged = (kept + tags).sorted()
        guard merged.map(\.text) != entry.tags.sorted(), merged.count <= TraceTag.maxPerTrace else { return TraceRecord(entry: entry) }
        return try await setTags(merged, id: entry.id)
    }

    // MARK: Notes and verdicts

    public func notes(traceID: String) async throws(StoreError) -> [TraceNote] {
        if samples[traceID] != nil { return [] }
        return try await service { try await self.storage.catalog.notes(traceID: traceID) }
    }

    public func addNote(traceID: String, target: TraceNote.Target, text: String) async throws(StoreError) -> TraceNote {
        if let sample = samples[traceID] { throw .readOnlySample(name: sample.record.name) }
        let note = TraceNote(id: Self.randomNoteID(), traceID: traceID, target: target, text: text, createdAtMicros: CatalogEntry.nowMicros())
        guard try await service({ try await self.storage.catalog.addNote(note) }) else { throw .unknownTrace(id: traceID) }
        return note
    }

    /// False when the trace has no such note.
    public func deleteNote(id: String, traceID: String) async throws(StoreError) -> Bool {
        if let sample = samples[traceID] { throw .readOnlySample(name: sample.record.name) }
        return try await service { try await self.storage.catalog.deleteNote(id: id, traceID: traceID) }
    }

    nonisolated static func randomNoteID() -> String {
        String((0..<16).map { _ in "0123456789abcdef".randomElement()! })
    }

    public func recordVerdict(_ verdict: CheckVerdict) async throws(StoreError) {
        if let sample = samples[verdict.traceID] { throw .readOnlySample(name: sample.record.name) }
        guard try await service({ try await self.storage.catalog.recordVerdict(verdict) }) else { throw .unknownTrace(id: verdict.traceID) }
    }

    // MARK: History

    /// One metric over the latest traces with the request's tags, read from the catalog only:
    /// the view picker summed in SQL, the view rows of the asked view only (none for a trace or
    /// finding metric), all of it within a claim on the memory budget.
    public func history(_ request: HistoryRequest) async throws(StoreError) -> HistoryAnswer {
        let catalog = storage.catalog
        let claim: MemoryBudget.Claim
        do { claim = try await memory.claim(Self.historyMemoryEstimate(traces: request.limit)) } catch { throw Self.storeError(error) }
        defer { withExtendedLifetime(claim) {} }
        let page = try await service { try await catalog.page(CatalogQuery(tags: request.tags), limit: request.limit, after: nil) }
        let ids = page.entries.map(\.id)
        // A trace uploaded a moment ago may still be having its figures stored.
        try await waitForExtras(of: ids)
        // The view picker: the views of the latest few traces, most body time first.
        let views = try await service { try await catalog.topViews(of: Array(ids.prefix(3)), limit: 100) }
            .map { HistoryAnswer.ViewChoice(module: $0.module, view: $0.view, totalNs: $0.totalNs) }

        let metric = request.metric ?? .bodyTimeTotal
        var view = request.view, module = request.module
        if metric.scope == .view, view == nil, let top = views.first(where: { $0.view != TraceMeasurements.otherViewsName }) ?? views.first {
            (view, module) = (top.view, top.module)
        }
        let wantedViews: MeasuredViews = if metric.scope == .view, let view { .named(view) } else { .none }
        let measured = try await service { try await catalog.measurements(of: ids, views: wantedViews) }
        let verdicts = try await service { try await catalog.verdicts(of: ids) }

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
                id: entry.id, name: entry.name, orderKey: orderKey, uploadedAt: entry.uploadedAtText, tags: entry.tags.sorted(),
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
            findings: Array(series.findingHistories(measured.mapValues(\.findings)).prefix(100)), views: Array(views),
            metrics: HistoryMetric.allCases.map(HistoryAnswer.MetricInfo.init), notes: notes
        )
    }

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

    // MARK: Measuring in the background

    nonisolated static func isOutage(_ error: StorageError) -> Bool {
        switch error {
        case .unavailable, .failed: true
        case .missingBlob, .corruptBlob: false
        }
    }

    /// Measures what is missing, a few traces at a time, then looks again every minute.
    func measureInBackground() async {
        while !Task.isCancelled {
            let measured = await measureStale()
            try? await Task.sleep(for: measured > 0 ? .milliseconds(50) : .seconds(60))
        }
    }

    /// Measures up to `limit` uploads whose figures are missing or of another `measuredVersion`
    /// (a parser bump, a trace stored before the history); returns how many it stored. Replicas
    /// may measure one trace twice: the second write replaces the first with the same figures.
    @discardableResult
    public func measureStale(limit: Int = 8) async -> Int {
        let stale: [CatalogEntry]
        do {
            stale = try await storage.catalog.unmeasured(version: Self.measuredVersion, limit: limit + unmeasurable.count)
                // A new upload's figures are being stored by its extras (`prepareExtras`).
                .filter { !unmeasurable.contains($0.id) && extrasInFlight[$0.id]?.measures != true }
        } catch {
            logger.warning("measuring: cannot list the traces to measure: \(error)")
            return 0
        }
        var stored = 0
        for entry in stale.shuffled().prefix(limit) {
            do {
                let loaded = try await loaded(id: entry.id)
                let measurements = try await loadGate.run { loaded.measurements() }
                if try await storage.catalog.storeMeasurements(
                    measurements, id: entry.id, measuredVersion: Self.measuredVersion, parserVersion: TraceImporter.parserVersion
                ) { stored += 1 }
            } catch {
                // A storage service that is down: later. Bytes missing or damaged, a file the parser refuses: not again.
                if case let .service(failure) = Self.storeError(error), Self.isOutage(failure) {
                    logger.warning("measuring: \(entry.id): \(error); trying again later")
                    break
                }
                unmeasurable.insert(entry.id)
                logger.error("measuring: trace \(entry.id) cannot be measured: \(error)")
            }
        }
        if stored > 0 { logger.info("measured \(stored) trace(s) for the history") }
        return stored
    }
}
