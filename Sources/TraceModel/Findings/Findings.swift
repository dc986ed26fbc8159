// Findings: the readings the WWDC talk teaches, made automatically. Each says what is wrong,
// what it costs, the usual fix and where the evidence is (updates, a cause graph, a CPU range).
// The rules live in FindingsRules.swift; kinds and defaults are documented in docs/findings.md.

/// Stable names: the API, the CLI's JSON and share links use them.
public enum FindingKind: String, Sendable, Codable, CaseIterable {
    case collectionFanOut = "collection-fan-out"
    case longBody = "long-body"
    case environmentChurn = "environment-churn"
    case hangExplained = "hang-explained"
    case hitchExplained = "hitch-explained"
    case repeatedBody = "repeated-body-in-transaction"
    case mainActorBlocked = "main-actor-blocked"
    case mainActorWait = "main-actor-wait"
    /// Instruments 27's layout tables: a layout pass longer than `longBodyNs`.
    case longLayout = "long-layout"
    /// Instruments 27's hang risks outside every recorded hang.
    case hangRisk = "hang-risk"

    /// The kind as a reader says it ("Collection fan-out"): verdict lines and pages name it so,
    /// ids and filters keep the stable name (the browser's FINDING_KIND_TITLES, format.js, agree).
    public var title: String {
        switch self {
        case .collectionFanOut: "Collection fan-out"
        case .longBody: "Long body"
        case .environmentChurn: "Environment churn"
        case .hangExplained: "Hang"
        case .hitchExplained: "Hitch"
        case .repeatedBody: "Repeated body"
        case .mainActorBlocked: "Main Actor blocked"
        case .mainActorWait: "Main Actor wait"
        case .longLayout: "Long layout"
        case .hangRisk: "Hang risk"
        }
    }
}

public enum FindingSeverity: String, Sendable, Codable, CaseIterable, Comparable {
    case low, medium, high

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Something a finding is about: a view, a property or environment value, a frame, a thread, a
/// Swift task (detail: where it was created) or the function a task resumed in (detail: the actor).
public struct FindingSubject: Sendable, Equatable, Encodable {
    public enum Role: String, Sendable, Encodable { case view, property, environment, frame, thread, task, function }
    public var role: Role
    public var name: String
    /// The view's module, the frame's binary, the property's owner, or "".
    public var detail: String

