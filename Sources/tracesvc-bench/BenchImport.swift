import ArgumentParser
import Foundation
import TraceFormats

/// The reader alone on a file, as the server's upload runs it (any format, chosen by content):
/// the baseline `scripts/bench-upload.py` sets the upload over HTTP against, in the same run.
struct BenchImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Time reading one trace file (native or xctrace, plain or gzip) into the model: wall and process CPU per run, median.",
        discussion: "Prints one JSON line last: {\"wallSeconds\", \"cpuSeconds\", \"bytes\", \"updates\"} (medians of the runs)."
    )

    @Option(help: "The trace file.")
    var file: String

    @Option(help: "Timed runs (the median is printed).")
    var runs = 3

    func run() throws {
        let url = URL(fileURLWithPath: file)
        let bytes = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        var walls: [Double] = [], cpus: [Double] = []
        var updates = 0
        for run in 1...max(1, runs) {
            let cpuBefore = Self.cpuSeconds()
            let started = ContinuousClock.now
            let trace = try TraceImporter.importTrace(at: url, displayName: url.lastPathComponent)
            let wall = ContinuousClock.now - started
            let cpu = Self.cpuSeconds() - cpuBefore
            let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
            walls.append(seconds)
            cpus.append(cpu)
            updates = trace.updates.count
            print(String(format: "run %d: %.3f s wall, %.3f s CPU (%.0f MB/s)", run, seconds, cpu, Double(bytes) / 1e6 / seconds))
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        print(String(format: "{\"wallSeconds\": %.4f, \"cpuSeconds\": %.4f, \"bytes\": %d, \"updates\": %d}", median(walls), median(cpus), bytes, updates))
    }

    /// CPU time of the whole process (the xctrace import reads on a second thread).
    static func cpuSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
