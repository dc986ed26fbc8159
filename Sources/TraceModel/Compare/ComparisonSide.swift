import Synchronization

// What a comparison needs from one trace, gathered in one pass over its updates, samples and
// graph. The two sides are independent: a caller may compute them in parallel, and a trace's
// whole-trace side may be kept (`ComparisonSideCache`): traces never change.

/// One trace's share of a `TraceComparison`, for an optional time range.
public struct ComparisonSide: Sendable {
    public var header: ComparedTrace
    /// One entry per (module, view, category), in no particular order.
    var views: [ViewKey: ViewSample]
    /// Update groups per label ("Tap Gesture": 2).
    var interactions: [String: Int]
    /// Start of the first update group of each label in `interactions` (the timelines' anchor).
    var firstInteraction: [String: Nanoseconds]
    /// Fan-outs by id: their keys in interned names of `strings`, and their numbers.
    var fanOutKeys: [FanOutKey]
    var fanOuts: [FanOutCount]
    /// The trace's string table (shared, not copied).
    var strings: [String]
    var totals: [String: ComparedTotal]
    /// Self time (ns of CPU samples whose leaf is the function) by function.
    var selfTime: [FunctionKey: FunctionTime]
    /// Notifications of view bodies that did not run (an environment change checking views that do
    /// not read the value), keyed and counted like `fanOutKeys` / `fanOuts`.
    var skippedKeys: [FanOutKey]
    var skipped: [FanOutCount]
    /// Signpost intervals by name (`IntervalSample`), the most frequent names.
    var intervals: [String: IntervalSample]
    /// The findings of each run whose evidence lies in the compared span (`Trace.findings`).
    var findings: [[Finding]]
    /// The recordings this side pools (`pooled(_:)`); one for a side of one trace.
    var runs: Int { header.runs }
    /// Each total of each run, for the spread of a pooled side.
    var runTotals: [String: [ComparedTotal]]
    /// Frames SwiftUI drew updates in (`Trace.framesDrawn(in:)`).
    var frames: Int
    /// Swift tasks on the Main Actor: runs (count, time), waits (count, time), the longest wait.
    var mainActorRuns: ComparedTotal
    var mainActorWaits: ComparedTotal
    var longestMainActorWait: Nanoseconds
    /// Running and waiting time per resume function and actor (addresses left out of actor names).
    var tasks: [TaskKey: TaskSummaryRow]

    struct TaskKey: Hashable, Sendable { var function: String, actor: String }

    struct ViewKey: Hashable, Sendable { var module: String, view: String, category: String }
    struct FunctionKey: Hashable, Sendable { var name: String, binary: String }
    struct FunctionTime: Sendable { var selfNs: Nanoseconds, isAppCode: Bool, source: CodeLocation? = nil }

    struct ViewSample: Sendable {
        var kind: String
        var isAppCode: Bool
        /// Durations of the row's updates, ascending (for p95 and the rank test).
        var sortedDurations: [Nanoseconds]
        var stats: ComparedViewStats
        /// Updates in update groups of each label.
        var byInteraction: [String: Int]
        /// The row's count and total time in each run (zero in a run without it).
        var runCounts: [Int]
        var runTotals: [Nanoseconds]
    }

    /// Labels beyond this many (the most frequent first) get no per-interaction counts: a trace
    /// whose every group has its own label has no interactions to normalise by.
    static let interactionLabelLimit = 32
}

/// A trace as the comparison's header shows it.
public struct ComparedTrace: Sendable, Equatable, Encodable {
    public var name: String
    public var app: String
    public var device: String
    public var osVersion: String
    public var durationNs: Nanoseconds
    /// The compared span: the given range or the whole recording.
    public var start: Nanoseconds
    public var end: Nanoseconds
    /// Updates that overlap the span.
    public var updates: Int
    /// What CPU weights count: "CPU time" (Time Profiler) or "CPU cycles" (CPU Profiler).
    public var cpuWeights: String
    /// Recordings this side pools (`tracesvc compare A1 A2 -- B1`); the fields above are the
    /// first's, but `updates`, which counts all of them.
    public var runs: Int = 1
    /// The name of each.
    public var runNames: [String] = []
}

