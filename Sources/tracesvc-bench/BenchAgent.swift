import ArgumentParser
import Foundation
import Logging
import MCP
import TraceAgent
import TraceFormats
import TraceSamples
import TraceServer

/// Every agent tool on a big synthetic trace already loaded, in process as `POST /mcp` runs them,
/// against the cheapest API request (a trace's metadata) measured in the same run.
struct BenchAgent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Measure the MCP tools (docs/agents.md) on a loaded synthetic trace (target: each within 200 ms p99 at 1M updates).",
        discussion: "Build with -c release for meaningful figures: swift build -c release --product tracesvc-bench"
    )

    @Option(help: "Updates in each synthetic trace (A and B of compare).")
    var updates = 1_000_000

    @Option(help: "Timed calls of each tool (p50, p99 and max are reported).")
    var runs = 50

    func run() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-bench-agent-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        let samples = root.appendingPathComponent("samples")
        try FileManager.default.createDirectory(at: samples, withIntermediateDirectories: true)
        for (name, seed) in [("synthetic-a", UInt64(42)), ("synthetic-b", UInt64(43))] {
            try NativeTraceWriter.write(SyntheticTraces.trace(updates: updates, seed: seed), to: samples.appendingPathComponent("\(name).json"))
        }
        var options = ServerOptions(dataDirectory: root.appendingPathComponent("data"))
        options.samplesDirectory = samples
        options.memoryBudgetBytes = 16 << 30
        let store = try await TraceStore.open(
            .init(dataDirectory: options.dataDirectory, samplesDirectory: samples, memoryBudgetBytes: options.memoryBudgetBytes), logger: Logger(label: "bench")
        )
        let api = inProcessTraceAPI(router: buildRouter(store: store, options: options))
        let context = AgentContext(api: api, linkBase: "http://127.0.0.1:8080", writesAllowed: false)
        let list = try JSONSerialization.jsonObject(with: try await api.get("/api/traces").body) as? [String: Any]
        var ids: [String: String] = [:]
        for trace in list?["traces"] as? [[String: Any]] ?? [] { ids[trace["name"] as? String ?? ""] = trace["id"] as? String }
        guard let a = ids["synthetic-a"], let b = ids["synthetic-b"] else { throw ValidationError("the synthetic traces did not load") }

        // Load both traces (and compare's whole-trace sides) before timing: the target is of a loaded trace.
        let loadStart = ContinuousClock.now
        _ = await AgentServer.call("compare", arguments: ["a": .string(a), "b": .string(b)], context: context)
        print("loaded A and B (\(updates) updates each) and compared once in \(Self.ms(ContinuousClock.now - loadStart)) ms")
        let summary = try JSONSerialization.jsonObject(with: try await api.get("/api/traces/\(a)/summary").body) as? [String: Any]
        let module = ((summary?["processes"] as? [[String: Any]])?.first?["modules"] as? [[String: Any]])?.first
        let view = (module?["views"] as? [[String: Any]])?.first?["name"] as? String ?? ""
        let findings = try JSONSerialization.jsonObject(with: try await api.get("/api/traces/\(a)/findings").body) as? [String: Any]
        let update = (((findings?["findings"] as? [[String: Any]])?.first?["evidence"] as? [String: Any])?["representativeUpdate"] as? Int) ?? 0
        print("view: \(view), update: \(update)")

        let calls: [(String, [String: Value])] = [
            ("list_traces", [:]),
            ("trace_overview", ["trace": .string(a)]),
            ("findings", ["trace": .string(a)]),
            ("view_updates", ["trace": .string(a), "view": .string(view)]),
            ("why_update", ["trace": .string(a), "update": .int(update)]),
            ("cpu_hotspots", ["trace": .string(a), "update": .int(update)]),
            ("cpu_hotspots", ["trace": .string(a), "start": 1_000_000_000, "end": 1_100_000_000]),
            ("cpu_hotspots", ["trace": .string(a), "view": .string(view)]),
            ("compare", ["a": .string(a), "b": .string(b)]),
            ("history", ["tags": ["scenario:synthetic"]]),
        ]
        let baseline = try await Self.time(runs) { _ = try await api.get("/api/traces/\(a)") }
        print("")
        print("tool (\(runs) calls each, wall ms)            p50      p99      max   bytes   p99 / baseline")
        print(Self.row("baseline: GET /api/traces/{id}", baseline, bytes: nil, baseline: baseline))
        var over: [String] = []
        for (tool, arguments) in calls {
            let label = tool + (arguments["view"] != nil && tool == "cpu_hotspots" ? " (view)" : arguments["update"] != nil && tool == "cpu_hotspots" ? " (update)" : arguments["start"] != nil ? " (range)" : "")
            var bytes = 0
            var failed: String?
            let times = try await Self.time(runs) {
                let result = await AgentServer.call(tool, arguments: arguments, context: context)
                if case .text(let text, _, _)? = result.content.first {
                    bytes = text.utf8.count
                    if result.isError == true { failed = text }
                }
            }
            print(Self.row(label, times, bytes: bytes, baseline: baseline))
            if let failed { print("  ERROR: \(failed.prefix(300))") }
            if Self.percentile(times, 0.99) > .milliseconds(200) { over.append(label) }
        }
        print("")
        print(over.isEmpty ? "every tool within 200 ms p99" : "OVER 200 ms p99: \(over.joined(separator: ", "))")
        print("history reads only the catalog (no trace is loaded); add_note (a catalog write) is not timed")
    }

    private static func time(_ runs: Int, _ work: () async throws -> Void) async throws -> [Duration] {
        var times: [Duration] = []
        for _ in 0..<max(1, runs) {
            let start = ContinuousClock.now
            try await work()
            times.append(ContinuousClock.now - start)
        }
        return times.sorted()
    }

    private static func percentile(_ sorted: [Duration], _ p: Double) -> Duration {
        sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    private static func ms(_ duration: Duration) -> String {
        String(format: "%.1f", Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15)
    }

    private static func row(_ label: String, _ times: [Duration], bytes: Int?, baseline: [Duration]) -> String {
        let ratio = Double(percentile(times, 0.99).components.attoseconds + percentile(times, 0.99).components.seconds * 1_000_000_000_000_000_000)
            / Double(max(1, percentile(baseline, 0.99).components.attoseconds + percentile(baseline, 0.99).components.seconds * 1_000_000_000_000_000_000))
        let padded = label.padding(toLength: 40, withPad: " ", startingAt: 0)
        let cells = [ms(percentile(times, 0.5)), ms(percentile(times, 0.99)), ms(times[times.count - 1])].map { $0.leftPadded(8) }
        return "\(padded) \(cells.joined(separator: " ")) \((bytes.map(String.init) ?? "-").leftPadded(7))   \(String(format: "%.1fx", ratio))"
    }
}
