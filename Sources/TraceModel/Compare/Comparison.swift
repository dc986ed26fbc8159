// Trace A (before) against trace B (after): per view, per cause fan-out, hitches, hangs, CPU.
// docs/api.md ("Compare two traces") documents the JSON shape and the significance rule.

public struct TraceComparison: Sendable, Encodable {
    public var a: ComparedTrace
    public var b: ComparedTrace
    /// "app: Landmarks vs Photos", one per header field that differs (the comparison may mislead).
    public var differences: [String]
    /// Update groups per label on each side, most frequent first.
    public var interactions: [InteractionCount]
    /// Sorted by the absolute change of total time, largest first; at most `viewLimit` of `viewsTotal`.
    public var views: [ViewComparison]
    public var viewsTotal: Int
    /// Changed fan-outs first, each group by the absolute change of updates caused; at most
    /// `causeLimit` of `causesTotal` rows.
    public var causes: [CauseComparison]
    public var causesTotal: Int
    /// "updates", "hitches", "hangs", "cpu" (count = samples, total = their CPU time).
    public var totals: [TotalComparison]
    /// Functions by the absolute change of CPU self time, largest first; at most `functionLimit`
    /// of the `functionsTotal` whose self time changed.
    public var functions: [FunctionComparison]
    public var functionsTotal: Int
    /// Frames SwiftUI drew updates in on each side (`Trace.framesDrawn(in:)`): a view whose
    /// update count follows them changed because more (or fewer) frames were drawn.
    public var frames: FrameCountComparison
    /// Swift tasks on the Main Actor: "main-actor-busy" (time tasks ran on it), "main-actor-waiting"
    /// (time tasks waited for it), "main-actor-longest-wait".
    public var mainActor: [TimeComparison]
    /// Running and waiting time per resume function and actor (addresses left out), the largest
    /// absolute change of main-actor time first.
    public var tasks: [TaskComparison]

    /// Rows kept of `causes` and `functions` (a trace may have tens of thousands of fan-outs).
    public static let defaultCauseLimit = 200
    public static let defaultFunctionLimit = 25
    /// The API's default: a trace may have a million view names. Callers reading every row pass `.max`.
    public static let defaultViewLimit = 500

    public init(
        _ a: ComparisonSide, _ b: ComparisonSide, causeLimit: Int = defaultCauseLimit, functionLimit: Int = defaultFunctionLimit,
        viewLimit: Int = .max
    ) {
        self.a = a.header
        self.b = b.header
        // Cycles and time never subtract: a unit mismatch is said like another app or device.
        let fields: [(String, KeyPath<ComparedTrace, String>)] = [
            ("app", \.app), ("device", \.device), ("OS", \.osVersion), ("CPU weights", \.cpuWeights),
        ]
        differences = fields.compactMap { name, field in
            a.header[keyPath: field] == b.header[keyPath: field] ? nil : "\(name): \(a.header[keyPath: field]) vs \(b.header[keyPath: field])"
        }
        interactions = Set(a.interactions.keys).union(b.interactions.keys).map { label in
            InteractionCount(
                label: label, a: a.interactions[label] ?? 0, b: b.interactions[label] ?? 0,
                firstA: a.firstInteraction[label], firstB: b.firstInteraction[label]
            )
        }.sorted { ($0.a + $0.b, $1.label) > ($1.a + $1.b, $0.label) }
        frames = FrameCountComparison(a: a.frames, b: b.frames)
        let views = Self.compareViews(a, b, interactions: interactions, frames: frames)
        self.views = Array(views.prefix(max(0, viewLimit)))
        viewsTotal = views.count
        (causes, causesTotal) = Self.compareCauses(a, b, limit: max(0, causeLimit))
        totals = ["updates", "hitches", "hangs", "cpu"].map { name in
            TotalComparison(name: name, a: a.totals[name] ?? ComparedTotal(), b: b.totals[name] ?? ComparedTotal())
        }
        let functions = Self.compareFunctions(a.selfTime, b.selfTime)
        self.functions = Array(functions.prefix(max(0, functionLimit)))
        functionsTotal = functions.count
        mainActor = [
            TimeComparison(name: "main-actor-busy", title: "Main Actor busy (tasks running)", a: a.mainActorRuns.totalNs, b: b.mainActorRuns.totalNs,
                           countA: a.mainActorRuns.count, countB: b.mainActorRuns.count),
            TimeComparison(name: "main-actor-waiting", title: "Waiting for the Main Actor", a: a.mainActorWaits.totalNs, b: b.mainActorWaits.totalNs,
                           countA: a.mainActorWaits.count, countB: b.mainActorWaits.count),
            TimeComparison(name: "main-actor-longest-wait", title: "Longest wait for the Main Actor", a: a.longestMainActorWait, b: b.longestMainActorWait),
        ]
        tasks = Self.compareTasks(a.tasks, b.tasks)
    }

