// Checks a trace against budget rules: each rule gives pass or fail with the measured value,
// the limit, and what went over (views with their update ids, hangs, hitches).

/// The outcome of one rule (or one baseline comparison) on a trace.
public struct BudgetResult: Sendable, Equatable {
    public var name: String
    /// The budget metric ("red-updates", ...) or the baseline check ("baseline-body-count", ...).
    public var metric: String
    public var unit: BudgetUnit
    public var measured: Int64
    public var limit: Int64
    public var passed: Bool
    /// What went over the limit, worst first; empty when the rule passed.
    public var offenders: [BudgetOffender]
    /// Things a reader should know, e.g. that no view matched the rule's names.
    public var notes: [String]
    /// What `measured` was read from when it is one of several (the baseline rules' view).
    public var measuredIn: String?
    /// The budget file's line the rule starts on (BudgetRule.line).
    public var line: Int?

    public init(
        name: String, metric: String, unit: BudgetUnit, measured: Int64, limit: Int64, passed: Bool,
        offenders: [BudgetOffender] = [], notes: [String] = []
    ) {
        self.name = name
        self.metric = metric
        self.unit = unit
        self.measured = measured
        self.limit = limit
        self.passed = passed
        self.offenders = offenders
        self.notes = notes
    }
}

/// One thing that went over a limit: a view, a hang or hitch, or a cause event.
public struct BudgetOffender: Sendable, Equatable {
    /// The view name, the interval's kind ("Hang: ..."), or the cause's title.
    public var title: String
    /// For views: the module and view name, to link to the view's updates.
    public var module: String?
    public var view: String?
    /// The offender's own value of the rule's metric.
    public var measured: Int64
    /// Update ids (rows) that make up the offence, longest first, at most `listedUpdates`.
    public var updates: [Int]
    /// How many updates make up the offence (`updates` may list fewer).
    public var updateCount: Int
    /// Hangs and hitches: when they happened; Swift task runs and waits: the interval.
    public var span: TimeRange?
    /// Main-actor rules: the task's interval (a row for `…/task-states/{row}`, `ts=` in links).
    public var taskState: Int?
    /// Baseline checks: the view in the baseline and in the new trace.
    public var change: Change?
    /// Findings: the file and line of the heaviest frame of the app that has them (or its caller's).
    public var source: CodeLocation? = nil

    public struct Change: Sendable, Equatable {
        public var countBefore: Int
        public var countAfter: Int
        public var totalBefore: Nanoseconds
        public var totalAfter: Nanoseconds
        /// The rank test's p-value on durations: no longer what decides (issue 40), kept nil.
        public var pValue: Double?
        /// The time per body over recordings, when it decided (docs/statistics.md).
        public var timeEffect: RecordingEffect? = nil
    }

    public static let listedUpdates = 20
    /// Offenders listed per rule; a note says how many more there were.
    public static let listedOffenders = 25

    public init(
        title: String, module: String? = nil, view: String? = nil, measured: Int64, updates: [Int] = [],
        updateCount: Int = 0, span: TimeRange? = nil, change: Change? = nil, taskState: Int? = nil, source: CodeLocation? = nil
    ) {
        self.title = title
        self.source = source
        self.taskState = taskState
        self.module = module
        self.view = view
        self.measured = measured
        self.updates = updates
        self.updateCount = updateCount
        self.span = span
        self.change = change
    }
}

extension Trace {
    /// The budget's rules on this trace, each in its own window or else the budget's.
    public func evaluate(_ budget: Budget) -> [BudgetResult] {
        budget.rules.map { rule in
            var rule = rule
            if rule.window == nil { rule.window = budget.window }
            return evaluate(rule)
        }
    }

