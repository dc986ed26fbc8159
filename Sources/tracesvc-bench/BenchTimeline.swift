import ArgumentParser
import Foundation
import TraceFormats
import TraceModel
import TraceSamples

/// Timeline query latency on a big synthetic trace, against a full scan measured in the same run.
struct BenchTimeline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Measure timeline query latency (p50/p99) on a synthetic trace, against a full-scan baseline.",
        discussion: "Build with -c release for meaningful figures: swift build -c release --product tracesvc-bench"
    )

    @OptionGroup var synthetic: SyntheticTraceOptions

    @Option(help: "Queries per scenario for the indexed query (the baseline runs a tenth as many).")
    var iterations = 300

    @Option(help: "Timeline width in pixels.")
    var width = 1920

    func run() async throws {
        let buildStart = ContinuousClock.now
        let trace = synthetic.trace()
        let meta = trace.metadata
        print("trace: \(trace.updates.count) updates, \(trace.updateGroups.count) groups, \(trace.cpu.samples.count) samples, "
              + "\(String(format: "%.1f", Double(meta.duration) / 1e9)) s; built in \(ms(ContinuousClock.now - buildStart)) ms")

        let index = TimelineIndex()
        let prepareStart = ContinuousClock.now
        index.prepare(trace)
        print("per-lane summaries built in \(ms(ContinuousClock.now - prepareStart)) ms, \(index.memoryFootprint / 1_000_000) MB "
              + "(paid once per trace at load, in the server's LoadedTrace.init behind the load gate, not by a request)")
        let firstStart = ContinuousClock.now
        _ = trace.timeline(window: TimeRange(start: meta.start, end: meta.end), width: width, lanes: Lane.allCases, index: index)
        print("first whole-trace query after that: \(ms(ContinuousClock.now - firstStart)) ms")
        print("\nwhole trace, one lane at a time (p50 ms, events returned):")
        for lane in Lane.allCases {
            var times: [Duration] = []
            var events = 0
            for _ in 0..<max(5, iterations / 10) {
                let start = ContinuousClock.now
                let result = trace.timeline(window: TimeRange(start: meta.start, end: meta.end), width: width, lanes: [lane], index: index)
                times.append(ContinuousClock.now - start)
                events = result.lanes[lane.rawValue]?.events.count ?? 0
            }
            print("  \(lane.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0)) \(ms(percentile(times, 50)).leftPadded(8)) \(String(events).leftPadded(6))")
        }
        var random = SystemRandomNumberGenerator()
        var scenarios: [(String, () -> TimeRange)] = [
            ("whole trace", { TimeRange(start: meta.start, end: meta.end) }),
        ]
        for fraction in [0.1, 0.01, 0.0001] {
            scenarios.append(("zoom \(fraction * 100)% at random", {
                let span = max(1, Int64(Double(meta.duration) * fraction))
                let start = meta.start + Int64.random(in: 0...max(0, meta.duration - span), using: &random)
                return TimeRange(start: start, end: start + span)
            }))
        }
        // Panning: a 1% window dragged across the trace in steps of 5% of its width.
        var panStart = meta.start
        let panSpan = max(1, meta.duration / 100)
        scenarios.append(("pan 1% window", {
            panStart += panSpan / 20
            if panStart + panSpan > meta.end { panStart = meta.start }
            return TimeRange(start: panStart, end: panStart + panSpan)
        }))

        print("")
        print("scenario (all \(Lane.allCases.count) lanes, \(width) px)   indexed wall p50    p99 | thread CPU p50    p99 | +JSON wall p50    p99 | full scan p50    p99 | p50 speed-up")
        var encodings: [(String, jsonWall: [Duration], jsonCPU: [Duration], binaryWall: [Duration], binaryCPU: [Duration], jsonBytes: Int, binaryBytes: Int)] = []
        for (name, nextWindow) in scenarios {
            var wall: [Duration] = [], cpu: [Duration] = [], withJSON: [Duration] = [], slow: [Duration] = []
            var jsonCPU: [Duration] = [], withBinary: [Duration] = [], binaryCPU: [Duration] = []
            var jsonBytes = 0, binaryBytes = 0
            let windows = (0..<iterations).map { _ in nextWindow() }
            for (i, window) in windows.enumerated() {
                let cpuStart = threadCPUTime()
                let start = ContinuousClock.now
                let result = trace.timeline(window: window, width: width, lanes: Lane.allCases, index: index)
                let queried = ContinuousClock.now
                let queryCPU = threadCPUTime() - cpuStart
                cpu.append(queryCPU)
                jsonBytes = result.json().count
                withJSON.append(ContinuousClock.now - start)
                jsonCPU.append(threadCPUTime() - cpuStart)
                wall.append(queried - start)
                if i % 10 == 0 {
                    let slowStart = ContinuousClock.now
                    let reference = trace.timelineByFullScan(window: window, width: width, lanes: Lane.allCases)
                    slow.append(ContinuousClock.now - slowStart)
                    guard reference == result else { throw ValidationError("indexed and full-scan results differ for \(window)") }
                }
            }
            // The same windows in the browser's binary columns, as the server answers them: the
            // query written straight into the wire format (one call, timed whole, on its own as a
            // request would run it).
            for (i, window) in windows.enumerated() {
                let binaryCPUStart = threadCPUTime()
                let binaryStart = ContinuousClock.now
                let binary = trace.timelineBinary(window: window, width: width, laneIDs: trace.allTimelineLanes, index: index)
                withBinary.append(ContinuousClock.now - binaryStart)
                binaryCPU.append(threadCPUTime() - binaryCPUStart)
                binaryBytes = binary.count
                if i % 10 == 0 {
                    let events = trace.timeline(window: window, width: width, laneIDs: trace.allTimelineLanes, index: index)
                    guard binary == events.binary() else { throw ValidationError("binary answer differs from the query's events for \(window)") }
                }
            }
            let speedup = percentile(slow, 50) / percentile(wall, 50)
            print(name.padding(toLength: 34, withPad: " ", startingAt: 0)
                  + "\(pair(wall).leftPadded(22)) | \(pair(cpu).leftPadded(21)) | \(pair(withJSON).leftPadded(21)) | \(pair(slow).leftPadded(20)) | \(String(format: "%.0fx", speedup).leftPadded(12))")
            encodings.append((name, withJSON, jsonCPU, withBinary, binaryCPU, jsonBytes, binaryBytes))
        }
        print("\nwire formats (query + encoding; JSON for API users, binary columns for the browser):")
        print("scenario                           JSON wall p50    p99 | CPU p50    p99 |     bytes | binary wall p50    p99 | CPU p50    p99 |    bytes")
        for row in encodings {
            print(row.0.padding(toLength: 34, withPad: " ", startingAt: 0)
                  + "\(pair(row.jsonWall).leftPadded(16)) | \(pair(row.jsonCPU).leftPadded(15)) | \(String(row.jsonBytes).leftPadded(9)) | "
                  + "\(pair(row.binaryWall).leftPadded(22)) | \(pair(row.binaryCPU).leftPadded(15)) | \(String(row.binaryBytes).leftPadded(8))")
        }
        print("\ntimes in ms; thread CPU excludes time the query spent preempted by other processes;")
        print("every baseline run was also checked to give the same events as the indexed query,")
        print("and the binary answer the same bytes as encoding those events")
    }

}

/// The synthetic trace the query benches run on.
struct SyntheticTraceOptions: ParsableArguments {
    @Option(help: "Updates in the synthetic trace.")
    var updates = 1_000_000

    @Option(help: "Seed of the synthetic trace.")
    var seed: UInt64 = 42

    func trace() -> Trace { SyntheticTraces.trace(updates: updates, seed: seed) }
}

func percentile(_ samples: [Duration], _ p: Double) -> Duration {
    let sorted = samples.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p / 100).rounded(.up)) - 1)]
}

func ms(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return String(format: "%.3f", Double(seconds) * 1e3 + Double(attoseconds) / 1e15)
}

/// p50 and p99 in ms, right-aligned, for benchmark tables.
func pair(_ samples: [Duration]) -> String { "\(ms(percentile(samples, 50)).leftPadded(7)) \(ms(percentile(samples, 99)).leftPadded(7))" }

extension String {
    /// Right-aligned in `width` characters, for benchmark tables.
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
