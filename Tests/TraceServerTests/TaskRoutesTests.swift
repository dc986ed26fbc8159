import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TraceFormats
import TraceSamples
@testable import TraceServer

/// The Swift concurrency routes: a lane's intervals, one interval with its task, the summary.
@Suite struct TaskRoutesTests {
    static let trace = String(decoding: SampleTraces.fileContents(of: "landmarks-concurrency-slow"), as: UTF8.self)

    @Test func aWaitOpensItsTaskAndTheSummaryNamesTheLoader() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(Self.trace, name: "concurrency.json")
            let info = try await client.get("/api/traces/\(id)").json()
            let lanes = try #require(info["lanes"] as? [[String: Any]])
            let waits = try #require(lanes.first { $0["id"] as? String == "main-actor-waits" })
            #expect(waits["count"] as? Int == 4 && waits["red"] as? Int == 1)

            let list = try await client.get("/api/traces/\(id)/task-states?lane=main-actor-waits&start=1000000000&end=1130000000").json()
            let rows = try #require(list["rows"] as? [[String: Any]])
            #expect(list["count"] as? Int == 4)
            #expect(rows.first?["task"] as? String == "View.task @ Landmarks/MapView.swift:31")
            #expect(rows.first?["severity"] as? String == "red")
            let row = try #require(rows.first?["row"] as? Int)

            let detail = try await client.get("/api/traces/\(id)/task-states/\(row)").json()
            #expect(detail["state"] as? String == "enqueued")
            #expect(detail["actor"] as? String == "Main Actor (0x600001f04000)")
            #expect((detail["task"] as? [String: Any])?["id"] as? Int == 503)
            #expect((detail["states"] as? [[String: Any]])?.map { $0["state"] as? String } == ["creating", "enqueued", "running"])
            #expect(detail["waitingFor"] is NSNull)

            let summary = try await client.get("/api/traces/\(id)/tasks/summary").json()
            let top = try #require((summary["rows"] as? [[String: Any]])?.first)
            #expect(top["resumeFunction"] as? String == "LandmarkImageLoader.loadImages(for:)")
            #expect(top["running"] as? Int == 120_000_000 && top["isMainActor"] as? Bool == true)
            let ranged = try await client.get("/api/traces/\(id)/tasks/summary?start=0&end=900000000").json()
            #expect((ranged["rows"] as? [Any])?.isEmpty == true, "nothing ran before the landmark opened")
        }
    }

    @Test func badTaskRequestsAre4xx() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(Self.trace, name: "concurrency.json")
            try expectError(try await client.get("/api/traces/\(id)/task-states/999999"), .notFound)
            try expectError(try await client.get("/api/traces/\(id)/task-states/-1"), .notFound)
            try expectError(try await client.get("/api/traces/\(id)/task-states/abc"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/task-states?lane=hangs&start=0&end=10"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/task-states?lane=main-actor"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/task-states?lane=main-actor&start=10&end=5"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/tasks/summary?start=10"), .badRequest)
            // A trace without tasks answers with empty lists.
            let other = try await client.sampleID()
            let empty = try await client.get("/api/traces/\(other)/task-states?lane=main-actor&start=0&end=1000000000").json()
            #expect(empty["count"] as? Int == 0)
            try expectError(try await client.get("/api/traces/\(other)/task-states/0"), .notFound)
        }
    }
}
