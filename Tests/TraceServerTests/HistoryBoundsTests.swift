import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TraceModel
@testable import TraceServer

/// A trace of an app with `views` distinct views, one body each, view `i` lasting 10 µs + i ns.
func manyViewsTrace(views: Int, app: String = "Catalogue") -> String {
    let rows = (0..<views).map { i in
        "[\(1_000_000 + i * 20_000),\(10_000 + i),\"view-body\",\"\(app)\",\"Cell\(i)View\",\"\",\"\",0,0,0,\"none\"]"
    }
    let end = 1_000_000 + views * 20_000 + 1_000_000
    return """
    {"format":"tracesvc-trace","version":1,
    "metadata":{"app":"\(app)","device":"Mac","osVersion":"15.0","refreshRate":60,"recordedAt":null,"start":0,"end":\(end),"importNotes":[]},
    "processes":[[3,"\(app)"]],"threads":[[9,"Main Thread",0,true]],"updateGroups":[[500000,\(end - 500_000),"Transaction",0]],
    "updates":[\(rows.joined(separator: ","))],"nodes":[],"edges":[],"frames":[],"stacks":[],"samples":[]}
    """
}

@Suite struct HistoryBoundsTests {
    @Test func aTraceOfManyViewsStoresTheCostliestAndSumsTheRest() async throws {
        let views = TraceMeasurements.maxViewRows + 500
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            _ = try await client.uploadedID(manyViewsTrace(views: views), name: "catalogue.json&tag=scenario:grid")
            func history(_ query: String) async throws -> [String: Any] {
                let response = try await client.get("/api/history?tag=scenario:grid&\(query)")
                #expect(response.status == .ok, "\(response.text)")
                return try response.json()
            }
            func value(_ answer: [String: Any]) -> Int? {
                ((answer["builds"] as? [[String: Any]])?.first?["traces"] as? [[String: Any]])?.first?["value"] as? Int
            }
            // The costliest views keep rows of their own; the picker offers at most 100, the
            // default being the costliest view of its own (not the sum of the rest).
            let top = try await history("metric=body-count")
            #expect(top["view"] as? String == "Cell\(views - 1)View")
            let picker = try #require(top["views"] as? [[String: Any]])
            #expect(picker.count == 100 && picker.first?["view"] as? String == TraceMeasurements.otherViewsName)
            #expect(value(try await history("metric=body-count&view=Cell\(views - 1)View")) == 1)
            // The views past the bound are one row: their bodies and time summed.
            let rest = views - (TraceMeasurements.maxViewRows - 1)
            let other = TraceMeasurements.otherViewsName.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(value(try await history("metric=body-count&view=\(other)")) == rest)
            #expect(value(try await history("metric=body-time-total&view=\(other)")) == (0..<rest).reduce(0) { $0 + 10_000 + $1 })
            #expect(value(try await history("metric=body-count&view=Cell0View")) == 0)
            // A trace metric reads no view rows and still answers.
            #expect(value(try await history("metric=update-count")) == views)
        }
    }
}
