// What a comparison needs from one trace, gathered in one pass over its updates, samples and
// graph. The two sides are independent: a caller may compute them in parallel.

/// One trace's share of a `TraceComparison`, for an optional time range.
public struct ComparisonSide: Sendable {
    public var header: ComparedTrace
    /// One entry per (module, view, category), in no particular order.
    var views: [ViewKey: ViewSample]
    /// Update groups per label ("Tap Gesture": 2).
    var interactions: [String: Int]
    var fanOuts: [FanOutCount]
    /// The trace's string table (shared, not copied): `fanOuts` name things by its refs.
    var strings: [String]
    var totals: [String: ComparedTotal]
    /// Self time (ns of CPU samples whose leaf is the function) by function.
    var selfTime: [FunctionKey: FunctionTime]

    struct ViewKey: Hashable, Sendable { var module: String, view: String, category: String }
    struct FunctionKey: Hashable, Sendable { var name: String, binary: String }
    struct FunctionTime: Sendable { var selfNs: Nanoseconds, isAppCode: Bool }

    struct ViewSample: Sendable {
        var kind: String
        var isAppCode: Bool
        /// Durations of the row's updates, ascending (for p95 and the rank test).
        var sortedDurations: [Nanoseconds]
        var stats: ComparedViewStats
        /// Updates in update groups of each label.
        var byInteraction: [String: Int]
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
}

/// Count and total time of one kind of event (hitches, hangs, CPU samples, updates).
public struct ComparedTotal: Sendable, Equatable, Encodable {
    public var count = 0
    public var totalNs: Nanoseconds = 0
}

/// A view row's numbers on one side; all zero when the side has no such updates.
public struct ComparedViewStats: Sendable, Equatable, Encodable {
    public var count = 0
    public var totalNs: Nanoseconds = 0
    public var avgNs: Nanoseconds = 0
    /// Nearest-rank 95th percentile of the durations.
    public var p95Ns: Nanoseconds = 0
    public var maxNs: Nanoseconds = 0
    public var orange = 0
    public var red = 0

    init() {}