    public init(role: Role, name: String, detail: String = "") {
        self.role = role
        self.name = name
        self.detail = detail
    }
}

/// CPU time sampled in a frame the app called (the callee of the deepest app frame of each
/// sample, so `unum_open` under `NumberFormatter.init()` counts for `NumberFormatter.init()`).
public struct FindingFrame: Sendable, Equatable, Encodable {
    public var name: String
    public var binary: String
    public var isAppCode: Bool
    /// The app's frame that called it, or "" when the frame is the app's own or no app frame is on the stack.
    public var caller: String
    /// Weight of the samples attributed to it (ns of CPU).
    public var weightNs: Nanoseconds
    /// The frame's file and line, and its caller's, when the recording has them.
    @NullWhenAbsent public var source: CodeLocation? = nil
    @NullWhenAbsent public var callerSource: CodeLocation? = nil
}

/// Where to look: the browser and the CLI turn these into share links.
public struct FindingEvidence: Sendable, Equatable, Encodable {
    /// Update rows (ascending), at most `FindingsOptions.maxEvidenceUpdates`.
    public var updates: [Int]
    /// All updates the finding counts (may exceed `updates.count`).
    public var updateCount: Int
    /// Open its cause graph to see the cause.
    @NullWhenAbsent public var representativeUpdate: Int? = nil
    /// Open the CPU call tree of this range (on `thread`, or all threads when nil).
    @NullWhenAbsent public var range: TimeRange? = nil
    @NullWhenAbsent public var thread: Int? = nil
    /// Heaviest frames, most weight first.
    public var frames: [FindingFrame]
    /// Hangs and hitches: the share (0...1) of the interval the main thread was sampled on CPU;
    /// nil when the recording has no CPU samples.
    @NullWhenAbsent public var cpuCoverage: Double? = nil
    /// Swift task intervals (rows of `Trace.taskStates`, for `…/task-states/{row}`), the one to
    /// open first first: the task that ran on the Main Actor, then those it held up.
    public var taskStates: [Int] = []
    /// Hangs and hitches: the recorded intervals the finding reads, ascending (at most
    /// `FindingsOptions.maxEvidenceUpdates`); `[]` for the other kinds.
    public var intervals: [TimeRange] = []
    /// A view's findings: the CPU that proves it, the samples of all the updates the finding
    /// counts merged (the CPU pane of the view, `c=view`, with this filter); `range` is then one of them.
    @NullWhenAbsent public var cpuView: FindingCPUView? = nil
}

/// The merged CPU of a view's updates: its name and module, the category of its updates, and which
/// of them: a lane (`SummaryFilter`'s raw value, "long-view-body" for the long bodies) and those
/// longer than `longerThanNs` (the finding's threshold), so they are the updates the finding counts.
public struct FindingCPUView: Sendable, Equatable, Encodable {
    public var name: String
    public var module: String
    public var category: String
    public var filter: String
    public var longerThanNs: Nanoseconds
}

public struct Finding: Sendable, Equatable, Encodable {
    /// Stable for a trace whatever the thresholds: the kind and what it is about ("long-body:Landmarks.Row").
    public var id: String
    public var kind: FindingKind
    public var severity: FindingSeverity
    public var title: String
    public var subjects: [FindingSubject]
    /// Time the problem costs in the trace, and the time the suggested fix would save (an estimate).
    public var costNs: Nanoseconds
    public var savingNs: Nanoseconds
    /// How often it happened (events, bodies, transactions or intervals, as the title says):
    /// `costNs` is their total and `worstNs` the costliest one.
    public var occurrences: Int
    public var worstNs: Nanoseconds
    /// The saving is a lower bound ("at least"), not an estimate ("about").
    public var savingIsLowerBound = false
    public var fix: String
    public var evidence: FindingEvidence
    /// One incident's findings (`Trace.joiningIncidents`): a hitch or hang, the task that blocked
    /// the Main Actor meanwhile, the tasks that waited for it, each as its own rule found it, the
    /// leading one first; `[]` for a finding of its own.
    public var parts: [Finding] = []
}

/// Thresholds of the rules. Defaults are documented in docs/findings.md; each can be set by name
/// (`FindingsOptions.parameters`) from a query parameter or a CLI flag.
public struct FindingsOptions: Sendable, Equatable {
    /// Collection fan-out: bodies of one view type one change must run, in at least this many changes.
    public var fanOutMinBodies = 8
    public var fanOutMinEvents = 2
    /// Long body: a body is long above this; a view is reported with at least `longBodyMinCount` of them.
    public var longBodyNs: Nanoseconds = LongUpdateSeverity.redThreshold
    public var longBodyMinCount = 3
    /// Environment churn: one change notifies at least this many bodies, and at least this share of them do not run.
    public var environmentMinNotified = 2
    public var environmentMinSkippedShare = 0.5
    /// Repeated body: runs of one view's body, each from a different cause, within one update group.
    public var repeatedBodyMinRuns = 3
    /// Hangs and hitches: main thread sampled on CPU for at least this share of the interval = busy, else blocked.
    public var busyCoverage = 0.5
    /// Blocked intervals: frames sampled this long before and after the interval also count.
    public var blockedContextNs: Nanoseconds = 20_000_000
    /// Hang and hitch findings kept per kind (the longest).
    public var maxIntervalFindings = 10
    /// Main actor blocked: a task ran on the Main Actor longer than this; nil = one frame at the
    /// trace's refresh rate (60 Hz when the recording does not say).
    public var mainActorBlockedNs: Nanoseconds?
    /// Main actor wait: a task waited (was enqueued) for the Main Actor longer than this (one 60 Hz frame).
    public var mainActorWaitNs: Nanoseconds = MainActorWait.orangeThreshold
    public var topFrames = 5
    public var maxEvidenceUpdates = 100
    /// Environment churn: a value changing fewer times than this in the recording (the appearance,
    /// the locale) is reported low, with advice that fits a rare change.
    public static let environmentFrequentChanges = 3

    /// Bounds on the work and the answer, whatever the trace: long-body findings of the costliest
    /// `maxViewsWithFrames` views read their heaviest frames (each a pass over the samples in the
    /// view's updates), the others do without; a finding names at most `maxSubjectsPerRole`
    /// properties and views; the API lists the costliest `maxListed` findings with their total.
    public static let maxViewsWithFrames = 50
    public static let maxSubjectsPerRole = 10
    public static let maxListed = 200

    public init() {}

    /// A threshold settable by name: `fanOutMinBodies=12`.
    public struct Parameter: Sendable {
        public let name: String
        public let summary: String
        public let range: ClosedRange<Double>
        let keyPath: any WritableKeyPath<FindingsOptions, Double> & Sendable
    }

