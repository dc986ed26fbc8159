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