/// Count and total time of one kind of event (hitches, hangs, CPU samples, updates): per run
/// (the mean over a pooled side's runs, rounded), with the runs' spread when there are several.
public struct ComparedTotal: Sendable, Equatable, Encodable {
    public var count = 0
    public var totalNs: Nanoseconds = 0
    @NullWhenAbsent public var spread: RunSpread? = nil

    init() {}

    init(count: Int, totalNs: Nanoseconds) {
        self.count = count
        self.totalNs = totalNs
    }

    /// The mean of `runs` (one per run), and their spread when there are several.
    init(runs: [ComparedTotal]) {
        guard !runs.isEmpty else { return }
        let counts = runs.map(\.count), totals = runs.map(\.totalNs)
        count = RunSpread.mean(counts)
        totalNs = RunSpread.mean(totals)
        spread = RunSpread(counts: counts, totals: totals)
    }
}

/// The least and most of a count and a time over a pooled side's runs; absent (null) for one run.
public struct RunSpread: Sendable, Equatable, Encodable {
    public var runs: Int
    public var countMin: Int
    public var countMax: Int
    public var totalMinNs: Nanoseconds
    public var totalMaxNs: Nanoseconds

    init?(counts: [Int], totals: [Nanoseconds]) {
        guard counts.count > 1 else { return nil }
        runs = counts.count
        countMin = counts.min()!
        countMax = counts.max()!
        totalMinNs = totals.min()!
        totalMaxNs = totals.max()!
    }

    static func mean(_ values: [Int]) -> Int {
        values.isEmpty ? 0 : Int((Double(values.reduce(0, +)) / Double(values.count)).rounded())
    }

    static func mean(_ values: [Nanoseconds]) -> Nanoseconds {
        var sum: Nanoseconds = 0
        for value in values { sum.addSaturating(value) }
        return values.isEmpty ? 0 : sum / Nanoseconds(values.count)
    }
}

/// A view row's numbers on one side; all zero when the side has no such updates. Counts and the
/// total are per run (a pooled side's mean, with `spread`); avg, p95 and max are over every
/// duration of every run.
public struct ComparedViewStats: Sendable, Equatable, Encodable {
    public var count = 0
    public var totalNs: Nanoseconds = 0
    public var avgNs: Nanoseconds = 0
    /// Nearest-rank 95th percentile of the durations.
    public var p95Ns: Nanoseconds = 0
    public var maxNs: Nanoseconds = 0
    public var orange = 0
    public var red = 0
    @NullWhenAbsent public var spread: RunSpread? = nil

    init() {}

    /// `durations` of all runs; `runCounts` and `runTotals` one per run (nil: one run, all of them).
    init(sortedDurations durations: [Nanoseconds], runCounts: [Int]? = nil, runTotals: [Nanoseconds]? = nil) {
        guard let longest = durations.last else { return }
        var total: Nanoseconds = 0
        for duration in durations {
            total.addSaturating(duration)
            switch LongUpdateSeverity(duration: duration) {
            case .normal: break
            case .orange: orange += 1
            case .red: red += 1
            }
        }
        avgNs = total / Nanoseconds(durations.count)
        maxNs = longest
        p95Ns = durations[Int((Double(durations.count) * 0.95).rounded(.up)) - 1]
        let runs = runCounts?.count ?? 1
        count = runs == 1 ? durations.count : RunSpread.mean(runCounts!)
        totalNs = runs == 1 ? total : RunSpread.mean(runTotals!)
        if runs > 1 {
            orange = Int((Double(orange) / Double(runs)).rounded())
            red = Int((Double(red) / Double(runs)).rounded())
            spread = RunSpread(counts: runCounts!, totals: runTotals!)
        }
    }
}