    public static let parameters: [Parameter] = [
        Parameter(name: "fanOutMinBodies", summary: "bodies of one view type one change must run", range: 2...1_000_000, keyPath: \.fanOutMinBodiesValue),
        Parameter(name: "fanOutMinEvents", summary: "changes that must fan out that wide", range: 1...1_000_000, keyPath: \.fanOutMinEventsValue),
        Parameter(name: "longBodyNs", summary: "a body longer than this (ns) is long", range: 1...Double(TraceLimits.time), keyPath: \.longBodyNsValue),
        Parameter(name: "longBodyMinCount", summary: "long bodies a view needs to be reported", range: 1...1_000_000, keyPath: \.longBodyMinCountValue),
        Parameter(name: "environmentMinNotified", summary: "bodies one environment change must notify", range: 1...1_000_000, keyPath: \.environmentMinNotifiedValue),
        Parameter(name: "environmentMinSkippedShare", summary: "share (0-1) of notified bodies that did not run", range: 0...1, keyPath: \.environmentMinSkippedShare),
        Parameter(name: "repeatedBodyMinRuns", summary: "runs of one body in one transaction", range: 2...1_000_000, keyPath: \.repeatedBodyMinRunsValue),
        Parameter(name: "busyCoverage", summary: "main-thread CPU share (0-1) above which a hang is busy, not blocked", range: 0...1, keyPath: \.busyCoverage),
        Parameter(name: "maxIntervalFindings", summary: "hang and hitch findings kept per kind", range: 0...100, keyPath: \.maxIntervalFindingsValue),
        Parameter(name: "mainActorBlockedNs", summary: "a task running on the Main Actor longer than this (ns) blocks it (default: one frame)", range: 1...Double(TraceLimits.time), keyPath: \.mainActorBlockedNsValue),
        Parameter(name: "mainActorWaitNs", summary: "a task waiting for the Main Actor longer than this (ns) is reported", range: 1...Double(TraceLimits.time), keyPath: \.mainActorWaitNsValue),
    ]

    public enum ParameterError: Error, Sendable, Equatable, CustomStringConvertible {
        case unknown(String)
        case invalid(name: String, value: String, range: ClosedRange<Double>)

        public var description: String {
            switch self {
            case .unknown(let name):
                "unknown threshold '\(name)'; thresholds are \(FindingsOptions.parameters.map(\.name).joined(separator: ", "))"
            case .invalid(let name, let value, let range):
                "\(name): '\(value)' is not a number in \(Self.text(range.lowerBound))...\(Self.text(range.upperBound))"
            }
        }

        private static func text(_ value: Double) -> String { value == value.rounded() ? String(Int64(value)) : String(value) }
    }

    /// Sets the threshold `name` from text; counts must be whole numbers.
    public mutating func set(_ name: String, to text: String) throws(ParameterError) {
        guard let parameter = Self.parameters.first(where: { $0.name == name }) else { throw .unknown(name) }
        let isShare = parameter.range.upperBound == 1
        guard let value = Double(text), value.isFinite, parameter.range.contains(value), isShare || value == value.rounded() else {
            throw .invalid(name: name, value: text, range: parameter.range)
        }
        self[keyPath: parameter.keyPath] = value
    }

