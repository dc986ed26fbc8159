import ArgumentParser
import Foundation
import TraceFormats
import TraceModel
import TraceSamples

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct BenchNative: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "native",
        abstract: "Measure the native reader: ingest speed and memory per update, against Foundation's JSONSerialization.",
        discussion: "Run a release build for meaningful figures: swift run -c release tracesvc-bench native"
    )

    @Option(help: "Updates in the generated trace.")
    var updates = 1_000_000

    @Option(help: "Timed runs of our reader (best and median are reported).")
    var runs = 5

    @Option(help: "Seed of the generated trace.")
    var seed: UInt64 = 42

    @Flag(help: "Skip the JSONSerialization baseline (it needs several GB of memory for 1M updates).")
    var noBaseline = false

    @Flag(help: "Also time reading the same trace gzip-compressed (.json.gz).")
    var gzip = false

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("synthetic.json")

        let clock = ContinuousClock()
        var generated: Trace?
        let generation = clock.measure { generated = SyntheticTraces.trace(updates: updates, seed: seed) }
        let writing = try clock.measure { try NativeTraceWriter.write(generated!, to: url) }
        let edges = generated!.graph.edges.count
        generated = nil
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
        let megabytes = Double(size) / 1e6
        print("trace: \(updates) updates, \(edges) edges (seed \(seed)); generated in \(format(generation)), written in \(format(writing))")
        print("file:  \(String(format: "%.1f", megabytes)) MB (\(size / updates) bytes per update)")

        var times: [Double] = []
        var footprint: [(part: String, bytes: Int)] = []
        var traceCounts = (updates: 0, nodes: 0, edges: 0, samples: 0)
        for _ in 0..<max(runs, 1) {
            var trace: Trace?
            let elapsed = try clock.measure { trace = try NativeTraceReader.read(at: url, displayName: "synthetic.json") }
            times.append(seconds(elapsed))
            footprint = trace!.memoryFootprintByPart
            traceCounts = (trace!.updates.count, trace!.graph.nodes.count, trace!.graph.edges.count, trace!.cpu.samples.count)
        }
        let peakRSS = peakResidentBytes()
        let sorted = times.sorted()
        let best = sorted[0]
        let median = sorted[sorted.count / 2]
        print("")
        print("our reader (\(times.count) runs): best \(String(format: "%.3f", best)) s, median \(String(format: "%.3f", median)) s")
        print("  ingest: \(String(format: "%.0f", megabytes / best)) MB/s best, \(String(format: "%.0f", megabytes / median)) MB/s median")
        print("  updates: \(String(format: "%.2f", Double(traceCounts.updates) / best / 1e6)) M/s best, \(String(format: "%.2f", Double(traceCounts.updates) / median / 1e6)) M/s median")
        print("  peak resident memory of the process so far: \(peakRSS / 1_000_000) MB")

        let bytes = Dictionary(uniqueKeysWithValues: footprint.map { ($0.part, $0.bytes) })
        let total = footprint.reduce(0) { $0 + $1.bytes }
        let perUpdate = { (parts: [String]) in Double(parts.reduce(0) { $0 + (bytes[$1] ?? 0) }) / Double(traceCounts.updates) }
        print("")
        print("memory (Trace.memoryFootprint, capacity × stride): \(total / 1_000_000) MB in total")
        for (part, count) in footprint {
            print("  \(part.padding(toLength: 18, withPad: " ", startingAt: 0)) \(String(format: "%9.1f", Double(count) / 1e6)) MB")
        }
        let updateParts = ["updates", "update indexes", "update groups"]
        let graphParts = ["graph nodes", "graph edges", "graph adjacency"]
        print("  updates incl. indexes and groups: \(String(format: "%.1f", perUpdate(updateParts))) bytes per update (target <= 100)")
        print("  cause graph: \(String(format: "%.1f", Double(graphParts.reduce(0) { $0 + (bytes[$1] ?? 0) }) / Double(max(traceCounts.edges, 1)))) bytes per edge"
            + " (\(traceCounts.nodes) nodes, \(traceCounts.edges) edges incl. adjacency), \(String(format: "%.1f", perUpdate(graphParts))) bytes per update")
        print("  everything: \(String(format: "%.1f", Double(total) / Double(traceCounts.updates))) bytes per update")

        if gzip {
            let gzURL = directory.appendingPathComponent("synthetic.json.gz")
            try NativeTraceWriter.write(try NativeTraceReader.read(at: url, displayName: "synthetic.json"), to: gzURL)
            let gzSize = try FileManager.default.attributesOfItem(atPath: gzURL.path)[.size] as? Int ?? 0
            let elapsed = seconds(try clock.measure { _ = try NativeTraceReader.read(at: gzURL, displayName: "synthetic.json.gz") })
            print("")
            print("gzip: \(String(format: "%.1f", Double(gzSize) / 1e6)) MB compressed, read in \(String(format: "%.3f", elapsed)) s: "
                + "\(String(format: "%.0f", megabytes / elapsed)) MB/s of JSON, \(String(format: "%.0f", Double(gzSize) / 1e6 / elapsed)) MB/s of file")
        }

        guard !noBaseline else { return }
        print("")
        var baseline = 0.0
        try autoreleasepool {
            let elapsed = try clock.measure {
                let data = try Data(contentsOf: url)
                _ = try JSONSerialization.jsonObject(with: data)
            }
            baseline = seconds(elapsed)
        }
        print("baseline: Foundation JSONSerialization (Data + jsonObject, no model built): \(String(format: "%.3f", baseline)) s, "
            + "\(String(format: "%.0f", megabytes / baseline)) MB/s")
        print("ratio: our reader (median) is \(String(format: "%.1f", baseline / median))x faster than the baseline (target >= 3x)")
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func format(_ duration: Duration) -> String { String(format: "%.2f s", seconds(duration)) }

    private func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
    }
}

#if !canImport(ObjectiveC)
/// Linux has no autorelease pools; the closure just runs.
private func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result { try body() }
#endif
