import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TraceServer

@Suite struct QueryRoutesTests {
    @Test func timelineIsBoundedByWidthAndMergesSubPixelEvents() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(nativeTrace(updates: 200))
            let whole = try await client.get("/api/traces/\(id)/timeline?width=10&lanes=view-body,long-view-body,cpu").json()
            let lanes = try #require(whole["lanes"] as? [String: [String: Any]])
            #expect(Set(lanes.keys) == ["view-body", "long-view-body", "cpu"])
            let events = try #require(lanes["view-body"]?["events"] as? [[String: Any]])
            #expect(events.count <= 11)
            #expect(lanes["view-body"]?["merged"] as? Bool == true)
            #expect(events.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } == 200)
            #expect(events.contains { $0["severity"] as? String == "red" })

            // Zoomed in on one update: it comes alone with its id, label and kind.
            let zoomed = try await client.get("/api/traces/\(id)/timeline?start=1000000&end=1050000&width=1000&lanes=view-body").json()
            let one = try #require(((zoomed["lanes"] as? [String: [String: Any]])?["view-body"]?["events"] as? [[String: Any]])?.first)
            #expect(one["update"] as? Int == 0 && one["label"] as? String == "LandmarkListItemView" && one["kind"] as? String == "view-body")
            #expect(one["count"] as? Int == 1 && one["start"] as? Int == 1_000_000 && one["duration"] as? Int == 40_000)
            #expect(zoomed["start"] as? Int == 1_000_000 && zoomed["width"] as? Int == 1000)
        }
    }

    @Test func timelineAnswersBinaryColumnsWhenAskedAndJSONOtherwise() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(nativeTrace(updates: 2000))
            let uri = "/api/traces/\(id)/timeline?width=1920"
            let binary = try await client.get(uri, headers: [.accept: "application/octet-stream, application/json;q=0.5"])
            #expect(binary.status == .ok)
            #expect(binary.headers[.contentType] == "application/octet-stream")
            #expect(binary.headers[.vary] == "Accept")
            let bytes = Array(binary.body.readableBytesView)
            #expect(Array(bytes.prefix(4)) == Array("TLB1".utf8))

            let json = try await client.get(uri)
            #expect(json.headers[.contentType] == "application/json; charset=utf-8")
            let lanes = try #require(try json.json()["lanes"] as? [String: Any])
            // Every lane, as in the JSON: the lane count follows magic, start, end and width.
            #expect(lanes.count > 5 && Int(bytes[24]) == lanes.count && bytes[25...27] == [0, 0, 0])
            // The point of the format: the same events in fewer bytes (`tracesvc-bench timeline` measures how many fewer).
            #expect(bytes.count < json.body.readableBytes)
        }
    }

    @Test func timelineRejectsBadParameters() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.sampleID()
            let extreme = "start=-9223372036854775808&end=9223372036854775807"
            for query in ["start=10&end=5", "start=10", "end=10", "start=abc&end=5", "width=0", "width=100000", "lanes=view-body,nope", extreme] {
                try expectError(try await client.get("/api/traces/\(id)/timeline?\(query)"), .badRequest)
            }
            // Ranges that would overflow the queries' arithmetic are refused on every ranged route.
            for route in ["summary?", "calltree?", "updates?view=LandmarkListItemView&", "graph?view=LandmarkListItemView&"] {
                try expectError(try await client.get("/api/traces/\(id)/\(route)\(extreme)"), .badRequest)
            }
            // The server is still up.
            #expect(try await client.get("/api/traces/\(id)/timeline?start=0&end=1000000").status == .ok)
            try expectError(try await client.get("/api/traces/ffffffffffffffffffffffffffffffff/timeline"), .notFound)
        }
    }

    @Test func longUpdateStepsVisitEveryLongUpdateInTimeOrder() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            // Every tenth update is long (9, 19, ..., 199); at a 10 px zoom-out they are all merged.
            let id = try await client.uploadedID(nativeTrace(updates: 200))
            func step(_ query: String) async throws -> Int? {
                let answer = try await client.get("/api/traces/\(id)/long-update?\(query)").json()
                return (answer["update"] as? [String: Any])?["id"] as? Int
            }
            var forward: [Int] = []
            var current = try await step("")
            while let update = current {
                forward.append(update)
                current = try await step("after=\(update)")
            }
            #expect(forward == Array(stride(from: 9, to: 200, by: 10)))
            #expect(try await step("direction=previous&after=9") == nil)
            #expect(try await step("direction=previous&after=100") == 99)
            #expect(try await step("direction=previous") == 199)
            // From a time: update 9 starts at 1_900_000 ns.
            #expect(try await step("at=1900000") == 9)
            #expect(try await step("at=1900001") == 19)
            #expect(try await step("direction=previous&at=1900000") == 9)
            let one = try await client.get("/api/traces/\(id)/long-update?after=9").json()
            let update = try #require(one["update"] as? [String: Any])
            #expect(update["start"] as? Int == 2_900_000 && update["duration"] as? Int == 1_200_000 && update["severity"] as? String == "red")
            for query in ["direction=up", "after=-1", "after=x", "at=x"] {
                try expectError(try await client.get("/api/traces/\(id)/long-update?\(query)"), .badRequest)
            }
        }
    }

    @Test func queryValuesAreDecodedAsBrowsersEncodeThem() {
        let query = QueryParameters(query: "view=Item+View&category=View%20Body&symbol=a%2Bb&empty=&flag&view=second")
        #expect(query.string("view") == "Item View", "+ is a space; the first of repeated names wins")
        #expect(query.string("category") == "View Body")
        #expect(query.string("symbol") == "a+b")
        #expect(query.string("empty") == nil && query.string("flag") == nil && query.string("missing") == nil)
    }

    @Test func summaryGroupsViewsAndFilters() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.sampleID()
            let all = try await client.get("/api/traces/\(id)/summary").json()
            #expect((all["total"] as? [String: Any])?["count"] as? Int == 30)
            let long = try await client.get("/api/traces/\(id)/summary?filter=long-view-body&start=0&end=2000000").json()
            // Updates 0...9 overlap the first 2 ms; number 9 is the long one.
            #expect((long["total"] as? [String: Any])?["count"] as? Int == 1)
            try expectError(try await client.get("/api/traces/\(id)/summary?filter=slow"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/summary?start=5&end=5"), .badRequest)
        }
    }

    @Test func viewUpdatesArePagedAndSorted() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.sampleID()
            let page = try await client.get("/api/traces/\(id)/updates?view=LandmarkListItemView&module=Landmarks&sort=duration&order=desc&limit=5").json()
            #expect(page["total"] as? Int == 30 && page["limit"] as? Int == 5 && page["offset"] as? Int == 0)
            let rows = try #require(page["updates"] as? [[String: Any]])
            #expect(rows.count == 5)
            #expect(rows.prefix(3).allSatisfy { $0["severity"] as? String == "red" })
            #expect(rows[0]["id"] as? Int == 9)
            let first = try await client.get("/api/traces/\(id)/updates?view=LandmarkListItemView").json()
            let firstRow = try #require((first["updates"] as? [[String: Any]])?.first)
            #expect(firstRow["cause"] as? String == "@Observable ModelData.favoritesCollection")
            #expect(firstRow["group"] as? Int == 0)

            try expectError(try await client.get("/api/traces/\(id)/updates"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/updates?view=V&sort=name"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/updates?view=V&order=up"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/updates?view=V&limit=0"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/updates?view=V&offset=-1"), .badRequest)
        }
    }

    @Test func oneUpdateHasNeighboursAndCauses() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.sampleID()
            let detail = try await client.get("/api/traces/\(id)/updates/0").json()
            #expect(detail["view"] as? String == "LandmarkListItemView" && detail["module"] as? String == "Landmarks")
            #expect(detail["previous"] is NSNull && detail["next"] as? Int == 1)
            #expect((detail["thread"] as? [String: Any])?["name"] as? String == "Main Thread")
            #expect((detail["process"] as? [String: Any])?["pid"] as? Int == 42)
            #expect((detail["group"] as? [String: Any])?["label"] as? String == "Transaction")
            let cause = try #require((detail["causes"] as? [[String: Any]])?.first)
            #expect(cause["node"] as? String == "n0" && cause["kind"] as? String == "observable" && cause["property"] as? String == "favoritesCollection")

            try expectError(try await client.get("/api/traces/\(id)/updates/30"), .notFound)
            try expectError(try await client.get("/api/traces/\(id)/updates/abc"), .badRequest)
        }
    }

    @Test func callTreeTopDownAndBottomUp() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.sampleID()
            let topDown = try await client.get("/api/traces/\(id)/calltree").json()
            #expect(topDown["mode"] as? String == "top-down" && topDown["totalWeight"] as? Int == 2_000_000 && topDown["sampleCount"] as? Int == 2)
            let thread = try #require((topDown["roots"] as? [[String: Any]])?.first)
            #expect(thread["name"] as? String == "Main Thread" && thread["binary"] as? String == "")
            let main = try #require((thread["children"] as? [[String: Any]])?.first)
            #expect(main["name"] as? String == "main" && main["total"] as? Int == 2_000_000 && main["self"] as? Int == 1_000_000)

            let bottomUp = try await client.get("/api/traces/\(id)/calltree?mode=bottom-up&thread=0&minPercent=0").json()
            #expect((bottomUp["roots"] as? [[String: Any]])?.map { $0["name"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") } == ["body", "main"])

            try expectError(try await client.get("/api/traces/\(id)/calltree?mode=sideways"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/calltree?thread=5"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/calltree?minPercent=lots"), .badRequest)
        }
    }
}
