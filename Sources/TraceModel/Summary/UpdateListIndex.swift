import Synchronization

/// What the summary and the view lists look up on every call, computed once per trace on first
/// use (the trace is immutable): each update's summary row, and each view's updates in start
/// and in duration order. Turns a whole-trace summary into one pass over arrays (no hashing per
/// update) and a sorted view list into a filtered walk (no sort per call).
public final class UpdateListIndex: Sendable {
    struct SummaryRows: Sendable {
        /// Summary row (process, module, view, category) of each update.
        var rowOfUpdate: [UInt32]
        var rows: [SummaryRowKey]
    }

    struct ViewLists: Sendable {
        /// Updates of each view name (a `StringRef`), compressed sparse rows: ascending start...
        var viewOffsets: [UInt32]
        var viewByStart: [UInt32]
        /// ...and ascending (duration, row).
        var viewByDuration: [UInt32]

        func updates(ofView view: StringRef, byDuration: Bool) -> ArraySlice<UInt32> {
            guard Int(view) + 1 < viewOffsets.count else { return [] }
            let range = Int(viewOffsets[Int(view)])..<Int(viewOffsets[Int(view) + 1])
            return byDuration ? viewByDuration[range] : viewByStart[range]
        }
    }

    private let summaryRows = BuiltOnce<SummaryRows>()
    private let viewLists = BuiltOnce<ViewLists>()
    /// Summaries of every update, by filter (asked for on every page load).
    private let wholeTraceSummaries = Mutex<[SummaryFilter: UpdateSummary]>([:])

    public init() {}

    func summaryRows(_ trace: Trace) -> SummaryRows { summaryRows.get { Self.buildSummaryRows(trace) } }

    func viewLists(_ trace: Trace) -> ViewLists { viewLists.get { Self.buildViewLists(trace) } }

    func wholeTraceSummary(_ filter: SummaryFilter, orMake make: () -> UpdateSummary) -> UpdateSummary {
        if let known = wholeTraceSummaries.withLock({ $0[filter] }) { return known }
        let made = make()
        // Made while cancelled, it may be partial (`QueryCancellation`): never kept.
        if !Task.isCancelled { wholeTraceSummaries.withLock { $0[filter] = made } }
        return made
    }

    /// Builds everything the summary and the view lists look up (summary rows, view lists, the
    /// whole-trace summaries), so that no request pays for it: call where the trace is loaded,
    /// off the request path. Costs about one summary pass and one sort of the updates.
    public func prepare(_ trace: Trace) {
        _ = viewLists(trace)
        for filter in SummaryFilter.allCases { _ = trace.summary(in: nil, filter: filter) }
    }

    /// Bytes held by what has been built so far.
    public var memoryFootprint: Int {
        let summaryBytes = summaryRows.current.map { $0.rowOfUpdate.count * 4 + $0.rows.count * MemoryLayout<SummaryRowKey>.stride } ?? 0
        let listBytes = viewLists.current.map { ($0.viewOffsets.count + $0.viewByStart.count + $0.viewByDuration.count) * 4 } ?? 0
        return summaryBytes + listBytes
    }

    private static func buildSummaryRows(_ trace: Trace) -> SummaryRows {
        let table = trace.updates
        let processOfThread = trace.threads.map { Int32($0.process) }
        // Updates with no thread belong to the only process when there is just one.
        let defaultProcess: Int32 = trace.processes.count == 1 ? 0 : noRow
        var rowOfKey: [SummaryRowKey: UInt32] = [:]
        var rows: [SummaryRowKey] = []
        var rowOfUpdate = [UInt32](repeating: 0, count: table.count)
        for update in 0..<table.count {
            // Stopped after an update at the earliest: a partial answer still has a row for each update.
            if update > 0, QueryCancellation.requested(at: update) { break }
            let thread = table.thread[update]
            let key = SummaryRowKey(
                process: thread == noRow ? defaultProcess : processOfThread[Int(thread)],
                module: table.module[update], view: table.viewName[update], category: table.category[update]
            )
            if let row = rowOfKey[key] {
                rowOfUpdate[update] = row
            } else {
                rowOfUpdate[update] = UInt32(rows.count)
                rowOfKey[key] = UInt32(rows.count)
                rows.append(key)
            }
        }
        return SummaryRows(rowOfUpdate: rowOfUpdate, rows: rows)
    }

    private static func buildViewLists(_ trace: Trace) -> ViewLists {
        let table = trace.updates
        var offsets = [UInt32](repeating: 0, count: trace.strings.count + 1)
        for update in 0..<table.count { offsets[Int(table.viewName[update]) + 1] += 1 }
        for i in 1..<offsets.count { offsets[i] += offsets[i - 1] }
        var byStart = [UInt32](repeating: 0, count: table.count)
        var next = offsets
        for update in 0..<table.count {
            if QueryCancellation.requested(at: update) { break }
            let view = Int(table.viewName[update])
            byStart[Int(next[view])] = UInt32(update)
            next[view] += 1
        }
        var byDuration = byStart
        let durations = table.duration
        for view in 0..<(offsets.count - 1) where offsets[view + 1] - offsets[view] > 1 {
            if QueryCancellation.requested(at: view) { break }
            byDuration[Int(offsets[view])..<Int(offsets[view + 1])].sort { a, b in
                let (da, db) = (durations[Int(a)], durations[Int(b)])
                return da < db || da == db && a < b
            }
        }
        return ViewLists(viewOffsets: offsets, viewByStart: byStart, viewByDuration: byDuration)
    }
}

/// A value built on first use; callers arriving while it is built wait for it rather than build
/// it again. One built while its caller was cancelled may be partial: it goes to that caller only.
final class BuiltOnce<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)

    func get(_ make: () -> Value) -> Value {
        value.withLock { value in
            if let value { return value }
            let made = make()
            // Made while cancelled, it may be partial (`QueryCancellation`): never kept.
            if !Task.isCancelled { value = made }
            return made
        }
    }

    var current: Value? { value.withLock { $0 } }
}

/// One row of the summary: updates of a view name and category, in a module of a process.
struct SummaryRowKey: Hashable, Sendable {
    var process: Int32, module: StringRef, view: StringRef, category: StringRef
}