extension Trace {
    /// The comparison's view of this trace, restricted to events that overlap `range` (nil = all).
    /// `findings`: this trace's findings when the caller has them (the server finds them once per
    /// trace); nil finds them here.
    public func comparisonSide(in range: TimeRange? = nil, findings: [Finding]? = nil) -> ComparisonSide {
        let span = range ?? TimeRange(start: metadata.start, end: metadata.end)
        let inRange = { (start: Nanoseconds, end: Nanoseconds) in range?.overlaps(start: start, end: end) ?? true }

        // Interactions: update groups by label, the most frequent labels get dense ids.
        var groupsByLabel: [StringRef: (count: Int, first: Nanoseconds)] = [:]
        for group in 0..<updateGroups.count
        where inRange(updateGroups.start[group], updateGroups.start[group] + updateGroups.duration[group]) {
            let start = updateGroups.start[group]
            groupsByLabel[updateGroups.label[group], default: (0, start)].count += 1
            groupsByLabel[updateGroups.label[group]]!.first = min(groupsByLabel[updateGroups.label[group]]!.first, start)
        }
        let labels = groupsByLabel.sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }
            .prefix(ComparisonSide.interactionLabelLimit).map(\.key)
        var interactions: [String: Int] = [:], firstInteraction: [String: Nanoseconds] = [:]
        for label in labels {
            interactions[string(label)] = groupsByLabel[label]!.count
            firstInteraction[string(label)] = groupsByLabel[label]!.first
        }

