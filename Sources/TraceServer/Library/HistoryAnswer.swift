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

extension HistoryAnswer {
    /// The answer's JSON: byte for byte what `encodeJSON` writes (sorted keys), with `builds`
    /// written by hand. A 2,000-trace history is 2,000 points of five fields, and
    /// JSONEncoder's tree of them cost more than the catalog read (issue 40: the history's p99).
    /// "builds" sorts first among the answer's keys, so the rest is JSONEncoder's answer without it.
    func json() throws -> [UInt8] {
        var rest = self
        rest.builds = []
        let encoded = try encodeJSON(rest)
        let emptyBuilds = Array(#"{"builds":[]"#.utf8)
        guard encoded.starts(with: emptyBuilds) else { return try encodeJSON(self) }
        var out = HandWrittenJSON()
        out.bytes.reserveCapacity(encoded.count + builds.reduce(0) { $0 + 120 + $1.traces.count * 200 })
        out.raw(#"{"builds":["#)
        for (index, build) in builds.enumerated() {
            if index > 0 { out.raw(",") }
            out.raw(#"{"build":"#); try out.optionalString(build.build)
            out.raw(#","commit":"#); try out.optionalString(build.commit)
            out.raw(#","index":"#); out.int(Int64(build.index))
            out.raw(#","label":"#); try out.string(build.label)
            out.raw(#","max":"#); out.int(build.max)
            out.raw(#","median":"#); out.int(build.median)
            out.raw(#","min":"#); out.int(build.min)
            out.raw(#","traces":["#)
            for (pointIndex, point) in build.traces.enumerated() {
                if pointIndex > 0 { out.raw(",") }
                out.raw(#"{"check":"#)
                if let check = point.check {
                    out.raw(#"{"baselineId":"#); try out.optionalString(check.baselineId)
                    out.raw(#","failedRules":"#); out.int(Int64(check.failedRules))
                    out.raw(#","passed":"#); out.raw(check.passed ? "true" : "false")
                    out.raw(#","rules":"#); out.int(Int64(check.rules))
                    out.raw(#","summary":"#); try out.string(check.summary)
                    out.raw("}")
                } else {
                    out.raw("null")
                }
                out.raw(#","id":"#); try out.string(point.id)
                out.raw(#","name":"#); try out.string(point.name)
                out.raw(#","uploadedAt":"#); try out.string(point.uploadedAt)
                out.raw(#","value":"#); out.int(point.value)
                out.raw("}")
            }
            out.raw("]}")
        }
        out.raw("]")
        out.bytes.append(contentsOf: encoded[emptyBuilds.count...])
        return out.bytes
    }
}

/// JSON tokens appended to bytes as `encodeJSON` writes them: printable ASCII strings as they
/// are, any other string through JSONEncoder itself (so its escaping is the one used).
private struct HandWrittenJSON {
    var bytes: [UInt8] = []

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func int(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func string(_ text: String) throws {
        let utf8 = text.utf8
        if utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
        } else {
            bytes.append(contentsOf: try encodeJSON(text))
        }
    }

    mutating func optionalString(_ text: String?) throws {
        if let text { try string(text) } else { raw("null") }
    }
}