    private static func compareTasks(_ a: [ComparisonSide.TaskKey: TaskSummaryRow], _ b: [ComparisonSide.TaskKey: TaskSummaryRow]) -> [TaskComparison] {
        Set(a.keys).union(b.keys).map { key in
            TaskComparison(function: key.function, actor: key.actor, isMainActor: (a[key] ?? b[key])!.isMainActor, a: a[key], b: b[key])
        }.sorted { x, y in
            (abs(x.mainActorDeltaNs), abs(x.b.running - x.a.running), y.function, y.actor) > (abs(y.mainActorDeltaNs), abs(y.b.running - y.a.running), x.function, x.actor)
        }
    }

    /// Compares `before` and `after`, each restricted to its range (nil = the whole trace).
    public init(before: Trace, after: Trace, beforeRange: TimeRange? = nil, afterRange: TimeRange? = nil) {
        self.init(before.comparisonSide(in: beforeRange), after.comparisonSide(in: afterRange))
    }

    private static func compareViews(
        _ a: ComparisonSide, _ b: ComparisonSide, interactions: [InteractionCount], frames: FrameCountComparison
    ) -> [ViewComparison] {
        let keys = Set(a.views.keys).union(b.views.keys)
        let rows = keys.map { key -> ViewComparison in
            let before = a.views[key], after = b.views[key]
            let perInteraction = interactions.compactMap { interaction -> InteractionRate? in
                let inA = before?.byInteraction[interaction.label] ?? 0, inB = after?.byInteraction[interaction.label] ?? 0
                guard inA + inB > 0 else { return nil }
                return InteractionRate(
                    label: interaction.label,
                    a: interaction.a > 0 ? Double(inA) / Double(interaction.a) : nil,
                    b: interaction.b > 0 ? Double(inB) / Double(interaction.b) : nil
                )
            }
            return ViewComparison(
                module: key.module, view: key.view, category: key.category, kind: (before ?? after)!.kind,
                isAppCode: (before?.isAppCode ?? false) || (after?.isAppCode ?? false),
                a: before?.stats ?? ComparedViewStats(), b: after?.stats ?? ComparedViewStats(),
                durations: RankSumTest(before?.sortedDurations ?? [], after?.sortedDurations ?? []),
                perInteraction: perInteraction, frames: frames
            )
        }
        return rows.sorted {
            (abs($0.delta.totalNs), $1.view, $1.module, $1.category) > (abs($1.delta.totalNs), $0.view, $0.module, $0.category)
        }
    }

