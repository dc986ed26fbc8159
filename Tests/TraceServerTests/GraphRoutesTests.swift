import Foundation
import HummingbirdTesting
import Testing
import TraceFormats
import TraceSamples
@testable import TraceServer

/// The cause & effect graph routes, over the samples' stories (docs/cause-graph.md).
@Suite struct GraphRoutesTests {
    /// A scratch server whose samples folder also holds the shipped samples.
    static func withSamples(_ names: [String], _ body: @Sendable @escaping (any TestClientProtocol, [String: String]) async throws -> Void) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for name in names {
            try Data(SampleTraces.fileContents(of: name)).write(to: scratch.samples.appendingPathComponent(SampleTraces.fileName(of: name)))
        }
        try await scratch.withServer { client in
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            var ids: [String: String] = [:]
            for trace in list {
                if let name = trace["name"] as? String, let id = trace["id"] as? String { ids[name] = id }
            }
            try await body(client, ids)
        }
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        #expect(response.status == .ok, "\(response.text)")
        #expect(response.headers[.contentType] == "application/json; charset=utf-8")
        return try response.json()
    }

    /// Update rows of `view` whose graph has a node of `causeKind` among its direct causes.
    static func updates(of view: String, causedBy causeKind: String, in id: String, client: any TestClientProtocol) async throws -> [Int] {
        let module = view.hasPrefix("View") ? "EnvironmentDemo" : "Landmarks"
        let list = try #require(try await client.get("/api/traces/\(id)/updates?view=\(view)&module=\(module)&limit=500").json()["updates"] as? [[String: Any]])
        var result: [Int] = []
        for row in list {
            let update = try #require(row["id"] as? Int)
            let detail = try await client.get("/api/traces/\(id)/updates/\(update)").json()
            let causes = detail["causes"] as? [[String: Any]] ?? []
            if causes.contains(where: { $0["kind"] as? String == causeKind }) { result.append(update) }
        }
        return result
    }

    @Test func favoritesSlowShowsGestureChangeAndEveryVisibleRow() async throws {
        try await Self.withSamples(["landmarks-favorites-slow"]) { client, ids in
            let id = try #require(ids["landmarks-favorites-slow"])
            let tapped = try await Self.updates(of: "LandmarkListItemView", causedBy: "observable", in: id, client: client)
            #expect(tapped.count == 24)  // two taps, twelve visible rows each
            let graph = try Self.json(try await client.get("/api/traces/\(id)/updates/\(tapped[3])/graph"))
            let nodes = try #require(graph["nodes"] as? [[String: Any]])
            let edges = try #require(graph["edges"] as? [[String: Any]])
            #expect(nodes.filter { $0["kind"] as? String == "gesture" }.count == 1)
            let observable = try #require(nodes.first { $0["kind"] as? String == "observable" })
            #expect(observable["title"] as? String == "@Observable ModelData.favoritesCollection")
            #expect(observable["isAppCode"] as? Bool == true)
            let backtrace = try #require(observable["backtrace"] as? [[String: Any]])
            #expect(backtrace.contains { ($0["name"] as? String)?.contains("FavoriteButton") == true })
            let rows = nodes.filter { $0["kind"] as? String == "view-body" }
            #expect(rows.count == 12 && rows.allSatisfy { $0["dimmed"] as? Bool == false && $0["collapsed"] is NSNull })
            #expect(rows.filter { $0["focus"] as? Bool == true }.map { $0["updates"] as? [Int] } == [[tapped[3]]])
            #expect(edges.filter { $0["from"] as? String == observable["id"] as? String }.count == 12)
            // Every edge points right, and every point is inside the drawing.
            let x = Dictionary(uniqueKeysWithValues: nodes.map { ($0["id"] as! String, ($0["x"] as! Double, $0["width"] as! Double)) })
            let width = try #require(graph["width"] as? Double)
            for edge in edges {
                let from = try #require(x[edge["from"] as! String]), to = try #require(x[edge["to"] as! String])
                #expect(from.0 + from.1 < to.0)
                let points = try #require(edge["points"] as? [[Double]])
                #expect(points.count >= 2 && points.allSatisfy { $0[0] >= 0 && $0[0] <= width })
            }
        }
    }

    @Test func favoritesFixedShowsOneRowPerTap() async throws {
        try await Self.withSamples(["landmarks-favorites-fixed"]) { client, ids in
            let id = try #require(ids["landmarks-favorites-fixed"])
            let tapped = try await Self.updates(of: "LandmarkListItemView", causedBy: "observable", in: id, client: client)
            #expect(tapped.count == 2)
            let graph = try Self.json(try await client.get("/api/traces/\(id)/updates/\(tapped[0])/graph"))
            let kinds = (graph["nodes"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
            #expect(kinds.sorted() == ["gesture", "observable", "view-body"])
        }
    }

    @Test func environmentChangeRunsView1AndDimsView2() async throws {
        try await Self.withSamples(["environment-color-scheme"]) { client, ids in
            let id = try #require(ids["environment-color-scheme"])
            let changed = try await Self.updates(of: "View1", causedBy: "environment-writer", in: id, client: client)
            #expect(changed.count == 2)  // dark, then light again
            let graph = try Self.json(try await client.get("/api/traces/\(id)/updates/\(changed[0])/graph"))
            let nodes = try #require(graph["nodes"] as? [[String: Any]])
            let byTitle = Dictionary(nodes.map { ($0["title"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
            #expect(byTitle["External Environment"]?["isAppCode"] as? Bool == false)
            #expect(byTitle["View1"]?["dimmed"] as? Bool == false && byTitle["View1"]?["focus"] as? Bool == true)
            #expect(byTitle["View2"]?["dimmed"] as? Bool == true && byTitle["View2"]?["updates"] as? [Int] == [])
        }
    }

    @Test func viewGraphMergesTheRangeWithCounts() async throws {
        try await Self.withSamples(["landmarks-favorites-slow"]) { client, ids in
            let id = try #require(ids["landmarks-favorites-slow"])
            func edgeIntoRows(_ query: String) async throws -> [String: Any] {
                let graph = try Self.json(try await client.get("/api/traces/\(id)/graph?view=LandmarkListItemView&module=Landmarks\(query)"))
                let nodes = try #require(graph["nodes"] as? [[String: Any]])
                let change = try #require(nodes.first { $0["title"] as? String == "@Observable ModelData.favoritesCollection" })
                let edges = try #require(graph["edges"] as? [[String: Any]])
                return try #require(edges.first { $0["from"] as? String == change["id"] as? String })
            }
            let whole = try await edgeIntoRows("")
            #expect(whole["count"] as? Int == 24 && whole["label"] as? String == "update" && whole["property"] as? String == "landmarks")
            // The first tap is at 1.4 s, the second at 2.95 s.
            let first = try await edgeIntoRows("&start=1000000000&end=2000000000")
            #expect(first["count"] as? Int == 12)
        }
    }

    @Test func expandOpensAFoldedFanOut() async throws {
        try await Self.withSamples(["landmarks-favorites-slow"]) { client, ids in
            let id = try #require(ids["landmarks-favorites-slow"])
            let tapped = try await Self.updates(of: "LandmarkListItemView", causedBy: "observable", in: id, client: client)
            // Twelve rows are under the folding limit: nothing folded, and an unknown key changes nothing.
            let plain = try Self.json(try await client.get("/api/traces/\(id)/updates/\(tapped[0])/graph"))
            let same = try Self.json(try await client.get("/api/traces/\(id)/updates/\(tapped[0])/graph?expand=gn99-0"))
            #expect((plain["nodes"] as? [[String: Any]])?.count == (same["nodes"] as? [[String: Any]])?.count)
            #expect((plain["nodes"] as? [[String: Any]])?.allSatisfy { $0["collapsed"] is NSNull } == true)
        }
        // Forty rows from one change fold to five plus a group, and `expand` opens it.
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Data(fanOutTrace(rows: 40).utf8).write(to: scratch.samples.appendingPathComponent("fan-out.json"))
        try await scratch.withServer { client in
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            let id = try #require(list.first { $0["app"] as? String == "FanOut" }?["id"] as? String)
            let folded = try Self.json(try await client.get("/api/traces/\(id)/updates/7/graph"))
            let nodes = try #require(folded["nodes"] as? [[String: Any]])
            let group = try #require(nodes.first { !($0["collapsed"] is NSNull) })
            let collapsed = try #require(group["collapsed"] as? [String: Any])
            #expect(group["title"] as? String == "+ 35 more RowView" && collapsed["more"] as? Int == 35)
            #expect((collapsed["members"] as? [[String: Any]])?.count == 35)
            #expect(nodes.count == 1 + 5 + 1)
            let key = try #require(collapsed["key"] as? String)
            let open = try Self.json(try await client.get("/api/traces/\(id)/updates/7/graph?expand=\(key)"))
            #expect((open["nodes"] as? [[String: Any]])?.count == 41)
        }
    }

    @Test func badRequestsAnswerWithTheErrorShape() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.sampleID()
            try expectError(try await client.get("/api/traces/\(id)/updates/999/graph"), .notFound)
            try expectError(try await client.get("/api/traces/\(id)/updates/-1/graph"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/updates/abc/graph"), .badRequest)
            try expectError(try await client.get("/api/traces/ffffffffffffffffffffffffffffffff/updates/0/graph"), .notFound)
            try expectError(try await client.get("/api/traces/\(id)/graph"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/graph?view=LandmarkListItemView&start=5"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/graph?view=LandmarkListItemView&start=5&end=1"), .badRequest)
            // A view without updates is an empty graph, not an error.
            let empty = try Self.json(try await client.get("/api/traces/\(id)/graph?view=NoSuchView&module=Landmarks"))
            #expect((empty["nodes"] as? [Any])?.isEmpty == true)
        }
    }
}

/// A native trace: one change updating `rows` RowView bodies (update i is row i).
private func fanOutTrace(rows: Int) -> String {
    var updates: [String] = []
    var nodes = ["[\"observable\",\"@Observable Store.rows\",\"Store\",true,1,1000,null]"]
    var edges: [String] = []
    for i in 0..<rows {
        let start = 2_000 + i * 1_000
        updates.append("[\(start),500,\"view-body\",\"FanOut\",\"RowView\",\"\",\"\",0,0,0,\"none\"]")
        nodes.append("[\"view-body\",\"RowView\",\"\",true,\(i + 2),\(start),\(i)]")
        edges.append("[0,\(i + 1),\"update\",\"rows\",\(start),0]")
    }
    return """
    {"format":"tracesvc-trace","version":1,
    "metadata":{"app":"FanOut","device":"iPhone","osVersion":"26.0","refreshRate":120,"recordedAt":null,"start":0,"end":1000000,"importNotes":[]},
    "processes":[[1,"FanOut"]],"threads":[[1,"Main Thread",0,true]],"updateGroups":[[500,900000,"Transaction",0]],
    "updates":[\(updates.joined(separator: ","))],"nodes":[\(nodes.joined(separator: ","))],"edges":[\(edges.joined(separator: ","))],
    "frames":[],"stacks":[],"samples":[]}
    """
}
