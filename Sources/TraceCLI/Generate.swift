import ArgumentParser
import Foundation
import TraceFormats
import TraceSamples

struct Generate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the sample traces, or a synthetic trace of any size, in the native format.",
        discussion: """
            tracesvc generate --all-samples --output SampleTraces
            tracesvc generate --sample landmarks-favorites-slow --output /tmp
            tracesvc generate --updates 1000000 --seed 42 --output /tmp/big.json.gz
            tracesvc generate --scenario pantry-slow --seed 2 \\
              --output /tmp/pantry-slow-2.json
            tracesvc generate --cpu-samples 1000000 --stack-depth 120 \\
              --output /tmp/profile.json
            """
    )

    @Option(help: "A sample to write into the --output directory: \(SampleTraces.names.joined(separator: ", ")).")
    var sample: String?

    @Flag(help: "Write every sample into the --output directory.")
    var allSamples = false

    @Option(help: "Write a synthetic trace with this many updates to the --output file (.json, or .json.gz to compress).")
    var updates: Int?

    @Option(help: "A recording of an app other than Landmarks, for tests of comparisons: \(PantryTraces.scenarios.joined(separator: ", ")) (--seed: which re-recording).")
    var scenario: String?

    @Option(help: "Write a synthetic CPU profile with this many samples to the --output file (the CPU benchmarks' profile).")
    var cpuSamples: Int?

    @Option(help: "With --cpu-samples: the typical stack depth.")
    var stackDepth = 120

    @Option(help: "Seed of the synthetic trace or scenario: the same seed gives the same file.")
    var seed: UInt64 = 42

    @Option(help: "Directory for samples; file for --updates.")
    var output: String

    func validate() throws {
        let modes = [sample != nil, allSamples, updates != nil, scenario != nil, cpuSamples != nil].filter { $0 }.count
        guard modes == 1 else { throw ValidationError("Give exactly one of --sample NAME, --all-samples, --updates N, --scenario NAME or --cpu-samples N.") }
        if let scenario, !PantryTraces.scenarios.contains(scenario) {
            throw ValidationError("Unknown scenario \"\(scenario)\". Scenarios: \(PantryTraces.scenarios.joined(separator: ", ")).")
        }
        if let cpuSamples, cpuSamples < 1 { throw ValidationError("--cpu-samples must be at least 1.") }
        guard (1...1000).contains(stackDepth) else { throw ValidationError("--stack-depth must be 1...1000.") }
        if let sample, !SampleTraces.names.contains(sample) {
            throw ValidationError("Unknown sample \"\(sample)\". Samples: \(SampleTraces.names.joined(separator: ", ")).")
        }
        if let updates, updates < 1 { throw ValidationError("--updates must be at least 1.") }
    }

    func run() async throws {
        let outputURL = URL(fileURLWithPath: output)
        if let cpuSamples {
            let trace = SyntheticProfiles.trace(samples: cpuSamples, depth: stackDepth, seed: seed)
            try NativeTraceWriter.write(trace, to: outputURL)
            CommandContext.print("wrote \(outputURL.path): \(trace.cpu.samples.count) samples, \(trace.cpu.stacks.count) stack rows")
            return
        }
        if updates != nil || scenario != nil {
            let trace = scenario.map { PantryTraces.trace(scenario: $0, run: seed) } ?? SyntheticTraces.trace(updates: updates!, seed: seed)
            try NativeTraceWriter.write(trace, to: outputURL)
            let size = (try? FileManager.default.attributesOfItem(atPath: outputURL.path)[.size] as? Int) ?? 0
            CommandContext.print("wrote \(outputURL.path): \(trace.updates.count) updates, \(trace.graph.edges.count) edges, \(size) bytes")
            return
        }
        try FileManager.default.createDirectory(at: outputURL, withIntermediateDirectories: true)
        for name in allSamples ? SampleTraces.names : [sample!] {
            let url = outputURL.appendingPathComponent(SampleTraces.fileName(of: name))
            try Data(SampleTraces.fileContents(of: name)).write(to: url)
            CommandContext.print("wrote \(url.path)")
        }
    }
}
