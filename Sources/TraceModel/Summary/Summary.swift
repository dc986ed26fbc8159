// The summary table of the SwiftUI instrument: update counts and time by process, module and
// view, for a time range. The JSON encoding is the API's "Summary" shape.

/// Which updates a summary counts.
public enum SummaryFilter: String, CaseIterable, Codable, Sendable {
    case all
    case longViewBody = "long-view-body"
    case longRepresentable = "long-representable"
    case longOther = "long-other"

    /// The lanes whose updates this filter counts (update lanes partition the updates).
    var lanes: [Lane] {
        switch self {
        case .all: [.viewBody, .representable, .otherUpdates]
        case .longViewBody: [.longViewBody]
        case .longRepresentable: [.longRepresentable]
        case .longOther: [.longOther]
        }
    }
}

/// Count and time of a set of updates. `avgNs` is rounded down; orange and red count long updates.
public struct SummaryStats: Sendable, Equatable, Codable {
    public var count = 0
    public var totalNs: Nanoseconds = 0
    public var avgNs: Nanoseconds = 0
    public var maxNs: Nanoseconds = 0
    public var orange = 0
    public var red = 0
    /// What the updates made run after them, summed (Instruments 27's `downstream-cost` and the
    /// count of `downstream-events`); null when the recording has no such measure, so an older
    /// recording never reads as zero.
    @NullWhenAbsent public var downstreamNs: Nanoseconds?
    @NullWhenAbsent public var downstreamEvents: Int?

    public init(downstreamRecorded: Bool = false) {
        if downstreamRecorded { (downstreamNs, downstreamEvents) = (0, 0) }
    }

    @inline(__always) mutating func addDownstream(cost: Nanoseconds, events: Int) {
        downstreamNs = (downstreamNs ?? 0).addingSaturating(cost)
        downstreamEvents = (downstreamEvents ?? 0) + events
    }

    mutating func add(duration: Nanoseconds) {
        count(duration: duration)
        avgNs = totalNs / Nanoseconds(count)
    }

    /// `add(duration:)` without the average (a division), for loops over many updates: call
    /// `updateAverage()` after them.
    @inline(__always) mutating func count(duration: Nanoseconds) {
        count(duration: duration, time: duration)
    }

    /// One update of `duration` that adds `time` to the total (less than its duration when part
    /// of it was already counted: a nested layout pass of the same view).
    @inline(__always) mutating func count(duration: Nanoseconds, time: Nanoseconds) {
        count += 1
        totalNs.addSaturating(time)
        maxNs = max(maxNs, duration)
        switch LongUpdateSeverity(duration: duration) {
        case .normal: break
        case .orange: orange += 1
        case .red: red += 1
        }
    }

    /// Takes off layout time its parts counted twice (passes nested across two of its rows).
    mutating func subtract(sharedTime: Nanoseconds) {
        totalNs = max(0, totalNs - sharedTime)
        updateAverage()
    }

    mutating func updateAverage() { avgNs = count == 0 ? 0 : totalNs / Nanoseconds(count) }

    mutating func add(_ other: SummaryStats) {
        count += other.count
        totalNs.addSaturating(other.totalNs)
        maxNs = max(maxNs, other.maxNs)
        orange += other.orange
        red += other.red
        avgNs = count == 0 ? 0 : totalNs / Nanoseconds(count)
        if let cost = other.downstreamNs { addDownstream(cost: cost, events: other.downstreamEvents ?? 0) }
    }
}

public struct UpdateSummary: Sendable, Equatable, Codable {
    public var start: Nanoseconds
    public var end: Nanoseconds
    public var filter: SummaryFilter
    public var total: SummaryStats
    /// Sorted by total time, longest first (as are modules and views inside).
    public var processes: [ProcessUpdateSummary]
    /// View rows left out past `maxViews` (the least total time; their process's and module's
    /// figures still count them); 0 normally.
    public var omittedViews = 0

