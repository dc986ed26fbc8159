// Several recordings of one side as one: a user records a flaky interaction three times, and
// `tracesvc compare A1 A2 A3 -- B1 B2` (or /compare?a=ID,ID&b=ID,ID) compares all of them. The
// recording is the unit (docs/statistics.md): each view's count and total, each interval name's
// measures and the totals are kept per run, and every claim is decided on one value per run
// against the run-to-run noise (`RecordingEffect`), shown as the mean with the least and most run
// beside it (`RunSpread`). The durations of every run are pooled only for the rank tests, detail
// that never decides; frames drawn and Swift task times are the runs' means.

extension ComparisonSide {
    /// `sides` (at least one) as one side. The header, the first interaction of each label (the
    /// timelines' anchor) and the string table are the first side's, extended with the others' names.
    public static func pooled(_ sides: [ComparisonSide]) -> ComparisonSide {
        precondition(!sides.isEmpty, "pooling needs at least one side")
        guard sides.count > 1 else { return sides[0] }
        var pooled = sides[0]
        pooled.header.updates = sides.reduce(0) { $0 + $1.header.updates }
        pooled.header.runNames = sides.flatMap(\.header.runNames)
        pooled.header.runs = pooled.header.runNames.count
        pooled.views = poolViews(sides)
        pooled.interactions = [:]
        for side in sides {
            for (label, count) in side.interactions { pooled.interactions[label, default: 0] += count }
        }
        pooled.firstInteraction = sides[0].firstInteraction
        var strings = StringMerger(sides[0].strings)
        (pooled.fanOutKeys, pooled.fanOuts) = poolFanOuts(sides.map { ($0.fanOutKeys, $0.fanOuts, $0.strings) }, into: &strings)
        (pooled.skippedKeys, pooled.skipped) = poolFanOuts(sides.map { ($0.skippedKeys, $0.skipped, $0.strings) }, into: &strings)
        pooled.strings = strings.strings
        pooled.runTotals = [:]
        for side in sides {
            for name in Set(pooled.runTotals.keys).union(side.runTotals.keys) {
                pooled.runTotals[name, default: []] += side.runTotals[name] ?? [ComparedTotal](repeating: ComparedTotal(), count: side.runs)
            }
        }
        pooled.totals = pooled.runTotals.mapValues { runs in
            var sum = ComparedTotal()
            for run in runs {
                sum.count += run.count
                sum.totalNs.addSaturating(run.totalNs)
            }
            return sum
        }
        pooled.selfTime = [:]
        for side in sides {
            for (key, time) in side.selfTime {
                pooled.selfTime[key, default: FunctionTime(selfNs: 0, isAppCode: time.isAppCode, source: time.source)].selfNs.addSaturating(time.selfNs)
            }
        }
        pooled.intervals = [:]
        for name in Set(sides.flatMap(\.intervals.keys)) {
            var merged: IntervalSample? = nil
            for side in sides {
                let sample = side.intervals[name] ?? IntervalSample(
                    subsystem: "", category: "", runIntervals: [Int](repeating: 0, count: side.runs),
                    values: [[Int64]](repeating: [], count: IntervalMeasure.allCases.count), bodiesByView: [:], viewsComplete: true, hasTaskData: false
                )
                if merged == nil { merged = sample } else { merged!.append(sample) }
                if merged!.subsystem.isEmpty { (merged!.subsystem, merged!.category) = (sample.subsystem, sample.category) }
            }
            pooled.intervals[name] = merged
        }
        pooled.findings = sides.flatMap(\.findings)
        poolTasks(sides, into: &pooled)
        return pooled
    }