    /// Matches fan-outs by key with B's names translated into A's string table, ranks the pairs by
    /// numbers (names only on ties, by rank), and builds Strings only for the `limit` rows kept: a
    /// trace may have a hundred thousand fan-outs. Returns the rows and how many pairs there were.
    private static func compareCauses(_ a: ComparisonSide, _ b: ComparisonSide, limit: Int) -> ([CauseComparison], Int) {
        // A's refs of the names its fan-outs use (not its whole string table), by text.
        var refInA: [String: StringRef] = [:]
        var noted = [Bool](repeating: false, count: a.strings.count)
        func note(_ ref: StringRef) {
            if !noted[Int(ref)] {
                noted[Int(ref)] = true
                refInA[a.strings[Int(ref)]] = ref
            }
        }
        for key in a.fanOutKeys {
            note(key.sourceName)
            note(key.targetName)
            note(key.property)
        }
        // A B name A does not have gets a ref past A's table: it matches nothing of A.
        let unknown = StringRef.max
        var translated = [StringRef](repeating: unknown, count: b.strings.count)
        func inA(_ ref: StringRef) -> StringRef {
            if translated[Int(ref)] == unknown {
                translated[Int(ref)] = refInA[b.strings[Int(ref)]] ?? StringRef(truncatingIfNeeded: a.strings.count &+ Int(ref))
            }
            return translated[Int(ref)]
        }
        // A's keys first, so an id below A's count is A's fan-out of that index.
        var table = FanOutKeyTable()
        for key in a.fanOutKeys { _ = table.id(of: key) }
        var pairs: [(a: Int32, b: Int32)] = a.fanOutKeys.indices.map { (Int32($0), -1) }
        for (index, key) in b.fanOutKeys.enumerated() {
            var key = key
            key.sourceName = inA(key.sourceName)
            key.targetName = inA(key.targetName)
            key.property = inA(key.property)
            let id = table.id(of: key)
            if id < pairs.count { pairs[id].b = Int32(index) } else { pairs.append((-1, Int32(index))) }
        }

        // Changed first, then by the absolute change of updates; ties by names (ranked once per
        // distinct name), label, and order met. Only the rows kept are ranked by name: the pairs
        // whose (changed, change) is at least the `limit`-th largest (ties at that bound included).
        let primary = pairs.map { pair -> UInt64 in
            let before = pair.a >= 0 ? a.fanOuts[Int(pair.a)] : nil, after = pair.b >= 0 ? b.fanOuts[Int(pair.b)] : nil
            var changed = true
            if let before, let after { changed = (before.minPerEvent, before.maxPerEvent) != (after.minPerEvent, after.maxPerEvent) }
            return (changed ? 1 << 63 : 0) | UInt64(abs((after?.updates ?? 0) - (before?.updates ?? 0)))
        }
        var candidates = Array(pairs.indices)
        if limit == 0 {
            candidates = []
        } else if pairs.count > limit {
            var largest = primary
            largest.sort(by: >)
            let bound = largest[limit - 1]
            candidates = pairs.indices.filter { primary[$0] >= bound }
        }
        var names = NameRanks(a, b)
        let rank = candidates.map { position -> (source: Int32, target: Int32, property: Int32, label: UInt8) in
            let pair = pairs[position], inA = pair.a >= 0
            let key = inA ? a.fanOutKeys[Int(pair.a)] : b.fanOutKeys[Int(pair.b)]
            return (
                names.id(key.sourceName, isBody: key.sourceKind == .viewBody, inA: inA),
                names.id(key.targetName, isBody: key.targetKind == .viewBody, inA: inA),
                names.id(key.property, isBody: false, inA: inA), key.label.rawValue
            )
        }
        let nameRank = names.ranks()
        let order = candidates.indices.sorted { i, j in
            let x = primary[candidates[i]], y = primary[candidates[j]]
            if x != y { return x > y }
            let xNames = (nameRank[Int(rank[i].source)], nameRank[Int(rank[i].target)], nameRank[Int(rank[i].property)], rank[i].label)
            let yNames = (nameRank[Int(rank[j].source)], nameRank[Int(rank[j].target)], nameRank[Int(rank[j].property)], rank[j].label)
            return xNames != yNames ? xNames < yNames : candidates[i] < candidates[j]
        }.map { candidates[$0] }
        let rows = order.prefix(limit).map { position -> CauseComparison in
            let pair = pairs[position]
            let (side, fanOut) = pair.a >= 0 ? (a, Int(pair.a)) : (b, Int(pair.b))
            let key = side.fanOutKeys[fanOut]
            return CauseComparison(
                source: CauseFanOut.title(name: side.strings[Int(key.sourceName)], kind: key.sourceKind),
                target: CauseFanOut.title(name: side.strings[Int(key.targetName)], kind: key.targetKind),
                label: key.label.wireName, property: side.strings[Int(key.property)],
                a: pair.a >= 0 ? CauseFanOutSide(a.fanOuts[Int(pair.a)]) : nil,
                b: pair.b >= 0 ? CauseFanOutSide(b.fanOuts[Int(pair.b)]) : nil
            )
        }
        return (rows, pairs.count)
    }

