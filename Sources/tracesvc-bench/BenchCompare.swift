import ArgumentParser
import Foundation
import TraceFormats
import TraceModel
import TraceSamples

/// Time to compare two big synthetic traces, against the summaries of both measured in the same run.
struct BenchCompare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Measure comparing two synthetic traces, cold and with their sides kept (target <= 300 ms for 1M updates each), against two summary queries.",
        discussion: "Build with -c release for meaningful figures: swift build -c release --product tracesvc-bench"
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
        var json = Data()
        // The server finds each trace's findings once, when it loads it, and hands them to the side.
        let (findingsA, findingsB) = (a.findings(), b.findings())
        // As the server answers /api/compare: both sides at once (each from its trace's cache of
        // the whole-trace side), then the tables and their JSON.
        func serverCompare(_ cacheA: ComparisonSideCache, _ cacheB: ComparisonSideCache) async throws {
            async let sideA = Task.detached { cacheA.side(of: a, findings: findingsA) }.value
            async let sideB = Task.detached { cacheB.side(of: b, findings: findingsB) }.value
            comparison = TraceComparison(await sideA, await sideB)
            json = try JSONEncoder().encode(comparison!)
        }
        let cold = try await measure { try await serverCompare(ComparisonSideCache(), ComparisonSideCache()) }
        let cacheA = ComparisonSideCache(), cacheB = ComparisonSideCache()
        try await serverCompare(cacheA, cacheB)
        let warm = try await measure { try await serverCompare(cacheA, cacheB) }
        let serial = await measure { comparison = TraceComparison(a.comparisonSide(findings: findingsA), b.comparisonSide(findings: findingsB)) }
        let oneSide = await measure { _ = a.comparisonSide(findings: findingsA) }
        // A whole-trace summary is kept after its first call (it would time a cache lookup): the
        // baseline asks for all but the first update, which is counted on every call.
        let (afterFirstA, afterFirstB) = (TimeRange(start: a.updates.start[0] + 1, end: a.metadata.end),
                                          TimeRange(start: b.updates.start[0] + 1, end: b.metadata.end))
        let baseline = await measure {
            _ = a.summary(in: afterFirstA, filter: .all)
            _ = b.summary(in: afterFirstB, filter: .all)
        }
        print("result: \(comparison!.views.count) view rows, \(comparison!.causes.count) of \(comparison!.causesTotal) cause rows, "
              + "\(comparison!.functions.count) functions, \(json.count / 1000) KB of JSON")
        print("")
        print("                                                 wall best   wall median   CPU median   (\(runs) runs)")
        for (name, times) in [
            ("compare, cold (the server: sides in parallel)", cold), ("compare, warm (both sides kept)", warm),
            ("compare, cold, one thread, no JSON", serial), ("  one side alone", oneSide), ("baseline: summary of A and of B (counted)", baseline),
        ] {
            print(name.padding(toLength: 47, withPad: " ", startingAt: 0) + "\(ms(times.best).leftPadded(11))\(ms(times.median).leftPadded(14))"
                  + "\(ms(times.cpuMedian).leftPadded(13))")
        }
        let target: Duration = .milliseconds(300)
        print("")
        print("times in ms; CPU = the process's CPU time (all threads): on shared, busy cores wall time includes waiting for one")
        for (name, times) in [("cold", cold), ("warm", warm)] {
            print("compare \(name) (wall median) = \(String(format: "%.2f", seconds(times.median) / seconds(baseline.median)))× the two summaries; "
                  + "target <= 300 ms: wall \(times.median <= target ? "met" : "NOT met"), CPU \(times.cpuMedian <= target ? "met" : "NOT met")")
        }
    }

    private struct Timing {
        var best: Duration
        var median: Duration
        var cpuMedian: Duration
    }

    private func measure(_ body: () async throws -> Void) async rethrows -> Timing {
        var times: [Duration] = [], cpu: [Duration] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now, cpuStart = processCPUTime()
            try await body()
            times.append(ContinuousClock.now - start)
            cpu.append(processCPUTime() - cpuStart)
        }
        times.sort()
        cpu.sort()
        return Timing(best: times[0], median: times[times.count / 2], cpuMedian: cpu[cpu.count / 2])
    }

    /// CPU time of every thread of this process (the parallel sides run on other threads).
    private func processCPUTime() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func ms(_ duration: Duration) -> String { String(format: "%.1f", seconds(duration) * 1e3) }
}