    init(sortedDurations durations: [Nanoseconds]) {
        count = durations.count
        guard let longest = durations.last else { return }
        for duration in durations {
            totalNs.addSaturating(duration)
            switch LongUpdateSeverity(duration: duration) {
            case .normal: break
            case .orange: orange += 1
            case .red: red += 1
            }
        }
        avgNs = totalNs / Nanoseconds(count)
        maxNs = longest
        p95Ns = durations[Int((Double(count) * 0.95).rounded(.up)) - 1]
    }
}

extension Trace {
    /// The comparison's view of this trace, restricted to events that overlap `range` (nil = all).
    public func comparisonSide(in range: TimeRange? = nil) -> ComparisonSide {
        let span = range ?? TimeRange(start: metadata.start, end: metadata.end)
        let inRange = { (start: Nanoseconds, end: Nanoseconds) in range?.overlaps(start: start, end: end) ?? true }

        // Interactions: update groups by label, the most frequent labels get dense ids.
        var groupsByLabel: [StringRef: Int] = [:]
        for group in 0..<updateGroups.count
        where inRange(updateGroups.start[group], updateGroups.start[group] + updateGroups.duration[group]) {
            groupsByLabel[updateGroups.label[group], default: 0] += 1
        }
        let labels = groupsByLabel.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            .prefix(ComparisonSide.interactionLabelLimit).map(\.key)
        var labelID = [Int32](repeating: noRow, count: strings.count)
        for (id, label) in labels.enumerated() { labelID[Int(label)] = Int32(id) }

        // View rows keyed by interned refs, found through the first row of each view name (no
        // hashing per update: a million updates name a few hundred views).
        struct Row { var module: StringRef, view: StringRef, category: StringRef, kind: UpdateKind, isAppCode: Bool, next: Int32 }
        var rows: [Row] = []
        var firstRowOfName = [Int32](repeating: noRow, count: strings.count)
        let table = updates
        let candidates = range.map { 0..<indexOfFirst(atLeast: $0.end, in: table.start) } ?? 0..<table.count
        var rowOfUpdate = [Int32](repeating: noRow, count: candidates.count)
        var rowCounts: [Int] = []
        var labelCounts: [Int] = []
        let appModule = metadata.app.isEmpty ? nil : strings.firstIndex(of: metadata.app).map(StringRef.init)
        var updateCount = 0
        // Locals, read once: reaching into a struct property per update can copy it (a retain per array).
        let updateNodeOffsets = indexes.updateNodeOffsets, updateNodes = indexes.updateNodes
        let nodeIsAppCode = graph.nodes.isAppCode, groupLabels = updateGroups.label
        for update in candidates where inRange(table.start[update], table.end(update)) {
            let module = table.module[update], view = table.viewName[update], category = table.category[update]
            var row = firstRowOfName[Int(view)]
            while row != noRow, rows[Int(row)].module != module || rows[Int(row)].category != category {
                row = rows[Int(row)].next
            }
            if row == noRow {
                row = Int32(rows.count)
                rows.append(Row(module: module, view: view, category: category, kind: table.kind[update],
                                isAppCode: module == appModule, next: firstRowOfName[Int(view)]))
                firstRowOfName[Int(view)] = row
                rowCounts.append(0)
                labelCounts.append(contentsOf: repeatElement(0, count: labels.count))
            }
            rowOfUpdate[update - candidates.lowerBound] = row
            rowCounts[Int(row)] += 1
            updateCount += 1
            // Blue in Instruments: a graph node of the update is the app's own code.
            if !rows[Int(row)].isAppCode,
               updateNodes[Int(updateNodeOffsets[update])..<Int(updateNodeOffsets[update + 1])].contains(where: { nodeIsAppCode[Int($0)] }) {
                rows[Int(row)].isAppCode = true
            }
            let group = table.group[update]
            if group != noRow {
                let id = labelID[Int(groupLabels[Int(group)])]
                if id != noRow { labelCounts[Int(row) * labels.count + Int(id)] += 1 }
            }
        }

        // Durations partitioned by row (counting sort), then each partition sorted.
        var offsets = [Int](repeating: 0, count: rows.count + 1)
        for row in rows.indices { offsets[row + 1] = offsets[row] + rowCounts[row] }
        var fill = offsets
        var durations = [Nanoseconds](repeating: 0, count: updateCount)
        for (position, row) in rowOfUpdate.enumerated() where row != noRow {
            durations[fill[Int(row)]] = table.duration[candidates.lowerBound + position]
            fill[Int(row)] += 1
        }
        var views: [ComparisonSide.ViewKey: ComparisonSide.ViewSample] = [:]
        var updateTotal = ComparedTotal()
        for (index, row) in rows.enumerated() {
            let sorted = durations[offsets[index]..<offsets[index + 1]].sorted()
            var byInteraction: [String: Int] = [:]
            for (id, label) in labels.enumerated() where labelCounts[index * labels.count + id] > 0 {
                byInteraction[string(label)] = labelCounts[index * labels.count + id]
            }
            let stats = ComparedViewStats(sortedDurations: sorted)
            updateTotal.count += stats.count
            updateTotal.totalNs.addSaturating(stats.totalNs)
            let key = ComparisonSide.ViewKey(module: string(row.module), view: string(row.view), category: string(row.category))
            views[key] = ComparisonSide.ViewSample(
                kind: row.kind.wireName, isAppCode: row.isAppCode, sortedDurations: sorted, stats: stats, byInteraction: byInteraction
            )
        }

        func total(_ intervals: [TimelineInterval]) -> ComparedTotal {
            var result = ComparedTotal()
            for interval in intervals where inRange(interval.start, interval.end) {
                result.count += 1
                result.totalNs.addSaturating(interval.duration)
            }
            return result
        }
        let (cpuTotal, selfTime) = selfTimeByFunction(in: range)
        var interactions: [String: Int] = [:]
        for label in labels { interactions[string(label)] = groupsByLabel[label] }
        return ComparisonSide(
            header: ComparedTrace(
                name: metadata.name, app: metadata.app, device: metadata.device, osVersion: metadata.osVersion,
                durationNs: metadata.duration, start: span.start, end: span.end, updates: updateCount
            ),
            views: views, interactions: interactions, fanOuts: causeFanOutCounts(in: range), strings: strings,
            totals: ["updates": updateTotal, "hitches": total(hitches), "hangs": total(hangs), "cpu": cpuTotal],
            selfTime: selfTime
        )
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
            result[key, default: .init(selfNs: 0, isAppCode: cpu.frames.isAppCode[frame])].selfNs.addSaturating(weight)
        }
        return (total, result)
    }
}