    /// Fan-out names of both sides as ids of distinct texts ("Row.body" is a text of its own),
    /// ranked alphabetically: each distinct name is built and compared once, not once per row.
    private struct NameRanks {
        private let strings: (a: [String], b: [String])
        private var idOfText: [String: Int32] = [:]
        private var texts: [String] = []
        /// The id of each (ref, isBody) of each side, -1 until seen.
        private var ids: (a: [Int32], b: [Int32])

        init(_ a: ComparisonSide, _ b: ComparisonSide) {
            strings = (a.strings, b.strings)
            ids = ([Int32](repeating: -1, count: a.strings.count * 2), [Int32](repeating: -1, count: b.strings.count * 2))
        }

        mutating func id(_ ref: StringRef, isBody: Bool, inA: Bool) -> Int32 {
            let slot = Int(ref) * 2 + (isBody ? 1 : 0)
            let known = inA ? ids.a[slot] : ids.b[slot]
            if known >= 0 { return known }
            let name = inA ? strings.a[Int(ref)] : strings.b[Int(ref)]
            let text = isBody ? "\(name).body" : name
            let id = idOfText[text] ?? Int32(texts.count)
            if id == texts.count {
                idOfText[text] = id
                texts.append(text)
            }
            if inA { ids.a[slot] = id } else { ids.b[slot] = id }
            return id
        }

        /// Alphabetical rank of each id.
        func ranks() -> [Int32] {
            var rank = [Int32](repeating: 0, count: texts.count)
            for (position, id) in texts.indices.sorted(by: { texts[$0] < texts[$1] }).enumerated() { rank[id] = Int32(position) }
            return rank
        }
    }

    private static func compareFunctions(
        _ a: [ComparisonSide.FunctionKey: ComparisonSide.FunctionTime], _ b: [ComparisonSide.FunctionKey: ComparisonSide.FunctionTime]
    ) -> [FunctionComparison] {
        let rows = Set(a.keys).union(b.keys).map { key in
            FunctionComparison(
                name: key.name, binary: key.binary, isAppCode: a[key]?.isAppCode ?? b[key]!.isAppCode,
                aSelfNs: a[key]?.selfNs ?? 0, bSelfNs: b[key]?.selfNs ?? 0
            )
        }.filter { $0.deltaNs != 0 }
        return rows.sorted { (abs($0.deltaNs), $1.name, $1.binary) > (abs($1.deltaNs), $0.name, $0.binary) }
    }
}

public struct InteractionCount: Sendable, Equatable, Encodable {
    public var label: String
    public var a: Int
    public var b: Int
    /// Start of the first group of the label on each side's clock; nil on a side without one.
    @NullWhenAbsent public var firstA: Nanoseconds?
    @NullWhenAbsent public var firstB: Nanoseconds?
}

/// A view's updates per update group of one label; nil on a side with no such groups.
public struct InteractionRate: Sendable, Equatable, Encodable {
    public var label: String
    @NullWhenAbsent public var a: Double? = nil
    @NullWhenAbsent public var b: Double? = nil
}

/// What happened to a row between A and B.
public enum ComparisonChange: String, Sendable, Encodable {
    case appeared, disappeared, regressed, improved, unchanged
    /// Fan-outs only: the number of targets per cause event differs.
    case changed
    /// Views only: the update count changed as the number of frames drawn did, the time per
    /// update did not (more frames drawn is what a fix of a hitch does): no regression.
    case followsFrames = "follows-frames"
}

