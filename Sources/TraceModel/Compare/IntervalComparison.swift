#if canImport(Glibc)
import Glibc  // log: the C math library only
#elseif canImport(Darwin)
import Darwin
#endif

// Per interaction: the app's signpost intervals ("Favorite Tap", any subsystem or category).
// Each interval gives one value of each measure (view bodies that started in it, their time, long
// updates, hitches, main-actor time, its own duration); A and B are compared per recording (each
// run's mean per interval: the recording is the unit), times against the run-to-run noise of the
// comparison (`Comparison.noise`: the sides' runs, earlier recordings with the same tags, else the
// prior), whatever the recordings' lengths. The interval-against-interval rank test stays as detail.

/// What is measured in each signpost interval.
public enum IntervalMeasure: String, Sendable, CaseIterable, Encodable {
    /// The interval's own duration.
    case duration
    /// View-body updates that started in it.
    case bodies
    /// Their time.
    case bodyTime = "body-time"
    /// Updates over 500 µs (any kind) that started in it.
    case longUpdates = "long-updates"
    /// Hitches that overlap it.
    case hitches
    /// Time Swift tasks ran on the Main Actor inside it (clipped to it).
    case mainActor = "main-actor"

    public var isTime: Bool { self == .duration || self == .bodyTime || self == .mainActor }

    /// What one unit is called, in the plural ("bodies") or as a time ("body time").
    var noun: String {
        switch self {
        case .duration: "duration"
        case .bodies: "bodies"
        case .bodyTime: "body time"
        case .longUpdates: "long updates"
        case .hitches: "hitches"
        case .mainActor: "main-actor time"
        }
    }
}

/// One signpost name's intervals on one side: one value per interval for each measure.
struct IntervalSample: Sendable {
    var subsystem: String
    var category: String
    /// Intervals in each run of the side.
    var runIntervals: [Int]
    /// By `IntervalMeasure.allCases` position, one value per interval (ns for times).
    var values: [[Int64]]
    /// View-body updates in the intervals, summed, per (module, view).
    var bodiesByView: [ViewName: Int]
    /// Whether the per-view counts cover every interval (a bound on the walk keeps a trace of
    /// huge overlapping intervals cheap; the measures are exact either way).
    var viewsComplete: Bool
    /// The trace has Swift task data (main-actor time means something).
    var hasTaskData: Bool

    struct ViewName: Hashable, Sendable { var module: String, view: String }

    var intervals: Int { values.first?.count ?? 0 }

    /// The samples of several runs as one.
    mutating func append(_ other: IntervalSample) {
        runIntervals += other.runIntervals
        for measure in values.indices { values[measure] += other.values[measure] }
        for (view, count) in other.bodiesByView { bodiesByView[view, default: 0] += count }
        viewsComplete = viewsComplete && other.viewsComplete
        hasTaskData = hasTaskData || other.hasTaskData
    }
}

extension Trace {
    /// Signpost names compared beyond this many (the most intervals first) are left out.
    static let intervalNameLimit = 32
    /// Updates visited to count bodies per view in intervals, at most (the measures use prefix sums).
    static let intervalViewVisitLimit = 4_000_000

    /// The intervals (not events, not unended) that start in `range`, by name: each interval's
    /// measures. Updates count in an interval when they start in it.
    func intervalSamples(in range: TimeRange?) -> [String: IntervalSample] {
        let table = signposts
        var rowsByName: [StringRef: [Int]] = [:]
        for row in 0..<table.count where table.kind[row] == .interval {
            if let range, !(table.start[row] >= range.start && table.start[row] < range.end) { continue }
            rowsByName[table.name[row], default: []].append(row)
        }
        guard !rowsByName.isEmpty else { return [:] }
        let names = rowsByName.sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }.prefix(Self.intervalNameLimit)

        // Prefix sums over updates by start: bodies, body time, long updates before each row.
        let starts = updates.start, durations = updates.duration, kinds = updates.kind
        var bodies = [Int64](repeating: 0, count: updates.count + 1)
        var bodyTime = [Int64](repeating: 0, count: updates.count + 1)
        var long = [Int64](repeating: 0, count: updates.count + 1)
        for row in 0..<updates.count {
            let isBody = kinds[row] == .viewBody
            bodies[row + 1] = bodies[row] + (isBody ? 1 : 0)
            bodyTime[row + 1] = bodyTime[row].addingSaturating(isBody ? durations[row] : 0)
            long[row + 1] = long[row] + (LongUpdateSeverity(duration: durations[row]).isLong ? 1 : 0)
        }
        let hitchStarts = hitches.map(\.start), longestHitch = hitches.map(\.duration).max() ?? 0
        let runs = indexes.mainActorRuns.map(Int.init)
        let runStarts = runs.map { taskStates.start[$0] }
        let longestRun = runs.map { taskStates.duration[$0] }.max() ?? 0
        var visits = 0

