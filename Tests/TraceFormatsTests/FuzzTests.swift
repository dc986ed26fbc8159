import Foundation
import Testing
import TraceFormats
@testable import TraceModel
import TraceSamples

/// The project's own fuzzer, run by every `swift test` with a fixed seed and a small budget:
/// mutated native and xctrace files go through the readers, and every accepted trace through
/// every query. A crash here is a crash a hostile upload could cause on the server.
/// `TRACESVC_FUZZ_ITERATIONS` and `TRACESVC_FUZZ_SEED` run it longer or elsewhere.
@Suite struct FuzzTests {
    static let iterations = ProcessInfo.processInfo.environment["TRACESVC_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 300
    static let seed = ProcessInfo.processInfo.environment["TRACESVC_FUZZ_SEED"].flatMap(UInt64.init) ?? 20261123

    /// Seeds: a small sample in both formats, and the hostile shapes found before.
    static func corpus() throws -> [(name: String, bytes: [UInt8])] {
        let sample = SampleTraces.trace(named: "environment-color-scheme")
        var xml: [UInt8] = []
        try XCTraceExporter.export(sample, layout: .concatenatedXML) { xml.append(contentsOf: $0) }
        return [
            ("sample.json", SampleTraces.fileContents(of: "environment-color-scheme")),
            ("sample.xml", xml),
            ("deep.json", Array(HostileTraces.deepNativeStack(depth: 3000).utf8)),
            ("deep-backtrace.xml", Array(HostileTraces.deepXCTraceBacktrace(repeats: 3000).utf8)),
            // Issue 24's shapes, small (HostileCostTests times them at two sizes).
            ("backtrace-bomb.json", Array(HostileTraces.backtraceBomb(stateNodes: 250, depth: 300).utf8)),
            ("stack-chain.json", Array(HostileTraces.stackChain(stacks: 400).utf8)),
            ("generic-body.json", Array(HostileTraces.genericBodyName(repeats: 400).utf8)),
            ("system-chain-hang.json", Array(HostileTraces.systemChainInHang(stacks: 400).utf8)),
            ("swift-tasks.json", NativeTraceWriter.encode(try SwiftTasksTests.recipes())),
            ("swift-tasks.xml", try SwiftTasksTests.tables.flatMap { table in
                let url = try #require(Bundle.module.url(forResource: "Fixtures/xctrace-concurrency/\(table)", withExtension: "xml"))
                return [UInt8](try Data(contentsOf: url))
            }),
            // Tasks keyed by (process, id): two processes with the same task ids.
            ("two-processes.json", NativeTraceWriter.encode(try SwiftTasksTests.twoProcesses())),
            ("two-processes.xml", try SwiftTasksTests.tables.flatMap { table in
                let url = try #require(Bundle.module.url(forResource: "Fixtures/xctrace-two-processes/\(table)", withExtension: "xml"))
                return [UInt8](try Data(contentsOf: url))
            }),
            ("signposts.json", NativeTraceWriter.encode(try SignpostTests.mail())),
            ("signposts.xml", try SignpostTests.tables.flatMap { table in
                let url = try #require(Bundle.module.url(forResource: "Fixtures/xctrace-signposts/\(table)", withExtension: "xml"))
                return [UInt8](try Data(contentsOf: url))
            }),
        ]
    }

    @Test func mutatedFilesNeverCrashTheReadersOrTheQueries() throws {
        var random = SeededRandom(seed: Self.seed)
        let corpus = try Self.corpus()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var accepted = 0
        var refused = 0
        for iteration in 0..<(Self.iterations + corpus.count) {
            // The seeds themselves first, unmutated.
            let (name, seedBytes) = corpus[iteration % corpus.count]
            let bytes = iteration < corpus.count ? seedBytes : Self.mutate(seedBytes, &random)
            let file = folder.appendingPathComponent("\(iteration)-\(name)")
            try Data(bytes).write(to: file)
            do {
                let trace = try TraceImporter.importTrace(at: file, displayName: name, maxBytes: 64 << 20)
                accepted += 1
                Self.runEveryQuery(trace, &random)
            } catch {
                refused += 1
                #expect(!error.description.isEmpty)
            }
            try? FileManager.default.removeItem(at: file)
        }
        #expect(accepted >= corpus.count, "the seeds are accepted")
        #expect(refused > 0, "mutations reach the error paths")
    }

    /// Budget files, mutated: the reader (and its second pass over every rule for the other
    /// mistakes) accepts or refuses each, with a message, and never crashes.
    @Test func mutatedBudgetsNeverCrashTheReader() throws {
        var random = SeededRandom(seed: Self.seed)
        let seed = Array("""
            {"version": 1, "window": {"from": "1 s"}, "rules": [
              {"name": "No red rows", "metric": "red-updates", "views": ["Row*", "Cell[0-9]"], "max": 0},
              {"metric": "hang-total", "max": "250 ms", "window": {"to": "5s"}},
              {"metric": "findings", "kinds": ["hitch-explained"], "minSeverity": "high", "max": 0},
              {"metric": "main-actor-tasks-over", "functions": "Loader.*", "over": "16ms", "max": 0}
            ], "baseline": {"countTolerance": 0.1, "views": "Row*"}}
            """.utf8)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-fuzz-budget-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var accepted = 0, refused = 0
        for iteration in 0..<400 {
            let file = folder.appendingPathComponent("budget-\(iteration).json")
            try Data(iteration == 0 ? seed : Self.mutate(seed, &random)).write(to: file)
            do {
                _ = try BudgetReader.read(at: file, displayName: "budget.json")
                accepted += 1
            } catch {
                refused += 1
                #expect(error.description.hasPrefix("budget.json:"))
            }
        }
        #expect(accepted > 0 && refused > 0)
    }

    @Test func theDeepSeedsAnswerTheirCallTreesFolded() throws {
        for (name, bytes) in try Self.corpus() where name.hasPrefix("deep") {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-\(UUID().uuidString)-\(name)")
            try Data(bytes).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let trace = try TraceImporter.importTrace(at: file, displayName: name)
            let tree = trace.callTree(CallTreeQuery(minPercent: 0))
            var node = try #require(tree.roots.first)
            var depth = 0
            while let next = node.children.first {
                node = next
                depth += 1
            }
            #expect(depth == CallTreeQuery.maxDepth, "\(name): a thread root and then the folded frames")
            #expect(node.foldedDepth && node.selfWeight == tree.totalWeight)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(tree.json())) as? [String: Any])
            #expect((json["roots"] as? [Any])?.count == 1)
        }
    }

    // MARK: Mutations

    static func mutate(_ input: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = input
        for _ in 0...random.int(0..<4) {
            guard !bytes.isEmpty else { break }
            let at = random.int(0..<bytes.count)
            switch random.int(0..<8) {
            case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
            case 1: bytes.removeSubrange(at..<min(bytes.count, at + random.int(1..<64)))
            case 2:  // duplicate a slice somewhere else
                let end = min(bytes.count, at + random.int(1..<256))
                bytes.insert(contentsOf: bytes[at..<end], at: random.int(0..<bytes.count))
            case 3: bytes.insert(contentsOf: Array(random.pick(["9999999999999999999", "-1", "1e308", "4503599627370496", "null", "\"\"", "[]", "{}"]).utf8), at: at)
            case 4: bytes.removeSubrange(at...)
            case 5:  // replace a digit run with a large or negative number
                if let digit = bytes[at...].firstIndex(where: { (48...57).contains($0) }) {
                    var end = digit
                    while end < bytes.count, (48...57).contains(bytes[end]) { end += 1 }
                    bytes.replaceSubrange(digit..<end, with: Array(random.pick(["0", "-7", "65535", "2147483648", "18446744073709551615"]).utf8))
                }
            case 6: bytes.insert(contentsOf: Array(random.pick(["<", ">", "\"", "&amp;", "&#0;", "ref=\"1\"", "id=\"1\"", "\u{202E}", "\\u0000"]).utf8), at: at)
            default: bytes.swapAt(at, random.int(0..<bytes.count))
            }
        }
        return bytes
    }

    // MARK: Every query of an accepted trace

    static func runEveryQuery(_ trace: Trace, _ random: inout SeededRandom) {
        let meta = trace.metadata
        let whole = TimeRange(start: meta.start, end: max(meta.end, meta.start + 1))
        let span = whole.end - whole.start
        let middle = TimeRange(start: whole.start + span / 3, end: max(whole.start + span / 3 + 1, whole.end - span / 3))
        let index = TimelineIndex()
        for window in [whole, middle] {
            for width in [1, 1000] {
                _ = trace.timeline(window: window, width: width, laneIDs: trace.allTimelineLanes, index: index).json()
                _ = trace.timelineBinary(window: window, width: width, laneIDs: trace.allTimelineLanes, index: index)
            }
        }
        for filter in SummaryFilter.allCases {
            for range in [nil, middle] {
                let summary = trace.summary(in: range, filter: filter)
                let views = summary.processes.flatMap(\.modules).flatMap { module in module.views.map { (module.name, $0) } }
                for (module, row) in views.prefix(3) {
                    _ = trace.viewUpdates(ViewUpdatesQuery(view: row.name, module: module, category: row.category, range: range, filter: filter, limit: 50))
                    _ = trace.causeGraph(ofView: row.name, module: module, in: range, expand: [])
                    let selector = CallTreeQuery.ViewSelector(name: row.name, module: module)
                    _ = trace.callTree(CallTreeQuery(range: range, minPercent: 0, view: selector, hideSystemLibraries: true)).json()
                }
            }
        }
        for range in [nil, middle] { _ = trace.taskSummary(in: range) }
        for row in 0..<min(trace.signposts.count, 5) { _ = trace.signpostDetail(row) }
        // The comparison: a trace against itself, whole and in a range, and its fan-outs.
        for range in [nil, middle] {
            _ = TraceComparison(before: trace, after: trace, beforeRange: range, afterRange: nil)
            _ = trace.causeFanOuts(in: range)
        }
        for lane in [Lane.mainActor, .mainActorWaits] {
            for row in trace.taskStates(on: lane, in: middle, limit: 5).rows { _ = trace.taskStateDetail(row) }
        }
        for mode in CallTreeQuery.Mode.allCases {
            for range in [nil, middle] {
                _ = trace.callTree(CallTreeQuery(range: range, mode: mode, minPercent: 0)).json()
                _ = trace.callTree(CallTreeQuery(range: range, mode: mode, minPercent: 0, hideSystemLibraries: true)).json()
            }
        }
        _ = trace.findings()
        if trace.updates.count > 0 {
            for _ in 0..<3 {
                let update = random.int(0..<trace.updates.count)
                _ = trace.updateDetail(update)
                _ = trace.causeGraph(ofUpdate: update)
            }
        }
        _ = trace.updateDetail(-1)
        _ = trace.causeGraph(ofUpdate: trace.updates.count)
    }
}
