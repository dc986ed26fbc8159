import Foundation
import Logging
import MCP
import Testing
@testable import TraceAgent
import TraceFormats
import TraceSamples
import TraceServer

/// The agent's tools in process, as `POST /mcp` runs them, on the Landmarks samples and on
/// recordings of other apps (Harbor, Pantry): every answer bounded, with links to its evidence.
@Suite struct AgentToolsTests {
    static let base = "http://tracesvc.test:8080"

    /// A server's router over a samples folder holding the Landmarks samples, Harbor and Pantry.
    struct Fixture {
        let root: URL
        let context: AgentContext
        let ids: [String: String]

        init(writesAllowed: Bool = false) async throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-agent-tests-\(UUID().uuidString)")
            let samples = root.appendingPathComponent("samples")
            try FileManager.default.createDirectory(at: samples, withIntermediateDirectories: true)
            for name in SampleTraces.names {
                try Data(SampleTraces.fileContents(of: name)).write(to: samples.appendingPathComponent("\(name).json"))
            }
            try NativeTraceWriter.write(OtherAppTraces.harbor(), to: samples.appendingPathComponent("harbor-conversation.json"))
            try NativeTraceWriter.write(PantryTraces.trace(scenario: "pantry-slow", run: 1), to: samples.appendingPathComponent("pantry-slow.json"))
            try NativeTraceWriter.write(PantryTraces.trace(scenario: "pantry-fixed", run: 1), to: samples.appendingPathComponent("pantry-fixed.json"))
            var options = ServerOptions(dataDirectory: root.appendingPathComponent("data"))
            options.samplesDirectory = samples
            let store = try await TraceStore.open(
                .init(dataDirectory: options.dataDirectory, samplesDirectory: samples, memoryBudgetBytes: 1 << 30), logger: Logger(label: "test")
            )
            let api = inProcessTraceAPI(router: buildRouter(store: store, options: options))
            context = AgentContext(api: api, linkBase: AgentToolsTests.base + "/", writesAllowed: writesAllowed)
            let list = try JSONSerialization.jsonObject(with: try await api.get("/api/traces").body) as? [String: Any]
            var ids: [String: String] = [:]
            for trace in list?["traces"] as? [[String: Any]] ?? [] { ids[trace["name"] as? String ?? ""] = trace["id"] as? String }
            self.ids = ids
        }

        func call(_ tool: String, _ arguments: [String: Value]) async -> (isError: Bool, text: String) {
            let result = await AgentServer.call(tool, arguments: arguments, context: context)
            guard case .text(let text, _, _)? = result.content.first, result.content.count == 1 else { return (true, "no text") }
            return (result.isError == true, text)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test func everyToolAnswersWithinSixteenKilobytesWithLinks() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let ids = fixture.ids
        let (slow, fixed, scroll) = (ids["landmarks-favorites-slow"]!, ids["landmarks-favorites-fixed"]!, ids["landmarks-scroll-slow"]!)
        let (harbor, pantrySlow, pantryFixed) = (ids["harbor-conversation"]!, ids["pantry-slow"]!, ids["pantry-fixed"]!)
        let calls: [(String, [String: Value])] = [
            ("list_traces", [:]),
            ("trace_overview", ["trace": .string(harbor)]),
            ("findings", ["trace": .string(harbor)]),
            ("findings", ["trace": .string(pantrySlow)]),
            ("view_updates", ["trace": .string(scroll), "view": "LandmarkListItemView"]),
            ("why_update", ["trace": .string(slow), "update": 17]),
            ("cpu_hotspots", ["trace": .string(harbor)]),
            ("cpu_hotspots", ["trace": .string(scroll), "update": 265]),
            ("cpu_hotspots", ["trace": .string(scroll), "start": 1_000_000_000, "end": 1_100_000_000]),
            ("compare", ["a": .string(slow), "b": .string(fixed)]),
            ("compare", ["a": .string(pantrySlow), "b": .string(pantryFixed)]),
        ]
        for (tool, arguments) in calls {
            let (isError, text) = await fixture.call(tool, arguments)
            #expect(!isError, "\(tool): \(text)")
            #expect(text.utf8.count <= 16 * 1024, "\(tool) answered \(text.utf8.count) bytes")
            #expect(text.contains(Self.base + "/traces/") || text.contains(Self.base + "/compare/"), "\(tool) links no evidence: \(text)")
            // The same request answers the same bytes.
            #expect(await fixture.call(tool, arguments).text == text, "\(tool)")
        }
    }