    public func evaluate(_ rule: BudgetRule) -> BudgetResult {
        let range = rule.window?.range(in: self)
        switch rule.metric {
        case .redUpdates, .orangeUpdates, .longUpdates, .bodyTimeTotal, .bodyTimeP95:
            return evaluateViewRule(rule, range: range)
        case .hangCount, .hangLongest, .hangTotal:
            return evaluateIntervalRule(rule, intervals: hangs, range: range)
        case .hitchCount, .hitchLongest, .hitchTotal:
            return evaluateIntervalRule(rule, intervals: hitches, range: range)
        case .fanOut:
            return evaluateFanOutRule(rule, range: range)
        case .findings:
            return evaluateFindingsRule(rule, range: range)
        case .perInteraction:
            return evaluatePerInteractionRule(rule, range: range)
        case .mainActorRunLongest, .mainActorRunTotal, .mainActorWaitLongest, .mainActorWaitTotal, .mainActorTasksOver:
            return evaluateMainActorRule(rule, range: range)
        }
    }

    // MARK: Views

    private func evaluateViewRule(_ rule: BudgetRule, range: TimeRange?) -> BudgetResult {
        let table = updates
        let metric = rule.metric
        let bodiesOnly = metric == .bodyTimeTotal || metric == .bodyTimeP95
        struct ViewKey: Hashable { var module: StringRef, view: StringRef }
        var matchesName: [StringRef: Bool] = [:]
        var rowsByView: [ViewKey: [Int]] = [:]
        for row in 0..<table.count {
            if bodiesOnly && table.kind[row] != .viewBody { continue }
            if let range, !range.overlaps(start: table.start[row], end: table.end(row)) { continue }
            let name = table.viewName[row]
            let matches: Bool
            if let known = matchesName[name] {
                matches = known
            } else {
                matches = rule.matches(view: string(name))
                matchesName[name] = matches
            }
            guard matches else { continue }
            rowsByView[ViewKey(module: table.module[row], view: name), default: []].append(row)
        }

        // The updates a view's value is made of, and those to show when it is over the limit.
        func value(_ rows: [Int]) -> Int64 {
            switch metric {
            case .redUpdates, .orangeUpdates, .longUpdates: Int64(rows.count(where: { counts(table.duration[$0]) }))
            case .bodyTimeTotal: rows.reduce(0) { $0.addingSaturating(table.duration[$1]) }
            default: ComparedViewStats(sortedDurations: rows.map { table.duration[$0] }.sorted()).p95Ns
            }
        }
        func counts(_ duration: Nanoseconds) -> Bool {
            let severity = LongUpdateSeverity(duration: duration)
            switch metric {
            case .redUpdates: return severity == .red
            case .orangeUpdates: return severity == .orange
            default: return severity.isLong
            }
        }
        func offending(_ rows: [Int]) -> [Int] {
            switch metric {
            case .redUpdates, .orangeUpdates, .longUpdates: rows.filter { counts(table.duration[$0]) }
            case .bodyTimeTotal: rows
            default: rows.filter { table.duration[$0] > rule.limit }
            }
        }

        let measured = rule.perView
            ? rowsByView.values.map(value).max() ?? 0
            : value(rowsByView.values.flatMap { $0 })
        let passed = measured <= rule.limit
        var notes: [String] = []
        if !rule.views.isEmpty, !matchesName.values.contains(true) {
            notes.append("no \(bodiesOnly ? "view body" : "update") \(range == nil ? "" : "in the window ")matches "
                + rule.views.map { "\"\($0.pattern)\"" }.joined(separator: ", "))
        }
        var offenders: [BudgetOffender] = []
        if !passed {
            for (key, rows) in rowsByView {
                let own = value(rows)
                let offendingRows = offending(rows)
                if rule.perView ? own <= rule.limit : offendingRows.isEmpty { continue }
                let listed = offendingRows.sorted { (table.duration[$0], $1) > (table.duration[$1], $0) }.prefix(BudgetOffender.listedUpdates)
                offenders.append(BudgetOffender(
                    title: string(key.view), module: string(key.module), view: string(key.view), measured: own,
                    updates: Array(listed), updateCount: offendingRows.count, source: bodySource(ofView: string(key.view))
                ))
            }
            offenders.sort { ($0.measured, $1.title, $1.module ?? "") > ($1.measured, $0.title, $0.module ?? "") }
        }
        return result(rule, measured: measured, passed: passed, offenders: offenders, notes: notes)
    }

    // MARK: Hangs and hitches