    /// Frames drawn and the Swift task figures are kept per run: the mean over all runs (a side
    /// that is itself pooled weighs as its runs), the longest wait the longest of any.
    private static func poolTasks(_ sides: [ComparisonSide], into pooled: inout ComparisonSide) {
        let runs = sides.reduce(0) { $0 + $1.runs }
        func mean(_ value: (ComparisonSide) -> Int64) -> Int64 {
            var sum: Int64 = 0
            for side in sides { sum.addSaturating(value(side).multipliedReportingOverflow(by: Int64(side.runs)).partialValue) }
            return Int64((Double(sum) / Double(runs)).rounded())
        }
        pooled.frames = Int(mean { Int64($0.frames) })
        pooled.mainActorRuns = ComparedTotal(count: Int(mean { Int64($0.mainActorRuns.count) }), totalNs: mean(\.mainActorRuns.totalNs))
        pooled.mainActorWaits = ComparedTotal(count: Int(mean { Int64($0.mainActorWaits.count) }), totalNs: mean(\.mainActorWaits.totalNs))
        pooled.longestMainActorWait = sides.map(\.longestMainActorWait).max() ?? 0
        var tasks: [TaskKey: TaskSummaryRow] = [:]
        for side in sides {
            let weight = Int64(side.runs)
            for (key, row) in side.tasks {
                var merged = tasks[key] ?? TaskSummaryRow(
                    resumeFunction: row.resumeFunction, title: row.title, actor: row.actor, isMainActor: row.isMainActor,
                    running: 0, waiting: 0, runs: 0, longestWait: 0
                )
                merged.running.addSaturating(row.running.multipliedReportingOverflow(by: weight).partialValue)
                merged.waiting.addSaturating(row.waiting.multipliedReportingOverflow(by: weight).partialValue)
                merged.runs += row.runs * side.runs
                merged.longestWait = max(merged.longestWait, row.longestWait)
                tasks[key] = merged
            }
        }
        pooled.tasks = tasks.mapValues { row in
            var row = row
            row.running /= Int64(runs)
            row.waiting /= Int64(runs)
            row.runs = Int((Double(row.runs) / Double(runs)).rounded())
            return row
        }
    }

    /// Each view's durations of every run (sorted), its updates per label summed, and its count
    /// and total in each run (zero in a run without it).
    private static func poolViews(_ sides: [ComparisonSide]) -> [ViewKey: ViewSample] {
        var views: [ViewKey: ViewSample] = [:]
        var runsBefore = 0
        for side in sides {
            for (key, sample) in side.views {
                var pooled = views[key] ?? ViewSample(
                    kind: sample.kind, isAppCode: false, sortedDurations: [], stats: ComparedViewStats(), byInteraction: [:],
                    runCounts: [Int](repeating: 0, count: runsBefore), runTotals: [Nanoseconds](repeating: 0, count: runsBefore)
                )
                pooled.isAppCode = pooled.isAppCode || sample.isAppCode
                pooled.sortedDurations += sample.sortedDurations
                for (label, count) in sample.byInteraction { pooled.byInteraction[label, default: 0] += count }
                pooled.runCounts += sample.runCounts
                pooled.runTotals += sample.runTotals
                views[key] = pooled
            }
            runsBefore += side.runs
            // A view this side did not have gets zeros for its runs.
            for key in views.keys where views[key]!.runCounts.count < runsBefore {
                let missing = runsBefore - views[key]!.runCounts.count
                views[key]!.runCounts += [Int](repeating: 0, count: missing)
                views[key]!.runTotals += [Nanoseconds](repeating: 0, count: missing)
            }
        }
        for key in views.keys {
            views[key]!.sortedDurations.sort()
            views[key]!.stats = ComparedViewStats(sortedDurations: views[key]!.sortedDurations)
        }
        return views
    }

    /// Fan-outs (or skipped notifications) of several sides by key, their names in one table:
    /// events and updates summed, targets per event the least and most of any run.
    private static func poolFanOuts(
        _ sides: [(keys: [FanOutKey], counts: [FanOutCount], strings: [String])], into strings: inout StringMerger
    ) -> ([FanOutKey], [FanOutCount]) {
        var table = FanOutKeyTable()
        var counts: [FanOutCount] = []
        for (position, side) in sides.enumerated() {
            for (index, key) in side.keys.enumerated() {
                var key = key
                if position > 0 {
                    key.sourceName = strings.ref(of: side.strings[Int(key.sourceName)])
                    key.targetName = strings.ref(of: side.strings[Int(key.targetName)])
                    key.property = strings.ref(of: side.strings[Int(key.property)])
                }
                let id = table.id(of: key)
                if id == counts.count { counts.append(FanOutCount()) }
                let count = side.counts[index]
                counts[id].events += count.events
                counts[id].updates += count.updates
                counts[id].minPerEvent = min(counts[id].minPerEvent, count.minPerEvent)
                counts[id].maxPerEvent = max(counts[id].maxPerEvent, count.maxPerEvent)
            }
        }
        return (table.keys, counts)
    }
}

/// The first side's string table, extended with the texts of the other sides it lacks.
private struct StringMerger {
    private(set) var strings: [String]
    private var refOfText: [String: StringRef] = [:]
    private var indexed = false

    init(_ strings: [String]) { self.strings = strings }

    mutating func ref(of text: String) -> StringRef {
        if !indexed {
            // Later texts win on duplicates: any ref of a text names it.
            for (ref, text) in strings.enumerated() { refOfText[text] = StringRef(ref) }
            indexed = true
        }
        if let ref = refOfText[text] { return ref }
        let ref = StringRef(strings.count)
        strings.append(text)
        refOfText[text] = ref
        return ref
    }
}
