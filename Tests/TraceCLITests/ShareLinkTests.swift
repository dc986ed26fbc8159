import Foundation
import Testing
import TraceAgent
@testable import TraceCLI

/// The links `tracesvc check` writes are the browser's (docs/share-links.md): the same vectors
/// as Tests/Web/share-link-vectors.test.mjs, and the same link version as the doc and state.js.
@Suite struct ShareLinkTests {
    struct Vectors: Decodable, Sendable {
        struct TraceLink: Decodable, Sendable { var about: String, trace: String, state: [String: JSONValue], path: String }
        struct CompareLink: Decodable, Sendable {
            var about: String, a: IDs, b: IDs, state: [String: JSONValue], path: String
        }
        /// A trace id, or the ids of a side's recordings (pooled).
        struct IDs: Decodable, Sendable {
            var ids: [String]
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let list = try? container.decode([String].self) { ids = list } else { ids = [try container.decode(String.self)] }
            }
        }
        var trace: [TraceLink]
        var compare: [CompareLink]
    }

    enum JSONValue: Decodable, Sendable {
        case number(Int64), flag(Bool), text(String), list([JSONValue]), object([String: JSONValue])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int64.self) {
                self = .number(number)
            } else if let flag = try? container.decode(Bool.self) {
                self = .flag(flag)
            } else if let text = try? container.decode(String.self) {
                self = .text(text)
            } else if let list = try? container.decode([JSONValue].self) {
                self = .list(list)
            } else {
                self = .object(try container.decode([String: JSONValue].self))
            }
        }

        var number: Int64? { if case .number(let n) = self { n } else { nil } }
        var text: String? { if case .text(let t) = self { t } else { nil } }
    }

    static let vectors: Vectors = {
        let url = Golden.packageRoot.appendingPathComponent("Tests/Fixtures/share-link-vectors.json")
        return try! JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
    }()

    static func current(_ path: String) -> String { path.replacingOccurrences(of: "{v}", with: String(ShareLink.version)) }

    /// The vector's state as the keys tracesvc writes; nil when it sets another key.
    static func traceView(_ state: [String: JSONValue]) -> ShareLink.TraceView? {
        guard Set(state.keys).isSubset(of: ["update", "window", "range", "pane", "paneView", "filter", "graph", "finding", "cpu", "longerThan", "selection"]) else { return nil }
        var view = ShareLink.TraceView()
        if case .object(let selection)? = state["selection"] {
            guard selection["kind"]?.text == "task-state", let row = selection["id"]?.number else { return nil }
            view.taskState = Int(row)
        }
        view.update = state["update"]?.number.map(Int.init)
        if case .list(let span)? = state["window"], let start = span.first?.number, let end = span.last?.number { view.window = start...end }
        if case .list(let span)? = state["range"], let start = span.first?.number, let end = span.last?.number { view.range = start...end }
        view.pane = state["pane"]?.text
        view.filter = state["filter"]?.text
        view.graph = state["graph"]?.text
        view.finding = state["finding"]?.text
        if let cpu = state["cpu"] {
            guard cpu.text == "view" else { return nil }
            view.cpuOfView = true
        }
        view.longerThan = state["longerThan"]?.number
        if case .object(let paneView)? = state["paneView"] {
            view.paneView = (paneView["module"]?.text ?? "", paneView["view"]?.text ?? "", paneView["category"]?.text ?? "")
        }
        return view
    }

    @Test func theLinkVersionIsTheDocsAndTheBrowsers() throws {
        let doc = try String(contentsOf: Golden.packageRoot.appendingPathComponent("docs/share-links.md"), encoding: .utf8)
        let documented = try #require(doc.firstMatch(of: #/The current version is \*\*(\d+)\*\*/#)?.1)
        #expect(Int(documented) == ShareLink.version, "docs/share-links.md changed the link version: change ShareLink.version too")
        let state = try String(contentsOf: Golden.packageRoot.appendingPathComponent("WebRoot/js/state.js"), encoding: .utf8)
        let browser = try #require(state.firstMatch(of: #/export const STATE_VERSION = (\d+);/#)?.1)
        #expect(Int(browser) == ShareLink.version)
    }

    @Test func traceLinksAreWrittenAsTheVectorsSay() {
        var checked = 0
        for vector in Self.vectors.trace {
            guard let view = Self.traceView(vector.state) else { continue }
            #expect(ShareLink.trace(vector.trace, view) == Self.current(vector.path), "\(vector.about)")
            checked += 1
        }
        // Every kind of link the report writes: the trace, a span, an update's graph, a view's updates, a task.
        #expect(checked >= 7)
    }

    @Test func comparisonLinksAreWrittenAsTheVectorsSay() {
        for vector in Self.vectors.compare where vector.state.isEmpty {
            #expect(ShareLink.comparison(vector.a.ids, vector.b.ids) == Self.current(vector.path), "\(vector.about)")
        }
        #expect(!Self.vectors.compare.isEmpty)
    }
}