    private func evaluateIntervalRule(_ rule: BudgetRule, intervals: [TimelineInterval], range: TimeRange?) -> BudgetResult {
        let inScope = intervals.filter { range?.overlaps(start: $0.start, end: $0.end) ?? true }
        let measured: Int64
        let offending: [TimelineInterval]
        switch rule.metric {
        case .hangCount, .hitchCount:
            measured = Int64(inScope.count)
            offending = inScope
        case .hangLongest, .hitchLongest:
            measured = inScope.map(\.duration).max() ?? 0
            offending = inScope.filter { $0.duration > rule.limit }
        default:
            measured = inScope.reduce(0) { $0.addingSaturating($1.duration) }
            offending = inScope
        }
        let passed = measured <= rule.limit
        let offenders: [BudgetOffender] = passed ? [] : offending.sorted { ($0.duration, $1.start) > ($1.duration, $0.start) }.map { interval in
            let during = updates(overlapping: TimeRange(start: interval.start, end: interval.end))
            return BudgetOffender(
                title: interval.detail.isEmpty ? interval.kind : "\(interval.kind): \(interval.detail)", measured: interval.duration,
                updates: Array(during.prefix(BudgetOffender.listedUpdates)), updateCount: during.count,
                span: TimeRange(start: interval.start, end: interval.end)
            )
        }
        return result(rule, measured: measured, passed: passed, offenders: offenders, notes: [])
    }

    // MARK: Per interaction

    /// The most bodies of the rule's views that started in one interval of the rule's signpost
    /// name (intervals that start in the window); each interval over the limit is an offender.
    private func evaluatePerInteractionRule(_ rule: BudgetRule, range: TimeRange?) -> BudgetResult {
        let table = signposts
        var matchesName: [StringRef: Bool] = [:]
        var measured: Int64 = 0
        var intervals = 0
        var offenders: [BudgetOffender] = []
        for row in 0..<table.count where table.kind[row] == .interval {
            let start = table.start[row], end = table.end(row)
            if let range, !(start >= range.start && start < range.end) { continue }
            let name = table.name[row]
            let matches = matchesName[name] ?? (rule.interaction?.matches(string(name)) ?? false)
            matchesName[name] = matches
            guard matches else { continue }
            intervals += 1
            let bodies = (indexOfFirst(atLeast: start, in: updates.start)..<indexOfFirst(atLeast: end, in: updates.start)).filter { update in
                updates.kind[update] == .viewBody && rule.matches(view: string(updates.viewName[update]))
            }
            measured = max(measured, Int64(bodies.count))
            guard bodies.count > rule.limit else { continue }
            let message = string(table.beginMessage[row])
            offenders.append(BudgetOffender(
                title: "\(string(name)) at \(DurationText.format(start - metadata.start))\(message.isEmpty ? "" : " (\(message))"): \(bodies.count) bodies",
                measured: Int64(bodies.count), updates: Array(bodies.prefix(BudgetOffender.listedUpdates)), updateCount: bodies.count,
                span: TimeRange(start: start, end: end)
            ))
        }
        offenders.sort { ($0.measured, $1.span?.start ?? 0) > ($1.measured, $0.span?.start ?? 0) }
        var notes: [String] = []
        if intervals == 0 {
            notes.append("no signpost interval \(range == nil ? "" : "in the window ")is named \"\(rule.interaction?.pattern ?? "")\"")
        }
        return result(rule, measured: measured, passed: measured <= rule.limit, offenders: offenders, notes: notes)
    }

    // MARK: Cause fan-out