public struct ViewComparison: Sendable, Equatable, Encodable {
    public var module: String
    public var view: String
    public var category: String
    /// The kind of the row's first update ("view-body", "layout", ...).
    public var kind: String
    /// A graph node of the view is the app's own code, or its module is the app.
    public var isAppCode: Bool
    public var a: ComparedViewStats
    public var b: ComparedViewStats
    public var delta: ComparedViewDelta
    /// appeared / disappeared (no updates on one side), else regressed / improved / unchanged by total time.
    public var change: ComparisonChange
    /// Whether the change is beyond noise: see `ViewComparison.isSignificant`.
    public var significant: Bool
    public var durations: RankSumTest
    public var perInteraction: [InteractionRate]
    /// Updates per frame drawn on each side (nil on a side that drew none).
    public var perFrame: InteractionRate
    /// Either side has long (orange or red) updates.
    public var hasLongUpdates: Bool
    /// The words the CLI and the browser print for `change`: "slower", "faster", "new", "gone",
    /// "same", "more frames drawn: +14" (`ComparisonWords`).
    public var changeText: String

    /// A count change counts as real beyond this fraction of the larger count (and at least 2).
    public static let countChangeThreshold = 0.1

    init(
        module: String, view: String, category: String, kind: String, isAppCode: Bool,
        a: ComparedViewStats, b: ComparedViewStats, durations: RankSumTest, perInteraction: [InteractionRate],
        frames: FrameCountComparison
    ) {
        self.module = module
        self.view = view
        self.category = category
        self.kind = kind
        self.isAppCode = isAppCode
        self.a = a
        self.b = b
        self.durations = durations
        self.perInteraction = perInteraction
        perFrame = InteractionRate(
            label: "frame", a: frames.a > 0 ? Double(a.count) / Double(frames.a) : nil, b: frames.b > 0 ? Double(b.count) / Double(frames.b) : nil
        )
        delta = ComparedViewDelta(a, b)
        hasLongUpdates = a.orange + a.red + b.orange + b.red > 0
        let totalDelta = b.totalNs.addingSaturating(-a.totalNs)
        var change: ComparisonChange
        if a.count == 0 {
            change = .appeared
        } else if b.count == 0 {
            change = .disappeared
        } else {
            change = totalDelta > 0 ? .regressed : totalDelta < 0 ? .improved : .unchanged
        }
        // A count that moved with the frames drawn, at the same time per update, is the frames'
        // doing: more frames drawn (a hitch fixed) runs a per-frame view more often.
        if change == .regressed || change == .improved, b.count != a.count, frames.a > 0, frames.b > 0, frames.a != frames.b,
           (b.count > a.count) == (frames.b > frames.a), !durations.significant {
            // Updates per frame the same within the count threshold.
            let rateA = Double(a.count) / Double(frames.a), rateB = Double(b.count) / Double(frames.b)
            if abs(rateB - rateA) <= Self.countChangeThreshold * max(rateA, rateB) { change = .followsFrames }
        }
        self.change = change
        let countChange = abs(b.count - a.count)
        let countChanged = countChange >= 2 && Double(countChange) > Self.countChangeThreshold * Double(max(a.count, b.count))
        // Counts are exact (the same interaction runs the same bodies), durations are noisy.
        significant = change == .appeared || change == .disappeared
            || (change != .unchanged && change != .followsFrames && (countChanged || durations.significant))
        changeText = change == .followsFrames ? ComparisonWords.frames(frames.delta) : ComparisonWords.view(change)
    }
}

/// The words for a change, one place for the CLI's tables and the browser's (which print
/// `changeText`): a regression and an improvement read the same in both.
public enum ComparisonWords {
    /// A view row: its total time.
    public static func view(_ change: ComparisonChange) -> String {
        switch change {
        case .appeared: "new"
        case .disappeared: "gone"
        case .regressed: "slower"
        case .improved: "faster"
        case .unchanged: "same"
        case .changed: "changed"
        case .followsFrames: "follows frames"
        }
    }