        func total(_ intervals: [TimelineInterval]) -> ComparedTotal {
            var result = ComparedTotal()
            for interval in intervals where inRange(interval.start, interval.end) {
                result.count += 1
                result.totalNs.addSaturating(interval.duration)
            }
            return result
        }
        let (views, updateTotal) = viewSamples(in: range, labels: labels)
        let (cpuTotal, selfTime) = selfTimeByFunction(in: range)
        let (fanOutKeys, fanOuts) = causeFanOutCounts(in: range)
        let (skippedKeys, skipped) = skippedNotificationCounts(in: range)
        let totals = ["updates": updateTotal, "hitches": total(hitches), "hangs": total(hangs), "cpu": cpuTotal]
        let found = (findings ?? self.findings()).filter { finding in range.map { isEvidence(finding.evidence, in: $0) } ?? true }
        var runs = ComparedTotal(), waits = ComparedTotal(), longestWait: Nanoseconds = 0
        let states = taskStates
        for row in indexes.mainActorRuns.map(Int.init) where inRange(states.start[row], states.end(row)) {
            runs.count += 1
            runs.totalNs.addSaturating(states.duration[row])
        }
        for row in indexes.mainActorWaits.map(Int.init) where inRange(states.start[row], states.end(row)) {
            waits.count += 1
            waits.totalNs.addSaturating(states.duration[row])
            longestWait = max(longestWait, states.duration[row])
        }
        var tasks: [ComparisonSide.TaskKey: TaskSummaryRow] = [:]
        for row in taskSummary(in: range) {
            let key = ComparisonSide.TaskKey(function: row.title, actor: Self.actorName(row.actor))
            if var known = tasks[key] {
                // Two actors of one kind (two instances) are one row.
                known.running.addSaturating(row.running)
                known.waiting.addSaturating(row.waiting)
                known.runs += row.runs
                known.longestWait = max(known.longestWait, row.longestWait)
                tasks[key] = known
            } else {
                tasks[key] = row
            }
        }
        return ComparisonSide(
            header: ComparedTrace(
                name: metadata.name, app: metadata.app, device: metadata.device, osVersion: metadata.osVersion,
                durationNs: metadata.duration, start: span.start, end: span.end, updates: updateTotal.count,
                cpuWeights: metadata.cpuWeightUnit == .cycles ? "CPU cycles" : "CPU time", runNames: [metadata.name]
            ),
            views: views, interactions: interactions, firstInteraction: firstInteraction, fanOutKeys: fanOutKeys, fanOuts: fanOuts, strings: strings,
            totals: totals, selfTime: selfTime, skippedKeys: skippedKeys, skipped: skipped, intervals: intervalSamples(in: range),
            findings: [found], runTotals: totals.mapValues { [$0] }, frames: framesDrawn(in: range), mainActorRuns: runs, mainActorWaits: waits,
            longestMainActorWait: longestWait, tasks: tasks
        )
    }

    /// Edges that notified a view body which did not run (a node with no update: the graph draws
    /// it dimmed), whose time overlaps `range`, merged by the fan-out key: per key, the notifying
    /// events (sources) and the notifications. An environment change that checks forty views
    /// which do not read it shows here, and disappears here when fixed.
    func skippedNotificationCounts(in range: TimeRange?) -> (keys: [FanOutKey], counts: [FanOutCount]) {
        let nodes = graph.nodes, edges = graph.edges
        var table = FanOutKeyTable()
        var counts: [FanOutCount] = []
        // Per key, the source of the event being counted and its notifications so far.
        var open: [(source: Int, count: Int)] = []
        func close(_ id: Int) {
            guard open[id].count > 0 else { return }
            counts[id].events += 1
            counts[id].updates += open[id].count
            counts[id].minPerEvent = min(counts[id].minPerEvent, open[id].count)
            counts[id].maxPerEvent = max(counts[id].maxPerEvent, open[id].count)
            open[id].count = 0
        }
        for source in 0..<nodes.count {
            for edge in graph.outgoing(source).map(Int.init) where edges.label[edge] == .update {
                let target = Int(edges.target[edge])
                guard nodes.kind[target] == .viewBody, nodes.update[target] == noRow,
                      range?.overlaps(start: edges.timestamp[edge], end: edges.timestamp[edge]) ?? true else { continue }
                let id = table.id(of: FanOutKey(
                    sourceName: nodes.name[source], targetName: nodes.name[target], property: edges.changedProperty[edge],
                    sourceKind: nodes.kind[source], targetKind: .viewBody, label: .update
                ))
                if id == counts.count {
                    counts.append(FanOutCount())
                    open.append((source, 0))
                }
                if open[id].source != source {
                    close(id)
                    open[id].source = source
                }
                open[id].count += 1
            }
        }
        for id in counts.indices { close(id) }
        return (table.keys, counts)
    }

    /// "Main Actor (0x600001f04000)" → "Main Actor": an actor's address differs in every recording.
    static func actorName(_ actor: String) -> String {
        // TraceModel does without Foundation: find the last " (0x" by hand.
        guard actor.hasSuffix(")"), let open = actor.lastIndex(of: "("), open > actor.startIndex,
              actor[open...].hasPrefix("(0x"), actor[actor.index(before: open)] == " " else { return actor }
        return String(actor[..<actor.index(before: open)])
    }

    /// Frames SwiftUI drew updates in, in `range` (nil = the whole trace): update groups (else
    /// updates, without groups) starting within half a refresh interval of a frame's first one
    /// are that frame; the next start after that begins another. A recording has no frame table
    /// tracesvc reads, so this counts the frames SwiftUI worked in, not the display's.
    public func framesDrawn(in range: TimeRange? = nil) -> Int {
        let starts = updateGroups.count > 0 ? updateGroups.start : updates.start
        let first = range.map { indexOfFirst(atLeast: $0.start, in: starts) } ?? 0
        let end = range.map { indexOfFirst(atLeast: $0.end, in: starts) } ?? starts.count
        let half = metadata.frameDuration / 2
        var frames = 0
        var frameStart: Nanoseconds?
        for index in first..<max(first, end) {
            if let current = frameStart, starts[index] - current < half { continue }
            frames += 1
            frameStart = starts[index]
        }
        return frames
    }

    /// One row per (module, view, category) of the updates that overlap `range`, with their
    /// durations sorted and their counts in groups of each of `labels`; and all those updates' total.
    private func viewSamples(in range: TimeRange?, labels: [StringRef]) -> ([ComparisonSide.ViewKey: ComparisonSide.ViewSample], ComparedTotal) {
        // Locals read once: a stored property of a struct reached per update can cost a retain.
        let starts = updates.start, durations = updates.duration, modules = updates.module, viewNames = updates.viewName
        let categories = updates.category, kinds = updates.kind, groups = updates.group, groupLabels = updateGroups.label
        let updateNodeOffsets = indexes.updateNodeOffsets, updateNodes = indexes.updateNodes, nodeIsAppCode = graph.nodes.isAppCode
        let candidates = range.map { 0..<indexOfFirst(atLeast: $0.end, in: starts) } ?? 0..<updates.count
        let appModule = metadata.app.isEmpty ? nil : ref(of: metadata.app)

        // Pass 1, the row of each update. Rows are keyed by interned refs and found through the
        // first row of each view name (no hashing: a million updates name a few hundred views).
        struct Row { var module: StringRef, view: StringRef, category: StringRef, kind: UpdateKind, isAppCode: Bool, next: Int32 }
        struct RowKey: Hashable { var module: StringRef, view: StringRef, category: StringRef }
        var rows: [Row] = []
        var firstRowOfName = [Int32](repeating: noRow, count: strings.count)
        // Past a few rows of one name (one view in many modules or categories), rows are found by hashing.
        var rowOfKey: [RowKey: Int32] = [:]
        let rowOfUpdate = UnsafeMutableBufferPointer<Int32>.allocate(capacity: candidates.count)
        defer { rowOfUpdate.deallocate() }
        var cancelled = false
        // Nested layout passes count their time once in a row's total and in the updates' total,
        // as in the summary (`LayoutTimeUnion`): what each counted twice is taken off after.
        let threads = updates.thread
        var rowLayout = LayoutTimeUnion(), totalLayout = LayoutTimeUnion()
        var nestedOfRow: [Nanoseconds] = [], nestedInTotal: Nanoseconds = 0
        for update in candidates {
            // Cancelled: the rest count as outside the range (every update needs its row set).
            if !cancelled, QueryCancellation.requested(at: update) { cancelled = true }
            if cancelled || range.map({ !$0.overlaps(start: starts[update], end: starts[update] + durations[update]) }) ?? false {
                rowOfUpdate[update - candidates.lowerBound] = noRow
                continue
            }
            let module = modules[update], view = viewNames[update], category = categories[update]
            var row = firstRowOfName[Int(view)]
            var steps = 0
            while row != noRow, rows[Int(row)].module != module || rows[Int(row)].category != category {
                row = rows[Int(row)].next
                steps += 1
                if steps == 8 {
                    row = rowOfKey[RowKey(module: module, view: view, category: category)] ?? noRow
                    break
                }
            }
            if row == noRow {
                row = Int32(rows.count)
                rows.append(Row(module: module, view: view, category: category, kind: kinds[update],
                                isAppCode: module == appModule, next: firstRowOfName[Int(view)]))
                firstRowOfName[Int(view)] = row
                rowOfKey[RowKey(module: module, view: view, category: category)] = row
            }
            rowOfUpdate[update - candidates.lowerBound] = row
            if kinds[update] == .layout {
                let (start, end, thread) = (starts[update], starts[update] + durations[update], threads[update])
                let ownTime = rowLayout.add(start: start, end: end, scope: Int(row), thread: thread)
                if ownTime < durations[update] {
                    if nestedOfRow.count <= Int(row) { nestedOfRow.append(contentsOf: repeatElement(0, count: Int(row) + 1 - nestedOfRow.count)) }
                    nestedOfRow[Int(row)] += durations[update] - ownTime
                }
                nestedInTotal += durations[update] - totalLayout.add(start: start, end: end, scope: 0, thread: thread)
            }
            // Blue in Instruments: a graph node of the update is the app's own code.
            if !rows[Int(row)].isAppCode {
                for position in Int(updateNodeOffsets[update])..<Int(updateNodeOffsets[update + 1])
                where nodeIsAppCode[Int(updateNodes[position])] {
                    rows[Int(row)].isAppCode = true
                    break
                }
            }
        }

        // Pass 2, updates per row and per (row, label); pass 3, durations partitioned by row.
        var labelID = [Int32](repeating: noRow, count: strings.count)
        for (id, label) in labels.enumerated() { labelID[Int(label)] = Int32(id) }
        let offsets = UnsafeMutableBufferPointer<Int>.allocate(capacity: rows.count + 1)
        let labelCounts = UnsafeMutableBufferPointer<Int>.allocate(capacity: rows.count * labels.count)
        defer { offsets.deallocate(); labelCounts.deallocate() }
        offsets.initialize(repeating: 0)
        labelCounts.initialize(repeating: 0)
        for (position, row) in rowOfUpdate.enumerated() where row != noRow {
            offsets[Int(row) + 1] += 1
            let group = groups[candidates.lowerBound + position]
            if group != noRow {
                let id = labelID[Int(groupLabels[Int(group)])]
                if id != noRow { labelCounts[Int(row) * labels.count + Int(id)] += 1 }
            }
        }
        for row in rows.indices { offsets[row + 1] += offsets[row] }
        let updateCount = offsets[rows.count]
        let partitioned = UnsafeMutableBufferPointer<Nanoseconds>.allocate(capacity: updateCount)
        let scratch = UnsafeMutableBufferPointer<Nanoseconds>.allocate(capacity: updateCount)
        let fill = UnsafeMutableBufferPointer<Int>.allocate(capacity: rows.count)
        defer { partitioned.deallocate(); scratch.deallocate(); fill.deallocate() }
        _ = fill.initialize(from: offsets.prefix(rows.count))
        for (position, row) in rowOfUpdate.enumerated() where row != noRow {
            partitioned[fill[Int(row)]] = durations[candidates.lowerBound + position]
            fill[Int(row)] += 1
        }

        var views: [ComparisonSide.ViewKey: ComparisonSide.ViewSample] = [:]
        var updateTotal = ComparedTotal()
        for (index, row) in rows.enumerated() {
            let slice = offsets[index]..<offsets[index + 1]
            sortDurations(UnsafeMutableBufferPointer(rebasing: partitioned[slice]), scratch: UnsafeMutableBufferPointer(rebasing: scratch[slice]))
            let sorted = Array(partitioned[slice])
            var byInteraction: [String: Int] = [:]
            for (id, label) in labels.enumerated() where labelCounts[index * labels.count + id] > 0 {
                byInteraction[string(label)] = labelCounts[index * labels.count + id]
            }
            var stats = ComparedViewStats(sortedDurations: sorted)
            if index < nestedOfRow.count { stats.totalNs -= nestedOfRow[index] }
            updateTotal.count += stats.count
            updateTotal.totalNs.addSaturating(stats.totalNs)
            let key = ComparisonSide.ViewKey(module: string(row.module), view: string(row.view), category: string(row.category))
            views[key] = ComparisonSide.ViewSample(
                kind: row.kind.wireName, isAppCode: row.isAppCode, sortedDurations: sorted, stats: stats, byInteraction: byInteraction,
                runCounts: [stats.count], runTotals: [stats.totalNs]
            )
        }
        // The rows' totals took off their own nested passes; the total also those of other rows.
        let nestedInRows = nestedOfRow.reduce(0, +)
        updateTotal.totalNs -= max(0, nestedInTotal - nestedInRows)
        return (views, updateTotal)
    }

    /// CPU samples in the range (count, weight) and their weight by leaf function.
    private func selfTimeByFunction(in range: TimeRange?) -> (ComparedTotal, [ComparisonSide.FunctionKey: ComparisonSide.FunctionTime]) {
        let samples = cpu.samples
        let first = range.map { indexOfFirst(atLeast: $0.start, in: samples.time) } ?? 0
        let last = range.map { indexOfFirst(atLeast: $0.end, in: samples.time) } ?? samples.count
        // Weight per stack, then per leaf frame, then per (name, binary): the hashing is per frame.
        var byStack = [Nanoseconds](repeating: 0, count: cpu.stacks.count)
        var total = ComparedTotal()
        for sample in first..<max(first, last) {
            if QueryCancellation.requested(at: sample) { break }
            byStack[Int(samples.stack[sample])].addSaturating(samples.weight[sample])
            total.count += 1
            total.totalNs.addSaturating(samples.weight[sample])
        }
        var byFrame = [Nanoseconds](repeating: 0, count: cpu.frames.count)
        for (stack, weight) in byStack.enumerated() where weight > 0 {
            byFrame[Int(cpu.stacks.frame[stack])].addSaturating(weight)
        }
        var result: [ComparisonSide.FunctionKey: ComparisonSide.FunctionTime] = [:]
        for (frame, weight) in byFrame.enumerated() where weight > 0 {
            let key = ComparisonSide.FunctionKey(name: string(cpu.frames.name[frame]), binary: string(cpu.frames.binary[frame]))
            result[key, default: .init(selfNs: 0, isAppCode: cpu.frames.isAppCode[frame], source: sourceLocation(ofFrame: frame))].selfNs.addSaturating(weight)
        }
        return (total, result)
    }
}

