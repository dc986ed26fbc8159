import ArgumentParser
import Foundation
import TraceFormats
import TraceModel

/// Summary and view-list latency on a big synthetic trace, against a plain scan of the updates
/// (hash per update, sort per call) measured in the same run and checked to agree.
struct BenchSummary: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary",
        abstract: "Measure summary and view-list latency (p50/p99) on a synthetic trace, against a scan baseline.",
        discussion: "Build with -c release for meaningful figures: swift build -c release --product tracesvc-bench"
    )

    @OptionGroup var synthetic: SyntheticTraceOptions

    @Option(help: "Queries per scenario (the baseline runs a fifth as many).")
    var iterations = 50

    func run() async throws {
        let trace = synthetic.trace()
        let meta = trace.metadata
        let prepareStart = ContinuousClock.now
        trace.indexes.lists.prepare(trace)
        print("trace: \(trace.updates.count) updates; index built in \(ms(ContinuousClock.now - prepareStart)) ms, "
              + "\(trace.indexes.lists.memoryFootprint / 1_000_000) MB (summary rows, view lists, whole-trace summaries)")
        print("  paid once per trace at load, in the server's LoadedTrace.init behind the load gate, not by a request")
        let firstStart = ContinuousClock.now
        let busiest = trace.summary(in: nil, filter: .all).processes.first?.modules.first?.views.first
        let firstWhole = ContinuousClock.now - firstStart
        let firstRangeStart = ContinuousClock.now
        _ = trace.summary(in: TimeRange(start: meta.start + meta.duration / 4, end: meta.start + meta.duration / 2), filter: .all)
        print("first requests after it: whole-trace summary \(ms(firstWhole)) ms, 25% range summary \(ms(ContinuousClock.now - firstRangeStart)) ms")
        guard let view = busiest?.name else { throw ValidationError("the synthetic trace has no updates") }

        var random = SystemRandomNumberGenerator()
        func randomRange(_ fraction: Double) -> TimeRange {
            let span = max(1, Int64(Double(meta.duration) * fraction))
            let start = meta.start + Int64.random(in: 0...max(0, meta.duration - span), using: &random)
            return TimeRange(start: start, end: start + span)
        }
        let ranges: [(String, () -> TimeRange?)] = [
            ("whole trace", { nil }), ("50% at random", { randomRange(0.5) }), ("1% at random", { randomRange(0.01) }),
        ]
        print("\nscenario                                  indexed wall p50    p99 | thread CPU p99 |   scan p50    p99 | p50 speed-up")
        for (rangeName, range) in ranges {
            for filter in [SummaryFilter.all, .longViewBody] {
                try measure(
                    "summary \(filter.rawValue), \(rangeName)", range,
                    fast: { trace.summary(in: $0, filter: filter) }, slow: { summaryByScan(trace, $0, filter) },
                    agree: { fast, slow in
                        (fast.total.count, fast.total.totalNs, fast.processes.flatMap(\.modules).flatMap(\.views).count) == slow
                    }
                )
            }
            for sort in [ViewUpdatesQuery.Sort.start, .duration] {
                let query = { (range: TimeRange?) in ViewUpdatesQuery(view: view, range: range, sort: sort, descending: true, limit: 200) }
                try measure(
                    "\(view) by \(sort.rawValue) desc, \(rangeName)", range,
                    fast: { trace.viewUpdates(query($0)) }, slow: { viewUpdatesByScan(trace, query($0)) },
                    agree: { fast, slow in fast.total == slow.count && fast.updates.map(\.id) == Array(slow.prefix(200)) }
                )
            }
        }
        print("\ntimes in ms; every scan result was checked against the indexed one (summary totals and rows, view lists' 200 ids)")
    }

    private func measure<Fast, Slow>(
        _ name: String, _ nextRange: () -> TimeRange?,
        fast: (TimeRange?) -> Fast, slow: (TimeRange?) -> Slow, agree: (Fast, Slow) -> Bool
    ) throws {
        var wall: [Duration] = [], cpu: [Duration] = [], scan: [Duration] = []
        for i in 0..<iterations {
            let range = nextRange()
            let cpuStart = threadCPUTime()
            let start = ContinuousClock.now
            let result = fast(range)
            wall.append(ContinuousClock.now - start)
            cpu.append(threadCPUTime() - cpuStart)
            if i % 5 == 0 {
                let scanStart = ContinuousClock.now
                let reference = slow(range)
                scan.append(ContinuousClock.now - scanStart)
                guard agree(result, reference) else { throw ValidationError("indexed and scanned results differ: \(name)") }
            }
        }
        let speedup = percentile(scan, 50) / percentile(wall, 50)
        print(name.padding(toLength: 42, withPad: " ", startingAt: 0)
              + "\(pair(wall).leftPadded(22)) | \(ms(percentile(cpu, 99)).leftPadded(14)) | \(pair(scan)) | \(String(format: "%.0fx", speedup).leftPadded(12))")
    }

}

/// Whether an update counts for a summary filter (the filter's long lane has the same name).
private func passes(_ trace: Trace, _ row: Int, _ filter: SummaryFilter) -> Bool {
    filter == .all
        || LongUpdateSeverity(duration: trace.updates.duration[row]).isLong && trace.updates.kind[row].longLane.rawValue == filter.rawValue
}

/// The summary as a plain scan would compute it: count, total time and rows (hashing every update).
private func summaryByScan(_ trace: Trace, _ range: TimeRange?, _ filter: SummaryFilter) -> (Int, Nanoseconds, Int) {
    struct Key: Hashable { var process: Int32, module: StringRef, view: StringRef, category: StringRef }
    let table = trace.updates
    var rows: Set<Key> = []
    var count = 0
    var total: Nanoseconds = 0
    for row in 0..<table.count where passes(trace, row, filter) {
        if let range, !range.overlaps(start: table.start[row], end: table.end(row)) { continue }
        count += 1
        total += table.duration[row]
        let thread = table.thread[row]
        // As the summary: updates with no thread belong to the only process when there is just one.
        let process = thread == noRow ? (trace.processes.count == 1 ? 0 : noRow) : Int32(trace.threads[Int(thread)].process)
        rows.insert(Key(process: process, module: table.module[row],
                        view: table.viewName[row], category: table.category[row]))
    }
    return (count, total, rows.count)
}

/// A view's updates as a plain scan and sort would list them.
private func viewUpdatesByScan(_ trace: Trace, _ query: ViewUpdatesQuery) -> [Int] {
    let table = trace.updates
    guard let view = trace.strings.firstIndex(of: query.view).map(StringRef.init) else { return [] }
    var rows = (0..<table.count).filter { row in
        table.viewName[row] == view && passes(trace, row, query.filter)
            && (query.range?.overlaps(start: table.start[row], end: table.end(row)) ?? true)
    }
    switch (query.sort, query.descending) {
    case (.start, false): break
    case (.start, true): rows.reverse()
    case (.duration, false): rows.sort { (table.duration[$0], $0) < (table.duration[$1], $1) }
    case (.duration, true): rows.sort { (table.duration[$0], $1) > (table.duration[$1], $0) }
    }
    return rows
}
