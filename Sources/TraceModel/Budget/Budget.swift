// Performance budgets for CI (`tracesvc check`): limits a trace must stay within. The file
// form is docs/budgets.schema.json; TraceFormats reads it, `Trace.evaluate(_:)` checks it.

public struct Budget: Sendable, Equatable {
    /// The span every rule (and the baseline comparison) looks at, unless a rule has its own.
    public var window: BudgetWindow?
    public var rules: [BudgetRule]
    /// How much a view may grow against a baseline trace before it counts as a regression.
    public var baseline: BaselineTolerance

    public init(window: BudgetWindow? = nil, rules: [BudgetRule] = [], baseline: BaselineTolerance = BaselineTolerance()) {
        self.window = window
        self.rules = rules
        self.baseline = baseline
    }
}

/// One limit: `metric` measured over the updates (or hangs, hitches, cause events) in scope must be at most `limit`.
public struct BudgetRule: Sendable, Equatable {
    public var name: String
    public var metric: BudgetMetric
    /// View names the rule looks at (any of them matching); empty means every view.
    public var views: [Glob]
    /// Each matching view on its own must be within the limit (instead of all of them together).
    public var perView: Bool
    /// Only what overlaps this span of the recording (ns from its start); nil = the budget's window.
    public var window: BudgetWindow?
    /// A count, or nanoseconds for time metrics.
    public var limit: Int64
    /// `findings` rules: which findings count.
    public var findings: FindingsFilter
    /// `per-interaction` rules: the signpost intervals measured, by name ("Favorite Tap").
    public var interaction: Glob?
    /// Main-actor rules: resume functions the rule looks at (a wait counts for the function the
    /// task resumed in next); empty means every one.
    public var functions: [Glob]
    /// `main-actor-tasks-over`: a run longer than this counts; nil = one frame at the trace's refresh rate.
    public var over: Nanoseconds?
    /// The line of the budget file the rule starts on (for CI annotations); nil for a rule made in code.
    public var line: Int?

    public init(
        name: String, metric: BudgetMetric, views: [Glob] = [], perView: Bool = false, window: BudgetWindow? = nil, limit: Int64,
        findings: FindingsFilter = FindingsFilter(), functions: [Glob] = [], over: Nanoseconds? = nil, interaction: Glob? = nil
    ) {
        self.name = name
        self.findings = findings
        self.functions = functions
        self.over = over
        self.interaction = interaction
        self.metric = metric
        self.views = views
        self.perView = perView
        self.window = window
        self.limit = limit
    }

    func matches(view name: String) -> Bool {
        views.isEmpty || views.contains { $0.matches(name) }
    }

    func matches(function name: String) -> Bool {
        functions.isEmpty || functions.contains { $0.matches(name) }
    }
}

/// The findings (`Trace.findings`, docs/findings.md) a `findings` rule counts.
public struct FindingsFilter: Sendable, Equatable {
    /// Kinds that count; empty means every kind.
    public var kinds: [FindingKind]
    /// Findings below this severity do not count.
    public var minSeverity: FindingSeverity
    /// The thresholds the findings are found with.
    public var options: FindingsOptions

    public init(kinds: [FindingKind] = [], minSeverity: FindingSeverity = .low, options: FindingsOptions = FindingsOptions()) {
        self.kinds = kinds
        self.minSeverity = minSeverity
        self.options = options
    }
}

/// A span of the recording, in ns from its start; either end may be open.
public struct BudgetWindow: Sendable, Equatable {
    public var from: Nanoseconds?
    public var to: Nanoseconds?
    public init(from: Nanoseconds? = nil, to: Nanoseconds? = nil) {
        self.from = from
        self.to = to
    }

    /// The window in `trace`'s own times; an open end is the recording's start or end.
    public func range(in trace: Trace) -> TimeRange {
        let start = trace.metadata.start
        return TimeRange(start: from.map { start + $0 } ?? start, end: to.map { start + $0 } ?? trace.metadata.end)
    }
}

public enum BudgetUnit: String, Sendable {
    case count, nanoseconds
    /// Growth against a baseline, in whole percent.
    case percent
}