        var result: [String: IntervalSample] = [:]
        for (name, rows) in names {
            var values = [[Int64]](repeating: [], count: IntervalMeasure.allCases.count)
            var byView: [IntervalSample.ViewName: Int] = [:]
            var complete = true
            for row in rows {
                let start = table.start[row], end = table.end(row)
                let first = indexOfFirst(atLeast: start, in: starts), last = indexOfFirst(atLeast: end, in: starts)
                var hitchCount: Int64 = 0
                for hitch in indexOfFirst(atLeast: start - longestHitch, in: hitchStarts)..<hitches.count {
                    guard hitches[hitch].start < end else { break }
                    if hitches[hitch].end > start { hitchCount += 1 }
                }
                var mainActor: Nanoseconds = 0
                for position in indexOfFirst(atLeast: start - longestRun, in: runStarts)..<runs.count {
                    guard runStarts[position] < end else { break }
                    let runEnd = taskStates.end(runs[position])
                    mainActor.addSaturating(max(0, min(end, runEnd) - max(start, runStarts[position])))
                }
                for measure in IntervalMeasure.allCases {
                    let value: Int64 = switch measure {
                    case .duration: end - start
                    case .bodies: bodies[last] - bodies[first]
                    case .bodyTime: bodyTime[last] - bodyTime[first]
                    case .longUpdates: long[last] - long[first]
                    case .hitches: hitchCount
                    case .mainActor: mainActor
                    }
                    values[IntervalMeasure.allCases.firstIndex(of: measure)!].append(value)
                }
                visits += last - first
                if visits > Self.intervalViewVisitLimit {
                    complete = false
                    continue
                }
                for update in first..<last where kinds[update] == .viewBody {
                    byView[IntervalSample.ViewName(module: string(updates.module[update]), view: string(updates.viewName[update])), default: 0] += 1
                }
            }
            let firstRow = rows[0]
            result[string(name)] = IntervalSample(
                subsystem: string(table.subsystem[firstRow]), category: string(table.category[firstRow]), runIntervals: [rows.count],
                values: values, bodiesByView: byView, viewsComplete: complete, hasTaskData: taskStates.count > 0
            )
        }
        return result
    }
}

/// One signpost name, A against B: how many intervals, and per interval each measure.
public struct IntervalComparison: Sendable, Equatable, Encodable {
    public var name: String
    public var subsystem: String
    public var category: String
    /// Intervals per run on each side (a pooled side's mean, rounded).
    public var intervalsA: Int
    public var intervalsB: Int
    /// Each measure per interval; main-actor time only when either side recorded Swift tasks.
    public var measures: [IntervalMeasureComparison]
    /// View bodies per interval by view (module, view), the largest change first, at most `viewLimit`.
    public var views: [IntervalViewRate]
    /// False when a trace of very many overlapping intervals left some out of `views` (never of `measures`).
    public var viewsComplete: Bool

    public static let viewLimit = 10

    /// `prior`: one recording's noise where the sides' own runs do not measure it (earlier
    /// recordings with the same tags, else the default), as the views' times use it.
    init(name: String, a: IntervalSample?, b: IntervalSample?, prior: RunNoise) {
        self.name = name
        subsystem = (a ?? b)!.subsystem
        category = (a ?? b)!.category
        func perRun(_ sample: IntervalSample?) -> Int { sample.map { RunSpread.mean($0.runIntervals) } ?? 0 }
        intervalsA = perRun(a)
        intervalsB = perRun(b)
        let withTasks = (a?.hasTaskData ?? false) || (b?.hasTaskData ?? false)
        measures = IntervalMeasure.allCases.enumerated().compactMap { index, measure in
            if measure == .mainActor, !withTasks { return nil }
            return IntervalMeasureComparison(
                measure: measure, a: a?.values[index] ?? [], b: b?.values[index] ?? [], runsA: a?.runIntervals ?? [], runsB: b?.runIntervals ?? [],
                prior: prior
            )
        }
        var keys = Set<IntervalSample.ViewName>()
        if let a { keys.formUnion(a.bodiesByView.keys) }
        if let b { keys.formUnion(b.bodiesByView.keys) }
        func rate(_ sample: IntervalSample?, _ key: IntervalSample.ViewName) -> Double? {
            guard let sample, sample.intervals > 0 else { return nil }
            return Double(sample.bodiesByView[key] ?? 0) / Double(sample.intervals)
        }
        views = keys.map { key in
            IntervalViewRate(module: key.module, view: key.view, a: rate(a, key), b: rate(b, key))
        }.sorted { x, y in
            (abs((x.b ?? 0) - (x.a ?? 0)), max(x.a ?? 0, x.b ?? 0), y.view, y.module) > (abs((y.b ?? 0) - (y.a ?? 0)), max(y.a ?? 0, y.b ?? 0), x.view, x.module)
        }.prefix(Self.viewLimit).map { $0 }
        viewsComplete = (a?.viewsComplete ?? true) && (b?.viewsComplete ?? true)
    }