    @Test func findingsOfAnotherAppNameItsOwnViewsAndFrames() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let harbor = fixture.ids["harbor-conversation"]!
        let (isError, text) = await fixture.call("findings", ["trace": .string(harbor)])
        #expect(!isError)
        #expect(!text.contains("Landmark"))
        #expect(text.contains("\(Self.base)/traces/\(harbor)?v=3&p=findings&fd="))
        let overview = await fixture.call("trace_overview", ["trace": .string(harbor)])
        #expect(overview.text.contains("Harbor") && overview.text.contains("## Main Actor: busiest tasks"), "\(overview.text)")
    }

    @Test func theLongBodyFindingNamesTheViewAndItsFormatter() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let scroll = fixture.ids["landmarks-scroll-slow"]!
        let (isError, text) = await fixture.call("findings", ["trace": .string(scroll), "limit": 1])
        #expect(!isError)
        #expect(text.contains("LandmarkListItemView.body takes over 1.00 ms"))
        #expect(text.contains("NumberFormatter.init() (Foundation)"))
        #expect(text.contains("&p=cpu&pv=Landmarks%3ALandmarkListItemView&pc=View%20Body&f=long-view-body&fd=long-body%3ALandmarks.LandmarkListItemView&c=view&cl=1000000"))
        #expect(text.contains("1 more findings left out: call findings with cursor \"1\""))
        let next = await fixture.call("findings", ["trace": .string(scroll), "limit": 1, "cursor": "1"])
        #expect(next.text.contains("## 2. ") && !next.text.contains("## 1. "))
    }

    @Test func errorsAreToolErrorsThatSayWhat() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let slow = fixture.ids["landmarks-favorites-slow"]!
        let cases: [(String, [String: Value], String)] = [
            ("trace_overview", ["trace": .string(String(repeating: "0", count: 32))], "unknown trace"),
            ("findings", ["trace": "x"], "is not a trace id"),
            ("findings", [:], "argument trace is required"),
            ("why_update", ["trace": .string(slow), "update": 100_000], "unknown update"),
            ("cpu_hotspots", ["trace": .string(slow), "start": 10, "end": 5], "end must be after start"),
            ("view_updates", ["trace": .string(slow), "view": "Nope"], "has no view named 'Nope'"),
            ("compare", ["a": .string(slow), "b": "1,2"], "argument b"),
            ("findings", ["trace": .string(slow), "limit": 0], "argument limit"),
            ("add_note", ["trace": .string(slow), "text": "x", "update": 1], "read-only"),
            ("nope", [:], "no tool named 'nope'"),
        ]
        for (tool, arguments, message) in cases {
            let (isError, text) = await fixture.call(tool, arguments)
            #expect(isError, "\(tool): \(text)")
            #expect(text.lowercased().contains(message.lowercased()), "\(tool): \(text)")
        }
    }

    @Test func aServerThatIsDownIsAToolErrorWithinTheDeadline() async throws {
        let api = HTTPTraceAPI(server: "http://127.0.0.1:9", token: nil, deadline: .seconds(2))
        let context = AgentContext(api: api, linkBase: "http://127.0.0.1:9", writesAllowed: true)
        let began = ContinuousClock.now
        let result = await AgentServer.call("list_traces", arguments: [:], context: context)
        await api.shutdown()
        #expect(result.isError == true)
        #expect(ContinuousClock.now - began < .seconds(10))
    }

    @Test func aLongAnswerStopsAtSixteenKilobytesAndSaysWhatWasLeftOut() {
        func answer(items: Int) -> String {
            var answer = BoundedAnswer()
            answer.head = ["head"]
            answer.items = (0..<items).map { "- row \($0) " + String(repeating: "x", count: 190) }
            return answer.render(noun: "rows")
        }
        let long = answer(items: 1_000)
        #expect(long.utf8.count <= 16 * 1024)
        let shown = long.split(separator: "\n").filter { $0.hasPrefix("- row ") }.count
        #expect(shown > 60 && long.contains("\(1_000 - shown) more rows left out (the answer is kept under 16 KB): pass cursor \"\(shown)\""))
        #expect(answer(items: 3).hasSuffix("(all 3 rows shown)"))
        // A head of a trace's long strings still ends under the bound.
        var huge = BoundedAnswer()
        huge.head = [String(repeating: "é", count: 20_000)]
        #expect(huge.render().utf8.count <= 16 * 1024)
    }
}
