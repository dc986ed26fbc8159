/// A short note a write-token holder attached to the evidence of a trace: an update, a time
/// range or a finding ("fixed in #1234: cached the formatter"). Kept in the catalog with the trace.
public struct TraceNote: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        case update(Int)
        case range(start: Int64, end: Int64)
        case finding(String)

        public var kind: String {
            switch self {
            case .update: "update"
            case .range: "range"
            case .finding: "finding"
            }
        }
    }

    /// Most characters of a note's text.
    public static let maxLength = 500
    /// Notes kept per trace.
    public static let maxPerTrace = 200

    /// Random, 16 lowercase hex digits: share links name a note by it (`nt=`).
    public var id: String
    public var traceID: String
    public var target: Target
    public var text: String
    public var createdAtMicros: Int64

    public init(id: String, traceID: String, target: Target, text: String, createdAtMicros: Int64) {
        self.id = id
        self.traceID = traceID
        self.target = target
        self.text = text
        self.createdAtMicros = createdAtMicros
    }

    /// The columns of `trace_notes` a target fills: kind, update, range start and end, finding.
    var targetColumns: (kind: String, update: Int64?, start: Int64?, end: Int64?, finding: String?) {
        switch target {
        case let .update(row): ("update", Int64(row), nil, nil, nil)
        case let .range(start, end): ("range", nil, start, end, nil)
        case let .finding(id): ("finding", nil, nil, nil, id)
        }
    }

    init?(id: String, traceID: String, kind: String, update: Int64?, start: Int64?, end: Int64?, finding: String?, text: String, createdAtMicros: Int64) {
        let target: Target
        switch kind {
        case "update": guard let update else { return nil }; target = .update(Int(update))
        case "range": guard let start, let end else { return nil }; target = .range(start: start, end: end)
        case "finding": guard let finding else { return nil }; target = .finding(finding)
        default: return nil
        }
        self.init(id: id, traceID: traceID, target: target, text: text, createdAtMicros: createdAtMicros)
    }
}

/// What `Catalog.addNote` did.
public enum NoteAddition: Sendable, Equatable {
    case added
    /// The trace has no row.
    case unknownTrace
    /// The trace has its most notes already.
    case full
}

/// The verdict of a `tracesvc check` on a trace, recorded on the server (the latest per trace):
/// the history shows pass or fail per build.
public struct CheckVerdict: Sendable, Equatable {
    public var traceID: String
    public var passed: Bool
    public var failedRules: Int
    public var rules: Int
    /// The trace it was checked against, when a baseline was given.
    public var baselineID: String?
    /// The check's one-line verdict ("2 of 9 rules failed").
    public var summary: String
    public var checkedAtMicros: Int64

    public static let maxSummaryLength = 300

    public init(traceID: String, passed: Bool, failedRules: Int, rules: Int, baselineID: String?, summary: String, checkedAtMicros: Int64) {
        self.traceID = traceID
        self.passed = passed
        self.failedRules = failedRules
        self.rules = rules
        self.baselineID = baselineID
        self.summary = summary
        self.checkedAtMicros = checkedAtMicros
    }
}