    /// Measure `name` ("bodies").
    public func measure(_ measure: IntervalMeasure) -> IntervalMeasureComparison? {
        measures.first { $0.name == measure.rawValue }
    }
}

/// One measure per interval on each side, and whether it changed beyond noise.
public struct IntervalMeasureComparison: Sendable, Equatable, Encodable {
    /// `IntervalMeasure`: "bodies", "body-time", ...
    public var name: String
    /// "count" or "nanoseconds".
    public var unit: String
    /// Mean per interval; nil on a side without intervals.
    @NullWhenAbsent public var a: Double? = nil
    @NullWhenAbsent public var b: Double? = nil
    /// Median per interval.
    @NullWhenAbsent public var medianA: Double? = nil
    @NullWhenAbsent public var medianB: Double? = nil
    /// Interval against interval (Mann-Whitney U; tested with 8 intervals a side or more): detail
    /// within the recordings (their intervals share the recording's noise), never what decides.
    public var test: RankSumTest
    /// A time's mean per interval compared over recordings (`RecordingEffect`): what decides a time.
    @NullWhenAbsent public var recordings: RecordingEffect? = nil
    /// A count compared over recordings (`IntervalCountTest`): what decides a count.
    @NullWhenAbsent public var counts: IntervalCountTest? = nil
    /// Beyond noise: a time by `recordings`, a count by `counts`.
    public var significant: Bool
    /// "fewer bodies", "more body time", "shorter", "as many bodies" (per interval); "too few to
    /// time" for a time with too few intervals to test.
    public var changeText: String

    /// `a` and `b`: the values of every interval of each side's runs in order, `runsA` and
    /// `runsB` how many intervals each run has.
    init(measure: IntervalMeasure, a: [Int64], b: [Int64], runsA: [Int], runsB: [Int], prior: RunNoise) {
        name = measure.rawValue
        unit = measure.isTime ? "nanoseconds" : "count"
        let sortedA = a.sorted(), sortedB = b.sorted()
        func mean(_ values: [Int64]) -> Double? {
            values.isEmpty ? nil : Double(values.reduce(Int64(0)) { $0.addingSaturating($1) }) / Double(values.count)
        }
        func median(_ values: [Int64]) -> Double? {
            guard !values.isEmpty else { return nil }
            let middle = values.count / 2
            return values.count % 2 == 1 ? Double(values[middle]) : (Double(values[middle - 1]) + Double(values[middle])) / 2
        }
        let meanA = mean(a), meanB = mean(b)
        self.a = meanA
        self.b = meanB
        medianA = median(sortedA)
        medianB = median(sortedB)
        let test = RankSumTest(sortedA, sortedB)
        self.test = test
        let before = meanA ?? 0, after = meanB ?? 0
        let significant: Bool
        let recordings = measure.isTime ? Self.recordingEffect(a, runsA, b, runsB, prior: prior) : nil
        self.recordings = recordings
        let counts = measure.isTime || meanA == nil || meanB == nil ? nil : IntervalCountTest(measure, a, runsA, b, runsB)
        self.counts = counts
        significant = measure.isTime ? recordings?.significant ?? false : counts?.significant ?? false
        self.significant = significant
        // Times are noisy: without the test they are not read at all (counts are, by the count rule).
        changeText = measure.isTime && recordings == nil
            ? ComparisonWords.speed(.untested, kind: "")
            : ComparisonWords.interval(measure, direction: significant ? (after > before ? 1 : after < before ? -1 : 0) : 0)
    }
}

/// A view's bodies per interval on each side (nil on a side without intervals).
public struct IntervalViewRate: Sendable, Equatable, Encodable {
    public var module: String
    public var view: String
    @NullWhenAbsent public var a: Double? = nil
    @NullWhenAbsent public var b: Double? = nil
}