    /// A time that is better lower (Main Actor busy, waiting), or a count better higher (frames).
    public static func time(_ change: ComparisonChange) -> String {
        switch change {
        case .appeared: "new"
        case .disappeared: "gone"
        case .regressed: "worse"
        case .improved: "better"
        default: "same"
        }
    }

    /// "more frames drawn: +14", "fewer frames drawn: -3".
    public static func frames(_ delta: Int) -> String {
        delta >= 0 ? "more frames drawn: +\(delta)" : "fewer frames drawn: \(delta)"
    }
}

/// Frames SwiftUI drew updates in, on each side.
public struct FrameCountComparison: Sendable, Equatable, Encodable {
    public var a: Int
    public var b: Int
    /// B minus A.
    public var delta: Int
    /// More frames drawn is better (`improved`).
    public var change: ComparisonChange
    public var changeText: String

    init(a: Int, b: Int) {
        self.a = a
        self.b = b
        delta = b - a
        change = b > a ? .improved : b < a ? .regressed : .unchanged
        changeText = delta == 0 ? "same" : ComparisonWords.frames(delta)
    }
}

/// A time on each side that is better lower (Main Actor busy or waiting time, the longest wait).
public struct TimeComparison: Sendable, Equatable, Encodable {
    /// Stable: "main-actor-busy", "main-actor-waiting", "main-actor-longest-wait".
    public var name: String
    public var title: String
    public var a: Nanoseconds
    public var b: Nanoseconds
    public var deltaNs: Nanoseconds
    /// Intervals counted on each side (runs, waits); null for a longest.
    @NullWhenAbsent public var countA: Int?
    @NullWhenAbsent public var countB: Int?
    public var change: ComparisonChange
    public var changeText: String

    init(name: String, title: String, a: Nanoseconds, b: Nanoseconds, countA: Int? = nil, countB: Int? = nil) {
        self.name = name
        self.title = title
        self.a = a
        self.b = b
        self.countA = countA
        self.countB = countB
        deltaNs = b.addingSaturating(-a)
        change = b > a ? .regressed : b < a ? .improved : .unchanged
        changeText = ComparisonWords.time(change)
    }
}

/// One resume function on one actor: time running and waiting on each side.
public struct TaskComparison: Sendable, Equatable, Encodable {
    /// The resume function (or what stands for it, `TaskSummaryRow.title`).
    public var function: String
    /// The actor without its address ("Main Actor", "Global Concurrent Executor").
    public var actor: String
    public var isMainActor: Bool
    public var a: TaskTimes
    public var b: TaskTimes
    /// Change of the time it held or waited for the Main Actor (running + waiting on it; waiting
    /// only on other actors, where running is no one's loss).
    public var mainActorDeltaNs: Nanoseconds
    public var change: ComparisonChange
    public var changeText: String

    public struct TaskTimes: Sendable, Equatable, Encodable {
        public var running: Nanoseconds = 0
        public var waiting: Nanoseconds = 0
        public var runs = 0
        public var longestWait: Nanoseconds = 0
    }

    init(function: String, actor: String, isMainActor: Bool, a: TaskSummaryRow?, b: TaskSummaryRow?) {
        self.function = function
        self.actor = actor
        self.isMainActor = isMainActor
        func times(_ row: TaskSummaryRow?) -> TaskTimes {
            row.map { TaskTimes(running: $0.running, waiting: $0.waiting, runs: $0.runs, longestWait: $0.longestWait) } ?? TaskTimes()
        }
        self.a = times(a)
        self.b = times(b)
        func cost(_ times: TaskTimes) -> Nanoseconds { isMainActor ? times.running.addingSaturating(times.waiting) : times.waiting }
        mainActorDeltaNs = cost(self.b).addingSaturating(-cost(self.a))
        switch (a, b) {
        case (nil, _): change = .appeared
        case (_, nil): change = .disappeared
        default: change = mainActorDeltaNs > 0 ? .regressed : mainActorDeltaNs < 0 ? .improved : .unchanged
        }
        changeText = ComparisonWords.time(change)
    }
}