    private func evaluateFanOutRule(_ rule: BudgetRule, range: TimeRange?) -> BudgetResult {
        let fanOuts = causeFanOuts(in: range).filter { $0.label == .update && rule.matches(view: $0.targetName) }
        let measured = Int64(fanOuts.map(\.maxPerEvent).max() ?? 0)
        let passed = measured <= rule.limit
        let offenders: [BudgetOffender] = passed ? [] : fanOuts.filter { $0.maxPerEvent > rule.limit }
            .sorted { ($0.maxPerEvent, $0.updateCount) > ($1.maxPerEvent, $1.updateCount) }
            .map { fanOut in
                // The largest event is the evidence: its first update's cause graph shows the fan-out.
                let largest = fanOut.events.max { ($0.updates.count, $1.source) < ($1.updates.count, $0.source) }!.updates.sorted()
                return BudgetOffender(
                    title: fanOut.edgeText, module: string(updates.module[largest[0]]), view: fanOut.targetName,
                    measured: Int64(fanOut.maxPerEvent), updates: Array(largest.prefix(BudgetOffender.listedUpdates)), updateCount: largest.count
                )
            }
        var notes: [String] = []
        if !rule.views.isEmpty, fanOuts.isEmpty {
            notes.append("no cause made a view matching " + rule.views.map { "\"\($0.pattern)\"" }.joined(separator: ", ") + " run")
        }
        return result(rule, measured: measured, passed: passed, offenders: offenders, notes: notes)
    }

    // MARK: Swift tasks on the Main Actor

    private func evaluateMainActorRule(_ rule: BudgetRule, range: TimeRange?) -> BudgetResult {
        let states = taskStates
        let isWait = rule.metric == .mainActorWaitLongest || rule.metric == .mainActorWaitTotal
        // The function a wait counts for is the one the task resumed in next (as the task summary charges it).
        func function(_ row: Int) -> String {
            guard isWait else { return resumeFunctionTitle(row) }
            let next = indexes.states(ofTask: Int(states.task[row])).map(Int.init)
                .first { states.start[$0] >= states.start[row] && states.state[$0] == .running }
            return next.map(resumeFunctionTitle) ?? "(did not run again before the recording ended)"
        }
        let rows = (isWait ? indexes.mainActorWaits : indexes.mainActorRuns).map(Int.init).filter { row in
            (range?.overlaps(start: states.start[row], end: states.end(row)) ?? true) && rule.matches(function: function(row))
        }
        let over = rule.over ?? metadata.frameDuration
        let measured: Int64
        var offending: [Int]
        switch rule.metric {
        case .mainActorRunLongest, .mainActorWaitLongest:
            measured = rows.map { states.duration[$0] }.max() ?? 0
            offending = rows.filter { states.duration[$0] > rule.limit }
        case .mainActorTasksOver:
            let long = rows.filter { states.duration[$0] > over }
            measured = Int64(Set(long.map { states.task[$0] }).count)
            // One offender per task: its longest run.
            var longestOfTask: [UInt32: Int] = [:]
            for row in long where longestOfTask[states.task[row]].map({ states.duration[$0] < states.duration[row] }) ?? true {
                longestOfTask[states.task[row]] = row
            }
            offending = Array(longestOfTask.values)
        default:
            measured = rows.reduce(0) { $0.addingSaturating(states.duration[$1]) }
            offending = rows
        }
        let passed = measured <= rule.limit
        offending.sort { (states.duration[$0], $1) > (states.duration[$1], $0) }
        // Only the listed offenders are described (a trace may have thousands of runs over a limit).
        let offenders: [BudgetOffender] = passed ? [] : offending.prefix(BudgetOffender.listedOffenders).map { row in
            let task = Int(states.task[row])
            let verb = isWait ? "waited \(DurationText.format(states.duration[row])) for the Main Actor, then ran" : "ran \(DurationText.format(states.duration[row])) on the Main Actor in"
            let span = TimeRange(start: states.start[row], end: states.end(row))
            let during = updates(overlapping: span)
            return BudgetOffender(
                title: "\(taskWithSite(task)) \(verb) \(function(row))", measured: states.duration[row],
                updates: Array(during.prefix(BudgetOffender.listedUpdates)), updateCount: during.count, span: span, taskState: row
            )
        }
        var notes: [String] = []
        if !passed, offending.count > offenders.count {
            notes.append("\(offending.count - offenders.count) more over the limit not listed")
        }
        if !rule.functions.isEmpty, rows.isEmpty {
            notes.append("no \(isWait ? "wait for" : "run on") the Main Actor \(range == nil ? "" : "in the window ")matches "
                + rule.functions.map { "\"\($0.pattern)\"" }.joined(separator: ", "))
        }
        if taskStates.count == 0 {
            notes.append("the recording has no Swift Tasks data (record with the Swift Tasks instrument)")
        }
        return result(rule, measured: measured, passed: passed, offenders: offenders, notes: notes)
    }