    /// A summary lists at most this many view rows, the most total time first.
    public static let maxViews = 1000
}

public struct ProcessUpdateSummary: Sendable, Equatable, Codable {
    public var name: String
    /// nil when the source did not say which process ran the updates.
    @NullWhenAbsent public var pid: Int32?
    public var stats: SummaryStats
    public var modules: [ModuleUpdateSummary]

    enum CodingKeys: String, CodingKey { case name, pid, modules }

    // Stats are flattened into the object, as the API shape has them (the reason for these
    // hand-written coders; absent values still go through NullWhenAbsent).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(_pid, forKey: .pid)
        try stats.encode(to: encoder)
        try container.encode(modules, forKey: .modules)
    }
}

// The decoders are in extensions so that the compiler still writes the memberwise inits.
extension ProcessUpdateSummary {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        _pid = try container.decode(NullWhenAbsent<Int32>.self, forKey: .pid)
        modules = try container.decode([ModuleUpdateSummary].self, forKey: .modules)
        stats = try SummaryStats(from: decoder)
    }
}

public struct ModuleUpdateSummary: Sendable, Equatable, Codable {
    public var name: String
    public var stats: SummaryStats
    public var views: [ViewUpdateSummary]

    enum CodingKeys: String, CodingKey { case name, views }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try stats.encode(to: encoder)
        try container.encode(views, forKey: .views)
    }
}

extension ModuleUpdateSummary {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        views = try container.decode([ViewUpdateSummary].self, forKey: .views)
        stats = try SummaryStats(from: decoder)
    }
}

/// One row per (view name, category). `kind` is the kind of the row's first update.
public struct ViewUpdateSummary: Sendable, Equatable, Codable {
    public var name: String
    public var category: String
    public var kind: String
    public var stats: SummaryStats

    enum CodingKeys: String, CodingKey { case name, category, kind }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(category, forKey: .category)
        try container.encode(kind, forKey: .kind)
        try stats.encode(to: encoder)
    }
}

extension ViewUpdateSummary {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        category = try container.decode(String.self, forKey: .category)
        kind = try container.decode(String.self, forKey: .kind)
        stats = try SummaryStats(from: decoder)
    }
}

extension Trace {
    /// Updates that overlap `range` (nil = the whole trace) and pass `filter`, grouped by
    /// process, module and (view name, category).
    public func summary(in range: TimeRange?, filter: SummaryFilter) -> UpdateSummary {
        // A range that holds every update (the page's default) gives the same rows as none: cached.
        let table = updates
        let holdsAll = table.count == 0 || range.map { $0.start <= table.start[0] && $0.end > table.start[table.count - 1] } ?? true
        guard !holdsAll else {
            var summary = indexes.lists.wholeTraceSummary(filter) { countedSummary(in: nil, filter: filter) }
            let span = range ?? TimeRange(start: metadata.start, end: metadata.end)
            (summary.start, summary.end) = (span.start, span.end)
            return summary
        }
        return countedSummary(in: range, filter: filter)
    }

