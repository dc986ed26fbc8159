import ArgumentParser
import Foundation
import TraceFormats
import TraceModel

/// Time to compute the findings of a big synthetic trace, against one summary pass over the same
/// updates (the cheapest query that reads every update) measured in the same run.
struct BenchFindings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-findings",
        abstract: "Measure findings on a synthetic trace (target <= 1 s for 1M updates), against a whole-trace summary baseline.",
        discussion: "Build with -c release for meaningful figures: swift build -c release --product tracesvc"
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
        let findingTimes = (0..<max(1, runs)).map { _ in ContinuousClock().measure { findings = trace.findings() } }
        let baselineTimes = (0..<max(1, runs)).map { _ in ContinuousClock().measure { _ = trace.summary(in: nil, filter: .all) } }

        let (best, median) = Self.bestAndMedian(findingTimes)
        let (baseBest, baseMedian) = Self.bestAndMedian(baselineTimes)
        print("")
        print("findings (\(findingTimes.count) runs):            best \(Self.seconds(best)) s, median \(Self.seconds(median)) s (target <= 1 s)")
        print("baseline, whole-trace summary (\(baselineTimes.count) runs): best \(Self.seconds(baseBest)) s, median \(Self.seconds(baseMedian)) s")
        print("findings cost \(String(format: "%.1f", median / baseMedian)) summary passes (median / median)")
        print("")
        var counts: [FindingKind: Int] = [:]
        for finding in findings { counts[finding.kind, default: 0] += 1 }
        print("findings: \(findings.count): " + FindingKind.allCases.map { "\($0.rawValue) \(counts[$0] ?? 0)" }.joined(separator: ", "))
        if median > .seconds(1) { print("WARNING: median over the 1 s target") }
    }

    private static func bestAndMedian(_ times: [Duration]) -> (Duration, Duration) {
        let sorted = times.sorted()
        return (sorted[0], sorted[sorted.count / 2])
    }

    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.3f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
