import ArgumentParser
import Foundation
import TraceFormats
import TraceModel
import TraceSamples

/// Time to compute the findings of a big synthetic trace, against one summary pass over the same
/// updates (the cheapest query that reads every update), computed each time, measured in the same run.
struct BenchFindings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "findings",
        abstract: "Measure findings on a synthetic trace (target <= 1 s for 1M updates), against a whole-trace summary baseline.",
        discussion: "Build with -c release for meaningful figures: swift build -c release --product tracesvc-bench"
    )

    @Option(help: "Updates in the synthetic trace.")
    var updates = 1_000_000

    @Option(help: "Seed of the synthetic trace.")
    var seed: UInt64 = 42

    @Option(help: "Timed runs of each (best and median are reported).")
    var runs = 5

    func run() async throws {
        let buildStart = ContinuousClock.now
        let trace = SyntheticTraces.trace(updates: updates, seed: seed)
        print("trace: \(trace.updates.count) updates, \(trace.graph.edges.count) edges, \(trace.updateGroups.count) groups, "
              + "\(trace.cpu.samples.count) samples, \(trace.hitches.count) hitches; built in \(Self.seconds(ContinuousClock.now - buildStart)) s")

        var findings: [Finding] = []
        let findingTimes = (0..<max(1, runs)).map { _ in Self.measure { findings = trace.findings() } }
        // The whole-trace summary is kept after its first call, so asking for it again would time a
        // cache lookup ("findings cost 658023 summary passes"): the baseline asks for all updates
        // but the first, which is counted on every call.
        let afterFirst = TimeRange(start: trace.updates.start[0] + 1, end: trace.metadata.end)
        var counted = 0
        let baselineTimes = (0..<max(1, runs)).map { _ in Self.measure { counted = trace.summary(in: afterFirst, filter: .all).total.count } }

        print("")
        print("                                   wall best  median | thread CPU best  median")
        print("findings (\(findingTimes.count) runs)                 \(Self.row(findingTimes))   (target <= 1 s)")
        print("baseline: summary, counted         \(Self.row(baselineTimes))   (\(counted) updates counted per pass)")
        let ratio = Self.bestAndMedian(findingTimes.map(\.cpu)).1 / Self.bestAndMedian(baselineTimes.map(\.cpu)).1
        print("findings cost \(String(format: "%.1f", ratio)) summary passes (median thread CPU); thread CPU leaves out time other processes took the core")
        print("")
        var counts: [FindingKind: Int] = [:]
        for finding in findings { counts[finding.kind, default: 0] += 1 }
        print("findings: \(findings.count): " + FindingKind.allCases.map { "\($0.rawValue) \(counts[$0] ?? 0)" }.joined(separator: ", "))
        if Self.bestAndMedian(findingTimes.map(\.cpu)).1 > .seconds(1) { print("WARNING: median thread CPU over the 1 s target") }
    }

    private static func measure(_ work: () -> Void) -> (wall: Duration, cpu: Duration) {
        let cpuStart = threadCPUTime()
        let wall = ContinuousClock().measure(work)
        return (wall, threadCPUTime() - cpuStart)
    }

    private static func row(_ times: [(wall: Duration, cpu: Duration)]) -> String {
        let (wallBest, wallMedian) = bestAndMedian(times.map(\.wall))
        let (cpuBest, cpuMedian) = bestAndMedian(times.map(\.cpu))
        return "\(seconds(wallBest)) \(seconds(wallMedian)) s |      \(seconds(cpuBest)) \(seconds(cpuMedian)) s"
    }

    private static func bestAndMedian(_ times: [Duration]) -> (Duration, Duration) {
        let sorted = times.sorted()
        return (sorted[0], sorted[sorted.count / 2])
    }

    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.3f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}

/// CPU time of the calling thread (excludes time spent descheduled), for the benches' figures.
func threadCPUTime() -> Duration {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
}