    // MARK: Findings

    private func evaluateFindingsRule(_ rule: BudgetRule, range: TimeRange?) -> BudgetResult {
        let filter = rule.findings
        let matches = { (finding: Finding) in
            (filter.kinds.isEmpty || filter.kinds.contains(finding.kind)) && finding.severity >= filter.minSeverity
                && (rule.views.isEmpty || finding.subjects.contains { $0.role == .view && rule.matches(view: $0.name) })
                && (range.map { self.isEvidence(finding.evidence, in: $0) } ?? true)
        }
        // One incident counts once: itself, or the first of its parts the rule asks for (a hitch
        // inside the block that caused it still fails "no hitches").
        let found = findings(filter.options).compactMap { finding in matches(finding) ? finding : finding.parts.first(where: matches) }
        let passed = found.count <= rule.limit
        let offenders: [BudgetOffender] = passed ? [] : found.map { finding in
            let view = finding.subjects.first { $0.role == .view }
            let evidence = finding.evidence
            // The representative update first: its cause graph is where the finding is seen.
            let listed = (evidence.representativeUpdate.map { [$0] } ?? []) + evidence.updates.filter { $0 != evidence.representativeUpdate }
            let isInterval = finding.kind == .hangExplained || finding.kind == .hitchExplained
            return BudgetOffender(
                title: "\(finding.kind.rawValue), \(finding.severity.rawValue): \(finding.title)",
                module: view.flatMap { $0.detail.isEmpty ? nil : $0.detail }, view: view?.name, measured: Int64(finding.occurrences),
                updates: Array(listed.prefix(BudgetOffender.listedUpdates)), updateCount: max(evidence.updateCount, listed.count),
                // The worst recorded interval itself, not the frames around it the CPU range reads.
                span: isInterval ? (evidence.intervals.max { $0.duration < $1.duration } ?? evidence.range) : nil,
                taskState: evidence.taskStates.first,
                source: evidence.frames.lazy.compactMap { $0.source ?? $0.callerSource }.first
            )
        }
        return result(rule, measured: Int64(found.count), passed: passed, offenders: offenders, notes: [])
    }

    /// Findings are found on the whole recording; in a window count those with evidence there
    /// (or with no evidence in time at all).
    func isEvidence(_ evidence: FindingEvidence, in range: TimeRange) -> Bool {
        guard !evidence.updates.isEmpty || evidence.range != nil else { return true }
        return evidence.updates.contains { range.overlaps(start: updates.start[$0], end: updates.end($0)) }
            || evidence.range.map { range.overlaps(start: $0.start, end: $0.end) } == true
    }

    /// Updates that overlap `range`, longest first: what the app was busy with during a hang or hitch.
    private func updates(overlapping range: TimeRange) -> [Int] {
        let table = updates
        let longest = indexes.maxDurationByLane.values.max() ?? 0
        let first = indexOfFirst(atLeast: range.start - longest, in: table.start)
        let end = indexOfFirst(atLeast: range.end, in: table.start)
        return (first..<max(first, end))
            .filter { range.overlaps(start: table.start[$0], end: table.end($0)) }
            .sorted { (table.duration[$0], $1) > (table.duration[$1], $0) }
    }

    private func result(_ rule: BudgetRule, measured: Int64, passed: Bool, offenders: [BudgetOffender], notes: [String]) -> BudgetResult {
        var notes = notes
        if offenders.count > BudgetOffender.listedOffenders {
            notes.append("\(offenders.count - BudgetOffender.listedOffenders) more over the limit not listed")
        }
        var result = BudgetResult(
            name: rule.name, metric: rule.metric.rawValue, unit: rule.metric.unit, measured: measured, limit: rule.limit,
            passed: passed, offenders: Array(offenders.prefix(BudgetOffender.listedOffenders)), notes: notes
        )
        result.line = rule.line
        return result
    }
}
