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
    /// Findings resolved, new and still present (`FindingComparison.compare`).
    public var findings: [FindingComparison]
    /// Per signpost name present on either side: its intervals compared measure by measure,
    /// the names with the most intervals first.
    public var intervals: [IntervalComparison]
    /// What changed, in a few lines, the largest effect first (`ComparisonVerdict`).
    public var verdict: [VerdictLine]
    /// The two sides' spans differ (`SpanMismatch.check`): said first, the verdict all neutral.
    @NullWhenAbsent public var spanMismatch: SpanMismatch? = nil
    /// Frames SwiftUI drew updates in on each side (`Trace.framesDrawn(in:)`): a view whose
    /// update count follows them changed because more (or fewer) frames were drawn.
    public var frames: FrameCountComparison
    /// Where the run-to-run noise of the tests over recordings came from: the recordings
    /// compared, earlier recordings with the same tags, or the default prior.
    public var noise: NoiseOrigin
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
        viewLimit: Int = .max, earlier: EarlierNoise? = nil
    ) {
        // With one recording a side, the noise is the earlier recordings' (else the default prior);
        // with more, their own spread steadied by it.
        let prior = earlier?.noise ?? .prior
        noise = NoiseOrigin(runsA: a.runs, runsB: b.runs, earlier: earlier)
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
        let views = Self.compareViews(a, b, frames: frames, prior: prior)
        self.views = Array(views.prefix(max(0, viewLimit)))
        viewsTotal = views.count
        let limit = max(0, causeLimit)
        let (ran, ranTotal) = Self.compareCauses(a, b, skipped: false, limit: limit)
        let (skipped, skippedTotal) = Self.compareCauses(a, b, skipped: true, limit: limit)
        causes = Array(Self.mergeCauses(ran, skipped).prefix(limit))
        causesTotal = ranTotal + skippedTotal
        totals = ["updates", "hitches", "hangs", "cpu"].map { name in
            let runsA = a.runTotals[name] ?? [], runsB = b.runTotals[name] ?? []
            var total = TotalComparison(name: name, a: ComparedTotal(runs: runsA), b: ComparedTotal(runs: runsB))
            if name == "hitches" || name == "hangs" { total.countTest = RecordingCountTest(runsA.map(\.count), runsB.map(\.count)) }
            return total
        }
        let functions = Self.compareFunctions(a.selfTime, b.selfTime, runs: (a.runs, b.runs))
        self.functions = Array(functions.prefix(max(0, functionLimit)))
        functionsTotal = functions.count
        mainActor = [
            TimeComparison(name: "main-actor-busy", title: "Main Actor busy (tasks running)", a: a.mainActorRuns.totalNs, b: b.mainActorRuns.totalNs,
                           countA: a.mainActorRuns.count, countB: b.mainActorRuns.count),
            TimeComparison(name: "main-actor-waiting", title: "Waiting for the Main Actor", a: a.mainActorWaits.totalNs, b: b.mainActorWaits.totalNs,
                           countA: a.mainActorWaits.count, countB: b.mainActorWaits.count),
            TimeComparison(name: "main-actor-longest-wait", title: "Longest wait for the Main Actor", a: a.longestMainActorWait, b: b.longestMainActorWait),
        ]
        for index in mainActor.indices {
            mainActor[index].recordings = .ofMeans(mainActor[index].a, mainActor[index].b, runsA: a.runs, runsB: b.runs, prior: prior)
        }
        tasks = Self.compareTasks(a.tasks, b.tasks)
        findings = FindingComparison.compare(a.findings, b.findings)
        intervals = Set(a.intervals.keys).union(b.intervals.keys).map { name in
            IntervalComparison(name: name, a: a.intervals[name], b: b.intervals[name], prior: prior)
        }.sorted { ($0.intervalsA + $0.intervalsB, $1.name) > ($1.intervalsA + $1.intervalsB, $0.name) }
        verdict = []
        verdict = ComparisonVerdict(self).lines
        if let mismatch = SpanMismatch.check(self.a, self.b) {
            spanMismatch = mismatch
            verdict = [VerdictLine(kind: "span", tone: "neutral", text: mismatch.text, section: "", key: "")]
                + verdict.filter { $0.kind != "none" }.map { line in
                    var line = line
                    line.tone = "neutral"
                    return line
                }
        }
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

    private static func compareViews(_ a: ComparisonSide, _ b: ComparisonSide, frames: FrameCountComparison, prior: RunNoise) -> [ViewComparison] {
        let keys = Set(a.views.keys).union(b.views.keys)
        // Labels of either side, most groups first: a row's rates in that order.
        let labels = Set(a.interactions.keys).union(b.interactions.keys).sorted {
            ((a.interactions[$0] ?? 0) + (b.interactions[$0] ?? 0), $1) > ((a.interactions[$1] ?? 0) + (b.interactions[$1] ?? 0), $0)
        }
        let speed = RecordingComparison.speedEffects(a, b, prior: prior)
        let rows = keys.map { key -> ViewComparison in
            let before = a.views[key], after = b.views[key]
            // Updates in groups of the label over every run, per group over every run.
            let perInteraction = labels.compactMap { label -> InteractionRate? in
                let inA = before?.byInteraction[label] ?? 0, inB = after?.byInteraction[label] ?? 0
                guard inA + inB > 0 else { return nil }
                let groupsA = a.interactions[label] ?? 0, groupsB = b.interactions[label] ?? 0
                return InteractionRate(
                    label: label, a: groupsA > 0 ? Double(inA) / Double(groupsA) : nil, b: groupsB > 0 ? Double(inB) / Double(groupsB) : nil
                )
            }
            func stats(_ sample: ComparisonSide.ViewSample?, runs: Int) -> ComparedViewStats {
                guard let sample else { return ComparedViewStats() }
                return runs == 1 ? sample.stats : ComparedViewStats(sortedDurations: sample.sortedDurations, runCounts: sample.runCounts, runTotals: sample.runTotals)
            }
            return ViewComparison(
                module: key.module, view: key.view, category: key.category, kind: (before ?? after)!.kind,
                isAppCode: (before?.isAppCode ?? false) || (after?.isAppCode ?? false),
                a: stats(before, runs: a.runs), b: stats(after, runs: b.runs),
                durations: RankSumTest(before?.sortedDurations ?? [], after?.sortedDurations ?? []), recordings: speed[key],
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
    /// `skipped`: the notifications of bodies that did not run (`skippedKeys`) instead of the fan-outs.
    private static func compareCauses(_ a: ComparisonSide, _ b: ComparisonSide, skipped: Bool, limit: Int) -> ([CauseComparison], Int) {
        let keysA = skipped ? a.skippedKeys : a.fanOutKeys, keysB = skipped ? b.skippedKeys : b.fanOutKeys
        let countsA = skipped ? a.skipped : a.fanOuts, countsB = skipped ? b.skipped : b.fanOuts
        // A's refs of the names its fan-outs use (not its whole string table), by text.
        var refInA: [String: StringRef] = [:]
        var noted = [Bool](repeating: false, count: a.strings.count)
        func note(_ ref: StringRef) {
            if !noted[Int(ref)] {
                noted[Int(ref)] = true
                refInA[a.strings[Int(ref)]] = ref
            }
        }
        for key in keysA {
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
        for key in keysA { _ = table.id(of: key) }
        var pairs: [(a: Int32, b: Int32)] = keysA.indices.map { (Int32($0), -1) }
        for (index, key) in keysB.enumerated() {
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
            let before = pair.a >= 0 ? countsA[Int(pair.a)] : nil, after = pair.b >= 0 ? countsB[Int(pair.b)] : nil
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
            let key = inA ? keysA[Int(pair.a)] : keysB[Int(pair.b)]
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
            let key = (pair.a >= 0 ? keysA : keysB)[fanOut]
            return CauseComparison(
                source: CauseFanOut.title(name: side.strings[Int(key.sourceName)], kind: key.sourceKind),
                target: CauseFanOut.title(name: side.strings[Int(key.targetName)], kind: key.targetKind),
                label: key.label.wireName, property: side.strings[Int(key.property)], skipped: skipped,
                a: pair.a >= 0 ? CauseFanOutSide(countsA[Int(pair.a)], runs: a.runs) : nil,
                b: pair.b >= 0 ? CauseFanOutSide(countsB[Int(pair.b)], runs: b.runs) : nil
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

    /// Changed fan-outs and skipped notifications in one order: changed first, then by the
    /// absolute change of updates (notifications); a fan-out before a notification on a tie.
    private static func mergeCauses(_ ran: [CauseComparison], _ skipped: [CauseComparison]) -> [CauseComparison] {
        var merged: [CauseComparison] = []
        merged.reserveCapacity(ran.count + skipped.count)
        var i = 0, j = 0
        func rank(_ row: CauseComparison) -> (Int, Int) { (row.change == .unchanged ? 0 : 1, abs(row.updatesDelta)) }
        while i < ran.count || j < skipped.count {
            if j == skipped.count || (i < ran.count && rank(ran[i]) >= rank(skipped[j])) {
                merged.append(ran[i])
                i += 1
            } else {
                merged.append(skipped[j])
                j += 1
            }
        }
        return merged
    }

    /// Self time per run (a pooled side's mean).
    private static func compareFunctions(
        _ a: [ComparisonSide.FunctionKey: ComparisonSide.FunctionTime], _ b: [ComparisonSide.FunctionKey: ComparisonSide.FunctionTime],
        runs: (a: Int, b: Int)
    ) -> [FunctionComparison] {
        let rows = Set(a.keys).union(b.keys).map { key in
            FunctionComparison(
                name: key.name, binary: key.binary, isAppCode: a[key]?.isAppCode ?? b[key]!.isAppCode,
                aSelfNs: (a[key]?.selfNs ?? 0) / Nanoseconds(runs.a), bSelfNs: (b[key]?.selfNs ?? 0) / Nanoseconds(runs.b),
                source: b[key]?.source ?? a[key]?.source
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
    /// The rank test of the updates' durations: detail within the recordings (their updates are
    /// not independent samples), not what decides `speedChange`.
    public var durations: RankSumTest
    /// The time per update compared over recordings (`RecordingComparison`): what decides
    /// `speedChange`. Nil when a side did not run the view.
    @NullWhenAbsent public var recordings: RecordingEffect? = nil
    /// Updates per update group of each label, the labels with the most groups first.
    public var perInteraction: [InteractionRate]
    /// The row's own interaction: of `perInteraction`, the label whose rate changed most (on no
    /// change, the one with the most updates), so a view driven by taps reads per tap and one
    /// driven by frames per frame. Nil when none of its updates is in a labelled group.
    @NullWhenAbsent public var interaction: InteractionRate? = nil
    /// Either side has long (orange or red) updates.
    public var hasLongUpdates: Bool
    /// How many (per run): fewer / more / same beyond noise, or new / gone.
    public var countChange: CountChange
    /// How long each one took, by the rank test on the durations: faster / slower / same / untested.
    public var speedChange: SpeedChange
    /// The words for them (`ComparisonWords`): "fewer bodies", "slower per body", and both in a
    /// few words ("fewer bodies, slower per body"; "no change beyond noise").
    public var countText: String
    public var speedText: String
    /// Updates per frame drawn on each side (nil on a side that drew none).
    public var perFrame: InteractionRate
    public var changeText: String

    /// A count change counts as real beyond this fraction of the larger count (and at least 2).
    public static let countChangeThreshold = 0.1

    /// Whether a count per run from `a` to `b` changed beyond noise: by at least 2 and by more
    /// than `countChangeThreshold` of the larger (counts are exact: the same interaction runs the
    /// same bodies); with several runs a side, also every run of one side beyond every run of the other.
    static func isCountChange(_ a: ComparedViewStats, _ b: ComparedViewStats) -> Bool {
        let change = abs(b.count - a.count)
        guard change >= 2, Double(change) > countChangeThreshold * Double(max(a.count, b.count)) else { return false }
        let lowA = a.spread?.countMin ?? a.count, highA = a.spread?.countMax ?? a.count
        let lowB = b.spread?.countMin ?? b.count, highB = b.spread?.countMax ?? b.count
        return b.count > a.count ? lowB > highA : highB < lowA
    }

    init(
        module: String, view: String, category: String, kind: String, isAppCode: Bool,
        a: ComparedViewStats, b: ComparedViewStats, durations: RankSumTest, recordings: RecordingEffect?, perInteraction: [InteractionRate],
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
        self.recordings = recordings
        let timed = recordings?.significant ?? false
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
           (b.count > a.count) == (frames.b > frames.a), !timed {
            // Updates per frame the same within the count threshold.
            let rateA = Double(a.count) / Double(frames.a), rateB = Double(b.count) / Double(frames.b)
            if abs(rateB - rateA) <= Self.countChangeThreshold * max(rateA, rateB) { change = .followsFrames }
        }
        self.change = change
        let countChanged = Self.isCountChange(a, b)
        // Counts are exact (the same interaction runs the same bodies), durations are noisy: a
        // time is decided over recordings.
        significant = change == .appeared || change == .disappeared
            || (change != .unchanged && change != .followsFrames && (countChanged || timed))
        switch change {
        case .appeared: (countChange, speedChange) = (.new, .none)
        case .disappeared: (countChange, speedChange) = (.gone, .none)
        case .followsFrames:
            // The count followed the frames drawn, at the same time per update: not a regression.
            countChange = .followsFrames
            speedChange = recordings == nil ? .untested : .same
        default:
            countChange = !countChanged ? .same : b.count < a.count ? .fewer : .more
            speedChange = recordings == nil ? .untested : recordings?.direction == "down" ? .faster : recordings?.direction == "up" ? .slower : .same
        }
        countText = countChange == .followsFrames ? ComparisonWords.frames(frames.delta) : ComparisonWords.count(countChange, kind: kind)
        speedText = ComparisonWords.speed(speedChange, kind: kind)
        changeText = countChange == .followsFrames ? countText : ComparisonWords.summary(count: countChange, speed: speedChange, kind: kind)
        interaction = perInteraction.max { x, y in
            let changeX = abs((x.b ?? 0) - (x.a ?? 0)), changeY = abs((y.b ?? 0) - (y.a ?? 0))
            if changeX != changeY { return changeX < changeY }
            // On a tie, the label with the higher rate, then the earlier (more groups) label.
            return max(x.a ?? 0, x.b ?? 0) < max(y.a ?? 0, y.b ?? 0)
        }
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
    /// The change against the run-to-run noise (the prior's: a side keeps only its runs' mean);
    /// nil when a side is zero.
    @NullWhenAbsent public var recordings: RecordingEffect? = nil

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
    /// "ran": the bodies ran (a fan-out); "skipped": bodies notified that did not run (drawn
    /// dimmed in the graph), as an environment change notifies views that do not read the value.
    public var outcome: String
    @NullWhenAbsent public var a: CauseFanOutSide? = nil
    @NullWhenAbsent public var b: CauseFanOutSide? = nil
    /// Updates caused in B minus in A.
    public var updatesDelta: Int

    init(source: String, target: String, label: String, property: String, skipped: Bool = false, a: CauseFanOutSide?, b: CauseFanOutSide?) {
        outcome = skipped ? "skipped" : "ran"
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

/// A fan-out on one side: events and updates per run (a pooled side's mean), targets per event
/// over every run.
public struct CauseFanOutSide: Sendable, Equatable, Encodable {
    public var events: Int
    public var updates: Int
    public var minPerEvent: Int
    public var maxPerEvent: Int
    /// "×12" or "×1–3".
    public var fanOut: String

    init(_ fanOut: FanOutCount, runs: Int = 1) {
        events = Int((Double(fanOut.events) / Double(runs)).rounded())
        updates = Int((Double(fanOut.updates) / Double(runs)).rounded())
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
    /// Hitches and hangs: the count per recording against its noise (`RecordingCountTest`).
    @NullWhenAbsent public var countTest: RecordingCountTest? = nil

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
    /// The function's file and line (B's, else A's), when the recordings have them.
    @NullWhenAbsent public var source: CodeLocation? = nil

    init(name: String, binary: String, isAppCode: Bool, aSelfNs: Nanoseconds, bSelfNs: Nanoseconds, source: CodeLocation? = nil) {
        self.source = source
        self.name = name
        self.binary = binary
        self.isAppCode = isAppCode
        self.aSelfNs = aSelfNs
        self.bSelfNs = bSelfNs
        deltaNs = bSelfNs.addingSaturating(-aSelfNs)
    }
}