/// B minus A; percentages are nil when A is zero.
public struct ComparedViewDelta: Sendable, Equatable, Encodable {
    public var count: Int
    public var totalNs: Nanoseconds
    @NullWhenAbsent public var totalPercent: Double? = nil
    public var avgNs: Nanoseconds
    @NullWhenAbsent public var avgPercent: Double? = nil
    public var p95Ns: Nanoseconds
    public var maxNs: Nanoseconds
    public var orange: Int
    public var red: Int

    init(_ a: ComparedViewStats, _ b: ComparedViewStats) {
        func percent(_ before: Nanoseconds, _ after: Nanoseconds) -> Double? {
            before == 0 ? nil : Double(after - before) / Double(before) * 100
        }
        count = b.count - a.count
        totalNs = b.totalNs.addingSaturating(-a.totalNs)
        totalPercent = percent(a.totalNs, b.totalNs)
        avgNs = b.avgNs - a.avgNs
        avgPercent = percent(a.avgNs, b.avgNs)
        p95Ns = b.p95Ns - a.p95Ns
        maxNs = b.maxNs - a.maxNs
        orange = b.orange - a.orange
        red = b.red - a.red
    }
}

public struct CauseComparison: Sendable, Equatable, Encodable {
    public var source: String
    public var target: String
    public var label: String
    public var property: String
    /// The source and property named once ("@Observable LandmarkViewModel.isFavorite"): what to show.
    public var title: String
    /// appeared / disappeared / changed (targets per event differ) / unchanged.
    public var change: ComparisonChange
    @NullWhenAbsent public var a: CauseFanOutSide? = nil
    @NullWhenAbsent public var b: CauseFanOutSide? = nil
    /// Updates caused in B minus in A.
    public var updatesDelta: Int

    init(source: String, target: String, label: String, property: String, a: CauseFanOutSide?, b: CauseFanOutSide?) {
        self.source = source
        self.target = target
        self.label = label
        self.property = property
        title = CauseFanOut.sourceTitle(source, property: property)
        self.a = a
        self.b = b
        updatesDelta = (b?.updates ?? 0) - (a?.updates ?? 0)
        switch (a, b) {
        case (nil, _): change = .appeared
        case (_, nil): change = .disappeared
        case let (a?, b?): change = (a.minPerEvent, a.maxPerEvent) == (b.minPerEvent, b.maxPerEvent) ? .unchanged : .changed
        }
    }
}

public struct CauseFanOutSide: Sendable, Equatable, Encodable {
    public var events: Int
    public var updates: Int
    public var minPerEvent: Int
    public var maxPerEvent: Int
    /// "×12" or "×1–3".
    public var fanOut: String

    init(_ fanOut: FanOutCount) {
        events = fanOut.events
        updates = fanOut.updates
        minPerEvent = fanOut.minPerEvent
        maxPerEvent = fanOut.maxPerEvent
        self.fanOut = CauseFanOut.fanOutText(min: minPerEvent, max: maxPerEvent)
    }
}

public struct TotalComparison: Sendable, Equatable, Encodable {
    public var name: String
    public var a: ComparedTotal
    public var b: ComparedTotal
    public var countDelta: Int
    public var totalNsDelta: Nanoseconds

    init(name: String, a: ComparedTotal, b: ComparedTotal) {
        self.name = name
        self.a = a
        self.b = b
        countDelta = b.count - a.count
        totalNsDelta = b.totalNs.addingSaturating(-a.totalNs)
    }
}

public struct FunctionComparison: Sendable, Equatable, Encodable {
    public var name: String
    public var binary: String
    public var isAppCode: Bool
    public var aSelfNs: Nanoseconds
    public var bSelfNs: Nanoseconds
    public var deltaNs: Nanoseconds

    init(name: String, binary: String, isAppCode: Bool, aSelfNs: Nanoseconds, bSelfNs: Nanoseconds) {
        self.name = name
        self.binary = binary
        self.isAppCode = isAppCode
        self.aSelfNs = aSelfNs
        self.bSelfNs = bSelfNs
        deltaNs = bSelfNs.addingSaturating(-aSelfNs)
    }
}
