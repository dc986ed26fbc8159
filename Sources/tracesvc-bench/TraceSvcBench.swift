import ArgumentParser

/// The benchmarks, kept out of the user's `tracesvc`. Each prints its figures beside a baseline
/// measured in the same run (README, "Benchmarks"). Build with `-c release`.
@main
struct TraceSvcBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracesvc-bench",
        abstract: "Measure tracesvc's readers and queries, each against a baseline measured in the same run.",
        discussion: "Build with -c release for meaningful figures: swift run -c release tracesvc-bench timeline",
        subcommands: [
            BenchNative.self, BenchXCTrace.self, BenchImport.self, BenchTimeline.self, BenchSummary.self, BenchCompare.self, BenchFindings.self, BenchFlameGraph.self,
            BenchAgent.self, BenchNoise.self, BenchRetention.self,
        ]
    )
}
