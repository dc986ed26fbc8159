import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TraceFormats
import TraceSamples
@testable import TraceServer

/// Signpost lanes in the trace info and the timeline, and one signpost's details.
@Suite struct SignpostRoutesTests {
    static let trace = String(decoding: SampleTraces.fileContents(of: "landmarks-favorites-slow"), as: UTF8.self)

    @Test func signpostLanesAreListedDrawnAndOpen() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(Self.trace, name: "favorites.json")
            let info = try await client.get("/api/traces/\(id)").json()
            let lanes = try #require(info["lanes"] as? [[String: Any]])
            let signpostLanes = lanes.filter { $0["signposts"] as? Bool == true }
            #expect(signpostLanes.map { $0["id"] as? String } == ["signposts-0", "signposts-1"])
            #expect(signpostLanes.map { $0["title"] as? String } == [
                "Points of Interest · com.example.apple-samplecode.Landmarks", "Images · com.example.apple-samplecode.Landmarks",
            ])
            #expect(signpostLanes.first?["count"] as? Int == 3)
            let hangs = try #require(lanes.first { $0["id"] as? String == "hangs" })
            #expect(["signposts", "level", "groupSignposts"].allSatisfy { hangs[$0] is NSNull }, "fixed lanes: null, as every absent value")

            let timeline = try await client.get("/api/traces/\(id)/timeline?lanes=signposts-0&width=4000").json()
            let events = try #require(((timeline["lanes"] as? [String: Any])?["signposts-0"] as? [String: Any])?["events"] as? [[String: Any]])
            #expect(events.map { $0["label"] as? String } == [
                "Load Landmarks: 12 of 15 landmarks visible", "Favorite Tap: Muir Woods", "Favorite Tap: Mount Fuji",
            ])
            let row = try #require(events[1]["signpost"] as? Int)
            #expect(events[1]["update"] == nil)

            let detail = try await client.get("/api/traces/\(id)/signposts/\(row)").json()
            #expect(detail["name"] as? String == "Favorite Tap")
            #expect(detail["category"] as? String == "PointsOfInterest")
            #expect(detail["kind"] as? String == "interval")
            #expect(detail["beginMessage"] as? String == "Muir Woods" && detail["endMessage"] as? String == "12 rows updated")
            #expect(detail["lane"] as? String == "signposts-0")
            #expect((detail["process"] as? [String: Any])?["name"] as? String == "Landmarks")

            // Without lanes=, every lane comes back, the signpost lanes too.
            let all = try await client.get("/api/traces/\(id)/timeline?width=100").json()
            #expect((all["lanes"] as? [String: Any])?.keys.contains("signposts-1") == true)
        }
    }

    @Test func badSignpostRequestsAre4xx() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(Self.trace, name: "favorites.json")
            try expectError(try await client.get("/api/traces/\(id)/signposts/999"), .notFound)
            try expectError(try await client.get("/api/traces/\(id)/signposts/abc"), .badRequest)
            // A signpost lane this trace does not have.
            try expectError(try await client.get("/api/traces/\(id)/timeline?lanes=signposts-5"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/timeline?lanes=signposts-x"), .badRequest)
            let other = try await client.uploadedID(String(decoding: SampleTraces.fileContents(of: "environment-color-scheme"), as: UTF8.self), name: "env.json")
            try expectError(try await client.get("/api/traces/\(other)/signposts/0"), .notFound)
            try expectError(try await client.get("/api/traces/\(other)/timeline?lanes=signposts-0"), .badRequest)
        }
    }
}