    private func countedSummary(in range: TimeRange?, filter: SummaryFilter) -> UpdateSummary {
        let index = indexes.lists.summaryRows(self)
        let table = updates
        let downstreamRecorded = table.hasDownstream
        var statsOfRow = [SummaryStats](repeating: SummaryStats(downstreamRecorded: downstreamRecorded), count: index.rows.count)
        var kindOfRow = [UpdateKind](repeating: .other, count: index.rows.count)
        var total = SummaryStats(downstreamRecorded: downstreamRecorded)
        // SwiftUI lays a view out inside a layout pass (depth > 0): every total of layout time is
        // the union of its passes per thread (`LayoutTimeUnion`), so a nested pass counts once in
        // its view's row, its module, its process and the total. A module or process figure is
        // the sum of its rows' less what their passes share with one another there.
        var viewLayout = LayoutTimeUnion(), moduleLayout = LayoutTimeUnion(), processLayout = LayoutTimeUnion(), totalLayout = LayoutTimeUnion()
        var modules: (ofRow: [Int], count: Int) = ([], 0)
        var sharedInModule: [Nanoseconds] = [], sharedInProcess: [Nanoseconds] = []
        for lane in filter.lanes {
            for row in updateRows(of: lane, overlapping: range) {
                if QueryCancellation.requested(at: row) { break }
                let duration = table.duration[row]
                let summaryRow = Int(index.rowOfUpdate[row])
                if statsOfRow[summaryRow].count == 0 { kindOfRow[summaryRow] = table.kind[row] }
                var time = duration, totalTime = duration
                if table.kind[row] == .layout {
                    if modules.ofRow.isEmpty {
                        modules = Self.moduleIDs(of: index.rows)
                        sharedInModule = Array(repeating: 0, count: modules.count)
                        sharedInProcess = Array(repeating: 0, count: processes.count + 1)
                    }
                    let (start, end, thread) = (table.start[row], table.end(row), table.thread[row])
                    let module = modules.ofRow[summaryRow], process = Self.processScope(index.rows[summaryRow].process, processes.count)
                    time = viewLayout.add(start: start, end: end, scope: summaryRow, thread: thread)
                    let moduleTime = moduleLayout.add(start: start, end: end, scope: module, thread: thread)
                    let processTime = processLayout.add(start: start, end: end, scope: process, thread: thread)
                    totalTime = totalLayout.add(start: start, end: end, scope: 0, thread: thread)
                    sharedInModule[module] += time - moduleTime
                    sharedInProcess[process] += moduleTime - processTime
                }
                statsOfRow[summaryRow].count(duration: duration, time: time)
                total.count(duration: duration, time: totalTime)
                if downstreamRecorded, let cost = table.downstreamCost(row) {
                    let events = table.downstreamEvents(row) ?? 0
                    statsOfRow[summaryRow].addDownstream(cost: cost, events: events)
                    total.addDownstream(cost: cost, events: events)
                }
            }
        }
        total.updateAverage()
        var byView: [SummaryRowKey: (kind: UpdateKind, stats: SummaryStats)] = [:]
        for (summaryRow, var stats) in statsOfRow.enumerated() where stats.count > 0 {
            if QueryCancellation.requested(at: summaryRow) { break }
            stats.updateAverage()
            byView[index.rows[summaryRow]] = (kindOfRow[summaryRow], stats)
        }
        // Past the limit, the rows of least time are counted in their module and process only.
        var listed = Set(byView.keys)
        if byView.count > UpdateSummary.maxViews, !Task.isCancelled {
            let rows = statsOfRow.indices.filter { statsOfRow[$0].count > 0 }
                .sorted { (statsOfRow[$0].totalNs, $1) > (statsOfRow[$1].totalNs, $0) }
            listed = Set(rows.prefix(UpdateSummary.maxViews).map { index.rows[$0] })
        }

        // Assemble the tree; the view rows' first kind wins when lanes disagree (they partition
        // by kind, so only `.layout` and `.other` can share a view row).
        var byModule: [Int32: [StringRef: [(row: ViewUpdateSummary, listed: Bool)]]] = [:]
        var moduleIDOf: [SummaryModuleKey: Int] = [:]
        for (row, id) in modules.ofRow.enumerated() { moduleIDOf[SummaryModuleKey(process: index.rows[row].process, module: index.rows[row].module)] = id }
        for (step, (key, value)) in byView.enumerated() {
            if QueryCancellation.requested(at: step) { break }
            let isListed = listed.contains(key)
            let view = ViewUpdateSummary(
                name: isListed ? string(key.view) : "", category: isListed ? string(key.category) : "", kind: value.kind.wireName, stats: value.stats
            )
            byModule[key.process, default: [:]][key.module, default: []].append((view, isListed))
        }
        var result: [ProcessUpdateSummary] = []
        for (process, modules) in byModule {
            var moduleSummaries: [ModuleUpdateSummary] = []
            var processStats = SummaryStats(downstreamRecorded: downstreamRecorded)
            for (module, views) in modules {
                var moduleStats = SummaryStats(downstreamRecorded: downstreamRecorded)
                for view in views { moduleStats.add(view.row.stats) }
                if let id = moduleIDOf[SummaryModuleKey(process: process, module: module)], sharedInModule[id] > 0 {
                    moduleStats.subtract(sharedTime: sharedInModule[id])
                }
                processStats.add(moduleStats)
                let sortedViews = views.filter(\.listed).map(\.row)
                    .sorted { ($0.stats.totalNs, $1.name, $1.category) > ($1.stats.totalNs, $0.name, $0.category) }
                guard !sortedViews.isEmpty else { continue }
                moduleSummaries.append(ModuleUpdateSummary(name: string(module), stats: moduleStats, views: sortedViews))
            }
            if !sharedInProcess.isEmpty { processStats.subtract(sharedTime: sharedInProcess[Self.processScope(process, processes.count)]) }
            guard !moduleSummaries.isEmpty else { continue }
            moduleSummaries.sort { ($0.stats.totalNs, $1.name) > ($1.stats.totalNs, $0.name) }
            let info = process == noRow ? nil : processes[Int(process)]
            result.append(ProcessUpdateSummary(name: info?.name ?? "", pid: info?.pid, stats: processStats, modules: moduleSummaries))
        }
        result.sort { ($0.stats.totalNs, $1.name, $1.pid ?? -1) > ($1.stats.totalNs, $0.name, $0.pid ?? -1) }
        let span = range ?? TimeRange(start: metadata.start, end: metadata.end)
        return UpdateSummary(start: span.start, end: span.end, filter: filter, total: total, processes: result, omittedViews: byView.count - listed.count)
    }

