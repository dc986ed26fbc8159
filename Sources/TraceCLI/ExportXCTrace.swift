import ArgumentParser
import Foundation
import TraceFormats
import TraceSamples

struct ExportXCTrace: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-xctrace",
        abstract: "Write a trace as an `xctrace export` (what Instruments exports), or a large synthetic one.",
        discussion: """
            tracesvc export-xctrace SampleTraces/landmarks-favorites-slow.json.gz \\
              /tmp/favorites.tar
            tracesvc export-xctrace run.json /tmp/run.xml
            tracesvc export-xctrace --synthetic-updates 300000 --seed 7 /tmp/big.xml
            OUT ending in .tar gets toc.xml plus one file per table (what scripts/export-instruments-trace.sh \
            packs, uncompressed); anything else gets the tables as concatenated XML documents.
            """
    )

    @Argument(help: "IN OUT, or only OUT with --synthetic-updates.")
    var paths: [String]

    @Option(help: "Write a synthetic export with this many SwiftUI updates instead of converting IN.")
    var syntheticUpdates: Int?

    @Option(help: "Seed of the synthetic export: the same seed gives the same file.")
    var seed: UInt64 = 1

    func validate() throws {
        let expected = syntheticUpdates == nil ? 2 : 1
        guard paths.count == expected else {
            throw ValidationError(syntheticUpdates == nil ? "Give IN and OUT." : "With --synthetic-updates give only OUT.")
        }
        if let syntheticUpdates, syntheticUpdates < 1 { throw ValidationError("--synthetic-updates must be at least 1.") }
    }

    func run() async throws {
        let output = URL(fileURLWithPath: paths.last!)
        let started = ContinuousClock.now
        let handle = try FileHandle.creatingForWriting(at: output)
        defer { try? handle.close() }
        var summary: String
        if let syntheticUpdates {
            try XCTraceSyntheticExport(updates: syntheticUpdates, seed: seed).write { try handle.write(contentsOf: Data($0)) }
            summary = "\(syntheticUpdates) synthetic updates"
        } else {
            let input = URL(fileURLWithPath: paths[0])
            let trace = try TraceImporter.importTrace(at: input, displayName: input.lastPathComponent)
            let layout: XCTraceExporter.Layout = output.pathExtension == "tar" ? .tarBundle : .concatenatedXML
            try XCTraceExporter.export(trace, layout: layout) { try handle.write(contentsOf: Data($0)) }
            summary = "\(trace.updates.count) updates, \(trace.graph.edges.count) edges, \(trace.cpu.samples.count) samples"
        }
        try handle.synchronize()
        let elapsed = (ContinuousClock.now - started).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        let size = (try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) ?? 0
        CommandContext.print("wrote \(output.path): \(summary), \(size) bytes in \(String(format: "%.2f", seconds)) s")
    }
}
