import ArgumentParser
import Foundation
import TraceFormats
import TraceModel
import TraceSamples

/// Import speed and memory of `xctrace export` XML, against reading the same bytes (same run).
struct BenchXCTrace: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xctrace",
        abstract: "Measure importing a large xctrace export: MB/s and peak RSS, against plain reading.",
        discussion: """
            tracesvc-bench xctrace --mb 500        # generates a synthetic export of about 500 MB first
            tracesvc-bench xctrace --file big.xml  # an export you have
            When python3 and the Python peer (py_baseline.py, gen_xctrace.py in --peer-dir, by default
            ../shared/bench beside the project root) are there, the peer reads the same bytes in the
            same run: the --file given, else a gen_xctrace.py export of --peer-mb MB both import.
            Build with `swift build -c release` for meaningful figures.
            """
    )

    @Option(help: "Size of the synthetic export to generate, in MB (10^6 bytes).")
    var mb: Int = 500

    @Option(help: "Benchmark this export instead of generating one.")
    var file: String?

    @Option(help: "Seed of the synthetic export.")
    var seed: UInt64 = 1

    @Flag(help: "Keep the generated export (its path is printed).")
    var keep = false

    @Flag(help: "Give the generated export's app frames a source file and line, as Instruments 27 writes them.")
    var sources = false

    @Option(help: "Folder with the Python peer (py_baseline.py) and its export generator (gen_xctrace.py); default ../shared/bench beside the project root.")
    var peerDir: String?

    @Flag(help: "Also time the tokenizer alone, and tokenizer plus row reader without the assembler.")
    var stages = false

    @Option(help: "Size of the export both importers read for the peer comparison, in MB, when no --file is given (0 skips the peer).")
    var peerMB = 50

    func run() async throws {
        let url: URL
        if let file {
            url = URL(fileURLWithPath: file)
        } else {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-bench-\(mb)mb-\(seed)\(sources ? "-sources" : "").xml")
            try generate(url)
        }
        defer { if file == nil && !keep { try? FileManager.default.removeItem(at: url) } }
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        let megabytes = Double(size) / 1e6

        // Baseline: only reading the bytes (page cache warm after generating).
        let (readSeconds, xmlBytes) = try measure {
            let source = try ByteSource(url: url)
            var chunk: [UInt8] = []
            var total = 0
            while true {
                chunk.removeAll(keepingCapacity: true)
                guard try source.read(into: &chunk) else { break }
                total += chunk.count
            }
            return total
        }
        resetPeakRSS()
        let rssBefore = residentSet("VmRSS")
        let cpuBefore = cpuSeconds()
        let (importSeconds, trace) = try measure { try XCTraceImporter.importTrace(at: url, displayName: url.lastPathComponent) }
        let importCPU = cpuSeconds() - cpuBefore
        let peak = residentSet("VmHWM")

        func rate(_ seconds: Double) -> String { String(format: "%.1f MB/s", megabytes / seconds) }
        print("export: \(url.lastPathComponent), \(String(format: "%.1f", megabytes)) MB")
        print("read only (baseline):  \(String(format: "%6.2f", readSeconds)) s  \(rate(readSeconds))")
        print("import:                \(String(format: "%6.2f", importSeconds)) s  \(rate(importSeconds))  (\(String(format: "%.1f", importSeconds / readSeconds))x the read time)")
        // The machine is shared: CPU time says what the import costs when it has a core to itself.
        print("import CPU time:       \(String(format: "%6.2f", importCPU)) s  \(rate(importCPU))  (\(String(format: "%.0f", 100 * importCPU / importSeconds))% of a core)")
        print("peak RSS during import: \(peak / 1_000_000) MB = \(String(format: "%.2f", Double(peak) / Double(size)))x the file (\(rssBefore / 1_000_000) MB before)")
        print("trace: \(trace.updates.count) updates, \(trace.updateGroups.count) groups, \(trace.graph.nodes.count) nodes, \(trace.graph.edges.count) edges, \(trace.stateChanges.count) changes, \(trace.cpu.samples.count) samples, \(trace.cpu.stacks.count) stacks")
        printSourceCost(trace)
        if xmlBytes != size {
            // A gzip file: what the import reads is the inflated XML (inflated on the read-ahead thread).
            let xmlMB = Double(xmlBytes) / 1e6
            print("inflated XML: \(String(format: "%.1f", xmlMB)) MB, imported at \(String(format: "%.1f", xmlMB / importSeconds)) MB/s of XML (CPU \(String(format: "%.1f", xmlMB / importCPU)) MB/s)")
        }
        if keep, file == nil { print("kept \(url.path)") }
        if stages {
            // What each stage costs alone: a pipeline over two cores is bounded by its slowest stage.
            let stagesAlone: [(String, () throws -> Int)] = [
                ("tokenizer alone:      ", { try XCTraceStageCosts.tokenize(at: url) }),
                ("tokenizer + rows:     ", { try XCTraceStageCosts.readRows(at: url) }),
            ]
            for (label, body) in stagesAlone {
                let before = cpuSeconds()
                let (seconds, n) = try measure(body)
                let cpu = cpuSeconds() - before
                print("\(label)\(String(format: "%6.2f", seconds)) s  \(rate(seconds)), CPU \(String(format: "%.2f", cpu)) s \(rate(cpu))  (\(n) tokens or rows)")
            }
        }
        if file != nil, xmlBytes == size {
            try comparePeer(onFile: url, megabytes: megabytes, ownSeconds: importSeconds, ownCPU: importCPU)
        } else {
            try comparePeer()
        }
    }

    /// What source locations cost the model, per row of each of two kinds. A source belongs to a
    /// function's frame row (9 bytes: name, binary, app or not), never to a sample: a time-profile
    /// row (a sample: time, thread, weight, stack) refers to a shared stack of frames, so its cost
    /// grows by the sources' side table and interned paths spread over every sample.
    private func printSourceCost(_ trace: Trace) {
        let frames = trace.cpu.frames, stacks = trace.cpu.stacks, samples = trace.cpu.samples
        func bytes<T>(_ array: [T]) -> Int { array.capacity * MemoryLayout<T>.stride }
        let paths = Set(frames.sourcePath)
        let pathBytes = paths.reduce(0) { $0 + MemoryLayout<String>.stride + trace.string($1).utf8.count }
        let sourceBytes = bytes(frames.sourceFrames) + bytes(frames.sourcePath) + bytes(frames.sourceLine) + pathBytes
        let frameBytes = frames.memoryFootprint + pathBytes
        let profileBytes = frameBytes + bytes(stacks.parent) + bytes(stacks.frame)
            + bytes(samples.time) + bytes(samples.thread) + bytes(samples.weight) + bytes(samples.stack)
        func line(_ what: String, rows: Int, total: Int) -> String {
            let without = total - sourceBytes, n = Double(max(rows, 1))
            return "\(what): \(rows) rows, \(String(format: "%.3f", Double(total) / n)) bytes a row, "
                + "\(String(format: "%.3f", Double(without) / n)) without the sources (+\(String(format: "%.3f", 100 * Double(sourceBytes) / Double(max(without, 1))))%)"
        }
        print("sources: \(frames.sourceFrames.count) of \(frames.count) frame rows (functions) have one, in \(paths.count) files: \(sourceBytes) bytes (side table + interned paths)")
        print(line("frame rows (functions)", rows: frames.count, total: frameBytes))
        print(line("time-profile rows (sample + shared stacks and frames)", rows: samples.count, total: profileBytes))
        print("whole model: \(String(format: "%.1f", Double(trace.memoryFootprint) / 1e6)) MB (capacity × stride), sources \(String(format: "%.4f", 100 * Double(sourceBytes) / Double(max(trace.memoryFootprint, 1))))% of it")
    }

    /// The peer's folder: --peer-dir, else ../shared/bench beside the project root (the first
    /// folder holding Package.swift above this executable, or above the working directory).
    private func peerFolder() -> URL {
        if let peerDir { return URL(fileURLWithPath: peerDir) }
        let starts = [URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath(), URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        for start in starts {
            var folder = start.standardizedFileURL
            while folder.path != "/" {
                if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                    return folder.deletingLastPathComponent().appendingPathComponent("shared/bench")
                }
                folder = folder.deletingLastPathComponent()
            }
        }
        return URL(fileURLWithPath: "../shared/bench")
    }

    private func python() -> String? {
        ["/usr/bin/python3", "/usr/local/bin/python3"].first(where: FileManager.default.isExecutableFile) ?? which("python3")
    }

    /// The Python peer on the --file just imported (a plain XML export): speeds and ratio, same run.
    private func comparePeer(onFile url: URL, megabytes: Double, ownSeconds: Double, ownCPU: Double) throws {
        let peer = peerFolder().appendingPathComponent("py_baseline.py")
        guard peerMB > 0 else { return }
        guard let python = python(), FileManager.default.fileExists(atPath: peer.path) else {
            print("\npython peer: skipped (needs python3 and \(peer.path))")
            return
        }
        let peerSeconds: Double, peerCPU: Double, output: String
        do {
            (peerSeconds, peerCPU, output) = try runChild(python, [peer.path, url.path])
        } catch {
            // Not a gen_xctrace.py-shaped export (a tar bundle, other tables): the import's figures stand alone.
            print("\npython peer: could not read \(url.lastPathComponent): \(error)")
            return
        }
        print("\npython peer (\(peer.path), ElementTree iterparse) on the same file:")
        print("  tracesvc import: \(String(format: "%6.2f", ownSeconds)) s wall \(String(format: "%7.1f", megabytes / ownSeconds)) MB/s, CPU \(String(format: "%6.2f", ownCPU)) s \(String(format: "%7.1f", megabytes / ownCPU)) MB/s")
        print("  python peer:     \(String(format: "%6.2f", peerSeconds)) s wall \(String(format: "%7.1f", megabytes / peerSeconds)) MB/s, CPU \(String(format: "%6.2f", peerCPU)) s \(String(format: "%7.1f", megabytes / peerCPU)) MB/s")
        print("  tracesvc import is \(String(format: "%.1f", peerSeconds / ownSeconds))x the peer by wall time, \(String(format: "%.1f", peerCPU / ownCPU))x by CPU time; peer printed: \(output.trimmingCharacters(in: .whitespacesAndNewlines))")
    }

    /// The Python iterparse reader public xctrace scripts use, on the same bytes as this importer.
    private func comparePeer() throws {
        let folder = peerFolder()
        let peer = folder.appendingPathComponent("py_baseline.py"), generator = folder.appendingPathComponent("gen_xctrace.py")
        guard peerMB > 0 else { return }
        guard let python = python(), FileManager.default.fileExists(atPath: peer.path), FileManager.default.fileExists(atPath: generator.path)
        else {
            print("\npython peer: skipped (needs python3 and \(peer.path), \(generator.path))")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-peer-\(peerMB)mb")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // gen_xctrace.py writes about 1.24 KB per update (both tables).
        _ = try runChild(python, [generator.path, directory.path, "--updates", String(peerMB * 1_000_000 / 1240), "--seed", String(seed)])
        let export = directory.appendingPathComponent("all.xml")
        let size = Double((try FileManager.default.attributesOfItem(atPath: export.path)[.size] as? Int) ?? 0) / 1e6
        let cpuBefore = cpuSeconds()
        let (ownSeconds, _) = try measure { try XCTraceImporter.importTrace(at: export, displayName: "all.xml") }
        let ownCPU = cpuSeconds() - cpuBefore
        let (peerSeconds, peerCPU, output) = try runChild(python, [peer.path, export.path])
        print("\npython peer (\(peer.lastPathComponent), ElementTree iterparse) on a gen_xctrace.py export of \(String(format: "%.1f", size)) MB:")
        print("  tracesvc import: \(String(format: "%6.2f", ownSeconds)) s wall \(String(format: "%7.1f", size / ownSeconds)) MB/s, CPU \(String(format: "%6.2f", ownCPU)) s \(String(format: "%7.1f", size / ownCPU)) MB/s")
        print("  python peer:     \(String(format: "%6.2f", peerSeconds)) s wall \(String(format: "%7.1f", size / peerSeconds)) MB/s, CPU \(String(format: "%6.2f", peerCPU)) s \(String(format: "%7.1f", size / peerCPU)) MB/s")
        print("  tracesvc import is \(String(format: "%.1f", peerSeconds / ownSeconds))x the peer by wall time, \(String(format: "%.1f", peerCPU / ownCPU))x by CPU time; peer printed: \(output.trimmingCharacters(in: .whitespacesAndNewlines))")
    }

    private func which(_ command: String) -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return paths.map { "\($0)/\(command)" }.first(where: FileManager.default.isExecutableFile)
    }

    /// Runs a child process to its end: wall seconds, its CPU seconds, its standard output.
    private func runChild(_ executable: String, _ arguments: [String]) throws -> (Double, Double, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        let before = childCPUSeconds()
        let (seconds, output) = try measure {
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
        guard process.terminationStatus == 0 else {
            throw ValidationError("\(URL(fileURLWithPath: arguments[0]).lastPathComponent) failed (exit \(process.terminationStatus))")
        }
        return (seconds, childCPUSeconds() - before, output)
    }

    /// CPU time of the children this process has waited for.
    private func childCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(truncatingIfNeeded: RUSAGE_CHILDREN.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    private func generate(_ url: URL) throws {
        // Calibrate the size of one update (with its edges, samples...) on a small export.
        var sampleBytes = 0
        let calibration = 20_000
        try XCTraceSyntheticExport(updates: calibration, seed: seed, sources: sources).write { sampleBytes += $0.count }
        let updates = max(1, Int(Double(mb) * 1e6 / (Double(sampleBytes) / Double(calibration))))
        let handle = try FileHandle.creatingForWriting(at: url)
        defer { try? handle.close() }
        let (seconds, _) = try measure {
            try XCTraceSyntheticExport(updates: updates, seed: seed, sources: sources).write { try handle.write(contentsOf: Data($0)) }
        }
        print("generated \(updates) updates in \(String(format: "%.1f", seconds)) s")
    }

    private func measure<T>(_ body: () throws -> T) throws -> (Double, T) {
        let clock = ContinuousClock()
        var result: T?
        let duration = try clock.measure { result = try body() }
        return (Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18, result!)
    }

    /// CPU time of this process (all threads).
    private func cpuSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Linux: "5" in clear_refs resets the peak RSS, so VmHWM then covers only the import.
    private func resetPeakRSS() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// A /proc/self/status figure in bytes (0 where there is no /proc).
    private func residentSet(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return kilobytes * 1024
        }
        return 0
    }
}