    /// A dense id per (process, module) of the summary rows, one per row, and how many.
    private static func moduleIDs(of rows: [SummaryRowKey]) -> (ofRow: [Int], count: Int) {
        var idOf: [SummaryModuleKey: Int] = [:]
        let ids = rows.map { key in
            let module = SummaryModuleKey(process: key.process, module: key.module)
            if let id = idOf[module] { return id }
            idOf[module] = idOf.count
            return idOf.count - 1
        }
        return (ids, idOf.count)
    }

    /// A process's dense index for `LayoutTimeUnion`: updates of no known process come last.
    private static func processScope(_ process: Int32, _ processCount: Int) -> Int {
        process == noRow ? processCount : Int(process)
    }

    /// Rows of `lane` that overlap `range` (nil = all of them): rows are sorted by start, so the ones
    /// that can overlap started in [range.start - longest duration of the lane, range.end).
    func updateRows(of lane: Lane, overlapping range: TimeRange?) -> LazyFilterSequence<LazyMapSequence<ArraySlice<UInt32>, Int>> {
        let rows = indexes.updatesByLane[lane] ?? []
        var low = 0, high = rows.count
        if let range {
            low = Self.firstIndex(in: rows, startAtLeast: range.start - (indexes.maxDurationByLane[lane] ?? 0), starts: updates.start)
            high = Self.firstIndex(in: rows, startAtLeast: range.end, starts: updates.start)
        }
        let table = updates
        return rows[low..<max(low, high)].lazy.map(Int.init).filter { range?.overlaps(start: table.start[$0], end: table.end($0)) ?? true }
    }

    /// First position in `rows` (sorted by start) whose update starts at or after `time`.
    static func firstIndex(in rows: [UInt32], startAtLeast time: Nanoseconds, starts: [Nanoseconds]) -> Int {
        var low = 0
        var high = rows.count
        while low < high {
            let mid = (low + high) / 2
            if starts[Int(rows[mid])] < time { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

private struct SummaryModuleKey: Hashable { var process: Int32, module: StringRef }