extension IntervalMeasureComparison {
    /// The log of each run's mean per interval, both sides; nil when a side has no run with a
    /// positive mean. The intervals' spread within a run adds its share (`withinVariance`);
    /// `prior` steadies (or, one recording a side, is) the run-to-run noise.
    static func recordingEffect(_ a: [Int64], _ runsA: [Int], _ b: [Int64], _ runsB: [Int], prior: RunNoise) -> RecordingEffect? {
        func logs(_ values: [Int64], _ runs: [Int]) -> (logs: [Double], within: Double) {
            var result: [Double] = [], start = 0, squares = 0.0, freedom = 0.0
            for count in runs {
                let run = values[start..<min(values.count, start + count)]
                start += count
                let positive = run.filter { $0 > 0 }.map { log(Double($0)) }
                guard !positive.isEmpty else { continue }
                let mean = positive.reduce(0, +) / Double(positive.count)
                result.append(log(Double(run.reduce(Int64(0)) { $0.addingSaturating($1) }) / Double(run.count)))
                for value in positive { squares += (value - mean) * (value - mean) }
                freedom += Double(positive.count - 1)
            }
            let perRun = Double(values.count) / Double(max(1, result.count))
            return (result, freedom > 0 ? squares / freedom / perRun / Double(max(1, result.count)) : 0)
        }
        let before = logs(a, runsA), after = logs(b, runsB)
        guard !before.logs.isEmpty, !after.logs.isEmpty else { return nil }
        return RecordingEffect(logsA: before.logs, logsB: after.logs, prior: prior, within: before.within + after.within)
    }
}

/// A count per interval (bodies, long updates, hitches) decided over recordings, never interval
/// against interval: the intervals of one recording share its noise. Bodies are exact (the same
/// tap runs the same bodies): a change when each recording's count per interval moved by over
/// 10 %, by at least 2 over a recording's intervals, and every recording of one side is beyond
/// every one of the other. Long updates and hitches vary between runs: each recording's total
/// against Poisson noise (`RecordingCountTest`).
public struct IntervalCountTest: Sendable, Equatable, Encodable {
    public var runsA: Int
    public var runsB: Int
    /// "exact" (bodies) or "poisson".
    public var rule: String
    public var significant: Bool
    /// "every recording beyond the other side's, 3 vs 3 recordings"; "within run-to-run noise, 1 vs 1 recordings".
    public var text: String

    init?(_ measure: IntervalMeasure, _ a: [Int64], _ runsA: [Int], _ b: [Int64], _ runsB: [Int]) {
        func perRun(_ values: [Int64], _ runs: [Int]) -> [(total: Int64, intervals: Int)] {
            var result: [(total: Int64, intervals: Int)] = [], start = 0
            for count in runs where count > 0 {
                let run = values[start..<min(values.count, start + count)]
                start += count
                result.append((total: run.reduce(Int64(0)) { $0.addingSaturating($1) }, intervals: run.count))
            }
            return result
        }
        let before = perRun(a, runsA), after = perRun(b, runsB)
        guard !before.isEmpty, !after.isEmpty else { return nil }
        self.runsA = before.count
        self.runsB = after.count
        let sides = "\(before.count) vs \(after.count) recordings"
        if measure == .bodies {
            rule = "exact"
            let ratesA = before.map { Double($0.total) / Double($0.intervals) }, ratesB = after.map { Double($0.total) / Double($0.intervals) }
            let meanA = ratesA.reduce(0, +) / Double(ratesA.count), meanB = ratesB.reduce(0, +) / Double(ratesB.count)
            let intervals = Double(min(before.map { $0.intervals }.min()!, after.map { $0.intervals }.min()!))
            let moved = abs(meanB - meanA) * intervals >= 2 && abs(meanB - meanA) > ViewComparison.countChangeThreshold * max(meanA, meanB)
            let apart = meanB > meanA ? ratesB.min()! > ratesA.max()! : ratesB.max()! < ratesA.min()!
            significant = moved && apart
            text = significant ? "every recording beyond the other side's, \(sides)" : "within the recordings' counts, \(sides)"
        } else {
            rule = "poisson"
            let test = RecordingCountTest(before.map { Int($0.total) }, after.map { Int($0.total) })
            significant = test.significant
            text = (significant ? "beyond run-to-run noise" : "within run-to-run noise") + (test.exact ? " (every recording the same)" : "") + ", \(sides)"
        }
    }
}