    // Doubles for the parameter table; the rules read the typed properties.
    private var fanOutMinBodiesValue: Double { get { Double(fanOutMinBodies) } set { fanOutMinBodies = Int(newValue) } }
    private var fanOutMinEventsValue: Double { get { Double(fanOutMinEvents) } set { fanOutMinEvents = Int(newValue) } }
    private var longBodyNsValue: Double { get { Double(longBodyNs) } set { longBodyNs = Nanoseconds(newValue) } }
    private var longBodyMinCountValue: Double { get { Double(longBodyMinCount) } set { longBodyMinCount = Int(newValue) } }
    private var environmentMinNotifiedValue: Double { get { Double(environmentMinNotified) } set { environmentMinNotified = Int(newValue) } }
    private var repeatedBodyMinRunsValue: Double { get { Double(repeatedBodyMinRuns) } set { repeatedBodyMinRuns = Int(newValue) } }
    private var maxIntervalFindingsValue: Double { get { Double(maxIntervalFindings) } set { maxIntervalFindings = Int(newValue) } }
    private var mainActorBlockedNsValue: Double { get { Double(mainActorBlockedNs ?? 0) } set { mainActorBlockedNs = Nanoseconds(newValue) } }
    private var mainActorWaitNsValue: Double { get { Double(mainActorWaitNs) } set { mainActorWaitNs = Nanoseconds(newValue) } }
}

extension Trace {
    /// Every finding of the trace, costliest first; the hangs and hitches only counted last.
    public func findings(_ options: FindingsOptions = FindingsOptions()) -> [Finding] {
        var context = FindingsContext(trace: self, options: options)
        let rules: [(inout FindingsContext) -> [Finding]] = [
            { collectionFanOutFindings(&$0) }, { longBodyFindings(&$0) }, { environmentChurnFindings(&$0) },
            { intervalFindings(&$0, hangs, kind: .hangExplained, noun: "Hang") },
            { intervalFindings(&$0, hitches, kind: .hitchExplained, noun: "Hitch") },
            { repeatedBodyFindings(&$0) }, { mainActorBlockedFindings(&$0) }, { mainActorWaitFindings(&$0) },
            { longLayoutFindings(&$0) }, { hangRiskFindings(&$0) },
        ]
        var found: [Finding] = []
        for rule in rules {
            // Cancelled (`QueryCancellation`), the build stops between rules and inside the long
            // ones, and answers nothing: whoever cancelled it throws the answer away.
            if Task.isCancelled { return [] }
            found += rule(&context)
        }
        if Task.isCancelled { return [] }
        found = joiningIncidents(found)
        // The hangs and hitches counted without a finding of their own come after every finding.
        let isRest = { (finding: Finding) in finding.id.hasSuffix(":more") ? 0 : 1 }
        return found.sorted { (isRest($0), $0.costNs, $1.kind.rawValue, $1.id) > (isRest($1), $1.costNs, $0.kind.rawValue, $0.id) }
    }
}

/// Durations and times as people read them, by the rules of the browser's format.js (both are
/// checked against Tests/Fixtures/duration-format.json): three significant digits in the largest
/// unit that keeps the value at or above 1 ("840 µs", "2.31 ms", "125 ms", "1.20 s"), a rounding
/// that reaches 1000 moves up a unit ("1.00 s", never "1000 ms"), and zero is "0 ms".
public enum DurationText {
    public static func format(_ ns: Nanoseconds) -> String {
        if ns == 0 { return "0 ms" }
        let units: [(scale: Double, name: String)] = [(1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1, "ns")]
        var index = units.firstIndex { Double(ns.magnitude) >= $0.scale } ?? units.count - 1
        // 999.7 ms would round to "1000 ms": it is "1.00 s".
        while index > 0, abs(Double(ns) / units[index].scale) >= 999.5 { index -= 1 }
        let value = Double(ns) / units[index].scale
        let digits = units[index].scale == 1 || abs(value) >= 99.95 ? 0 : abs(value) >= 9.995 ? 1 : 2
        return "\(fixed(value, digits: digits)) \(units[index].name)"
    }

    /// A duration as people type it, the one syntax of the CLI's options, budget files and the
    /// browser (format.js parseDuration): "1s", "1 s", "1.5 ms", "500 µs" (or "us"), "120ns"; a
    /// bare whole number is nanoseconds. nil when the text is not one (or is past `TraceLimits.time`).
    public static func parse(_ text: String) -> Nanoseconds? {
        let units: [(suffix: String, scale: Double)] = [("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)]
        var number = Substring(text)
        var scale: Double?
        if let unit = units.first(where: { text.hasSuffix($0.suffix) }) {
            number = number.dropLast(unit.suffix.count)
            if number.hasSuffix(" ") { number = number.dropLast() }
            scale = unit.scale
        }
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard !number.isEmpty, parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              scale != nil || parts.count == 1, let value = Double(number) else { return nil }
        let nanoseconds = (value * (scale ?? 1)).rounded()
        guard nanoseconds <= Double(TraceLimits.time) else { return nil }
        return Nanoseconds(nanoseconds)
    }

    /// A time from the start of the recording in seconds, to the millisecond: "1.008 s".
    public static func seconds(_ ns: Nanoseconds) -> String {
        fixed(Double(ns) / 1e9, digits: 3) + " s"
    }

    private static func pow10(_ digits: Int) -> Double {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        return scale
    }

    /// `String(format:)` needs Foundation, which TraceModel does not import.
    static func fixed(_ value: Double, digits: Int) -> String {
        let scale = pow10(digits)
        let scaled = Int64((abs(value) * scale).rounded())
        let whole = scaled / Int64(scale)
        let fraction = String(scaled % Int64(scale))
        let padded = String(repeating: "0", count: max(0, digits - fraction.count)) + fraction
        return (value < 0 && scaled != 0 ? "-" : "") + "\(whole)" + (digits > 0 ? ".\(padded)" : "")
    }
}
