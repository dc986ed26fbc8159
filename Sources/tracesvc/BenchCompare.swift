import ArgumentParser
import Foundation
import TraceFormats
import TraceModel

/// Time to compare two big synthetic traces, against the summaries of both measured in the same run.
struct BenchCompare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-compare",
        abstract: "Measure comparing two synthetic traces (target <= 300 ms for 1M updates each), against two summary queries.",
        discussion: "Build with -c release for meaningful figures: swift build -c release --product tracesvc"
    )

    @Option(help: "Updates in each synthetic trace.")
    var updates = 1_000_000

    @Option(help: "Seeds of trace A and trace B.")
    var seeds: [UInt64] = [42, 43]

    @Option(help: "Timed runs of each measurement (best and median are reported).")
    var runs = 5

    func validate() throws {
        guard seeds.count == 2 else { throw ValidationError("Give two seeds: --seeds 42 --seeds 43.") }
        guard updates >= 1, runs >= 1 else { throw ValidationError("--updates and --runs must be at least 1.") }
    }

    func run() async throws {
        let buildStart = ContinuousClock.now
        let a = SyntheticTraces.trace(updates: updates, seed: seeds[0]), b = SyntheticTraces.trace(updates: updates, seed: seeds[1])
        print("traces: 2 × \(a.updates.count) updates, \(a.graph.edges.count) + \(b.graph.edges.count) edges, "
              + "\(a.cpu.samples.count) + \(b.cpu.samples.count) CPU samples; generated in \(ms(ContinuousClock.now - buildStart)) ms")

        var comparison: TraceComparison?
        // As the server answers /api/compare: both sides at once, then the tables.
        let parallel = await measure(threadCPU: false) {
            async let sideA = Task.detached { a.comparisonSide() }.value
            async let sideB = Task.detached { b.comparisonSide() }.value
            comparison = TraceComparison(await sideA, await sideB)
        }
        let serial = await measure { comparison = TraceComparison(before: a, after: b) }
        let oneSide = await measure { _ = a.comparisonSide() }
        let baseline = await measure {
            _ = a.summary(in: nil, filter: .all)
            _ = b.summary(in: nil, filter: .all)
        }
        let json = try JSONEncoder().encode(comparison!)
        print("result: \(comparison!.views.count) view rows, \(comparison!.causes.count) of \(comparison!.causesTotal) cause rows, "
              + "\(comparison!.functions.count) functions, \(json.count / 1000) KB of JSON")
        print("")
        print("                                          wall best   wall median   thread CPU median   (\(runs) runs)")
        for (name, times) in [
            ("compare, sides in parallel (the server)", parallel), ("compare, one thread", serial), ("  one side alone", oneSide),
            ("baseline: summary of A and of B", baseline),
        ] {
            print(name.padding(toLength: 40, withPad: " ", startingAt: 0) + "\(ms(times.best).leftPadded(11))\(ms(times.median).leftPadded(14))"
                  + "\((times.cpuMedian.map(ms) ?? "–").leftPadded(20))")
        }
        let target: Duration = .milliseconds(300)
        print("")
        print("times in ms; thread CPU excludes time preempted by other processes (on 2 busy cores the wall times are inflated)")
        print("compare (server, wall median) = \(String(format: "%.1f", seconds(parallel.median) / seconds(baseline.median)))× the two summaries; "
              + "target <= 300 ms: \(parallel.median <= target ? "met" : "NOT met"); one side's CPU time \(ms(oneSide.cpuMedian ?? .zero)) ms")
    }

    private struct Timing {
        var best: Duration
        var median: Duration
        var cpuMedian: Duration?
    }

    /// `threadCPU: false` when the work runs on other threads (the calling thread's CPU says nothing).
    private func measure(threadCPU: Bool = true, _ body: () async -> Void) async -> Timing {
        var times: [Duration] = [], cpu: [Duration] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now, cpuStart = threadCPUTime()
            await body()
            times.append(ContinuousClock.now - start)
            cpu.append(threadCPUTime() - cpuStart)
        }
        times.sort()
        cpu.sort()
        return Timing(best: times[0], median: times[times.count / 2], cpuMedian: threadCPU ? cpu[cpu.count / 2] : nil)
    }

    /// CPU time of the calling thread.
    private func threadCPUTime() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func ms(_ duration: Duration) -> String { String(format: "%.1f", seconds(duration) * 1e3) }
}