/// Sorts durations (never negative: the trace builder bounds them) ascending: a least-significant
/// digit radix sort, 11 bits a pass, as many passes as the largest value needs (3 below 8.6 s).
/// About twice as fast as a comparison sort on a million updates. `scratch` is as long as `values`.
func sortDurations(_ values: UnsafeMutableBufferPointer<Nanoseconds>, scratch: UnsafeMutableBufferPointer<Nanoseconds>) {
    guard values.count > 64 else {
        var small = values
        small.sort()
        return
    }
    let digitBits: Nanoseconds = 11, digits = 1 << 11
    var largest: Nanoseconds = 0
    for value in values { largest = max(largest, value) }
    var source = values, target = scratch
    let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: digits)
    defer { counts.deallocate() }
    var shift: Nanoseconds = 0
    while shift < 63, largest >> shift > 0 {
        counts.initialize(repeating: 0)
        for value in source { counts[Int((value >> shift) & (Nanoseconds(digits) - 1))] += 1 }
        var sum = 0
        for digit in 0..<digits {
            let count = counts[digit]
            counts[digit] = sum
            sum += count
        }
        for value in source {
            let digit = Int((value >> shift) & (Nanoseconds(digits) - 1))
            target[counts[digit]] = value
            counts[digit] += 1
        }
        swap(&source, &target)
        shift += digitBits
    }
    // After an odd number of passes the sorted values are in `scratch`.
    if source.baseAddress != values.baseAddress {
        for index in 0..<values.count { values[index] = source[index] }
    }
}

/// The whole-trace comparison side of one trace, computed on first use and then kept: a trace
/// never changes, and a side is a pass over all of it (a second compare of it is then cheap).
public final class ComparisonSideCache: Sendable {
    private let side = Mutex<ComparisonSide?>(nil)

    public init() {}

    /// `trace` must be the same trace on every call.
    public func side(of trace: Trace, findings: [Finding]? = nil) -> ComparisonSide {
        side.withLock { kept in
            if let kept { return kept }
            let computed = trace.comparisonSide(findings: findings)
            // Computed while cancelled, it may be partial (`QueryCancellation`): never kept.
            if !Task.isCancelled { kept = computed }
            return computed
        }
    }

    /// Bytes a kept side of `trace` takes, about: its durations, and its fan-outs (one per some
    /// twenty edges in recorded and synthetic traces, 48 bytes each).
    public static func expectedFootprint(of trace: Trace) -> Int {
        trace.updates.count * MemoryLayout<Nanoseconds>.stride + trace.graph.edges.count * 48 / 20
    }
}