public enum BudgetMetric: String, Sendable, CaseIterable {
    /// Updates over 1 ms (all kinds), as the long-update lanes colour them.
    case redUpdates = "red-updates"
    /// Updates over 500 µs and up to 1 ms.
    case orangeUpdates = "orange-updates"
    /// Red and orange updates together.
    case longUpdates = "long-updates"
    /// Time spent in view bodies (view-body updates).
    case bodyTimeTotal = "body-time-total"
    /// 95th percentile of view-body update durations (nearest rank).
    case bodyTimeP95 = "body-time-p95"
    case hangCount = "hang-count"
    case hangLongest = "hang-longest"
    case hangTotal = "hang-total"
    case hitchCount = "hitch-count"
    case hitchLongest = "hitch-longest"
    case hitchTotal = "hitch-total"
    /// Most view updates one cause event (a State or @Observable change, a gesture...) made run.
    /// Creation edges (views appearing) are not counted: only invalidations.
    case fanOut = "fan-out"
    /// Findings (docs/findings.md) of the rule's kinds and at least its severity.
    case findings = "findings"
    /// Longest run of a Swift task on the Main Actor (or the main thread).
    case mainActorRunLongest = "main-actor-run-longest"
    /// Time Swift tasks ran on the Main Actor.
    case mainActorRunTotal = "main-actor-run-total"
    /// Longest wait of a task for the Main Actor (enqueued on it).
    case mainActorWaitLongest = "main-actor-wait-longest"
    /// Time tasks waited for the Main Actor.
    case mainActorWaitTotal = "main-actor-wait-total"
    /// Tasks with a run on the Main Actor longer than the rule's `over`.
    case mainActorTasksOver = "main-actor-tasks-over"
    /// Most view bodies (of the rule's views) that started in one signpost interval of the rule's
    /// `interaction`: "at most 2 LandmarkListItemView bodies per Favorite Tap".
    case perInteraction = "per-interaction"

    public var unit: BudgetUnit {
        switch self {
        case .redUpdates, .orangeUpdates, .longUpdates, .hangCount, .hitchCount, .fanOut, .findings, .mainActorTasksOver, .perInteraction: .count
        case .bodyTimeTotal, .bodyTimeP95, .hangLongest, .hangTotal, .hitchLongest, .hitchTotal,
             .mainActorRunLongest, .mainActorRunTotal, .mainActorWaitLongest, .mainActorWaitTotal: .nanoseconds
        }
    }

    /// Metrics measured over views' updates, which `perView` splits by view.
    public var isPerView: Bool {
        switch self {
        case .redUpdates, .orangeUpdates, .longUpdates, .bodyTimeTotal, .bodyTimeP95: true
        default: false
        }
    }

    /// Metrics that `views` narrows (fan-out: the views that were made to run; findings: the views they are about).
    public var acceptsViews: Bool { isPerView || self == .fanOut || self == .findings || self == .perInteraction }

    /// Metrics of Swift tasks on the Main Actor, which `functions` narrows.
    public var isMainActor: Bool {
        switch self {
        case .mainActorRunLongest, .mainActorRunTotal, .mainActorWaitLongest, .mainActorWaitTotal, .mainActorTasksOver: true
        default: false
        }
    }

    public var summary: String {
        switch self {
        case .redUpdates: "updates over 1 ms"
        case .orangeUpdates: "updates over 500 µs, up to 1 ms"
        case .longUpdates: "updates over 500 µs"
        case .bodyTimeTotal: "total view-body time"
        case .bodyTimeP95: "95th percentile view-body duration"
        case .hangCount: "hangs"
        case .hangLongest: "longest hang"
        case .hangTotal: "total hang time"
        case .hitchCount: "hitches"
        case .hitchLongest: "longest hitch"
        case .hitchTotal: "total hitch time"
        case .fanOut: "most updates one cause event made run"
        case .findings: "findings"
        case .mainActorRunLongest: "longest run of a task on the Main Actor"
        case .mainActorRunTotal: "time tasks ran on the Main Actor"
        case .mainActorWaitLongest: "longest wait of a task for the Main Actor"
        case .mainActorWaitTotal: "time tasks waited for the Main Actor"
        case .mainActorTasksOver: "tasks that ran on the Main Actor longer than `over`"
        case .perInteraction: "most view bodies in one interval of a signpost"
        }
    }
}

/// Growth against a baseline that counts as a regression (when the comparison also finds the
/// change significant). Fractions: 0.1 = 10 % more than the baseline.
public struct BaselineTolerance: Sendable, Equatable {
    /// Allowed growth of a view's body count.
    public var count: Double
    /// Allowed growth of a view's total body time.
    public var time: Double
    /// Views the baseline check looks at; empty means every view.
    public var views: [Glob]

    public static let defaultCount = 0.10
    public static let defaultTime = 0.20

    public init(count: Double = defaultCount, time: Double = defaultTime, views: [Glob] = []) {
        self.count = count
        self.time = time
        self.views = views
    }
}
