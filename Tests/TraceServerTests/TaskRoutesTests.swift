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

    /// Another app (Harbor: its own task, actor and view names) through the routes the browser
    /// reads: the main-actor findings, the task in the update's cause graph, the compare rows.
    @Test func anotherAppsMainActorWorkReadsThroughTheAPI() async throws {
        let fixtures = LiveServerTests.packageRoot.appendingPathComponent("Tests/Fixtures")
        let slowText = try String(contentsOf: fixtures.appendingPathComponent("harbor-conversation.json"), encoding: .utf8)
        let fixedText = try String(contentsOf: fixtures.appendingPathComponent("harbor-conversation-fixed.json"), encoding: .utf8)
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let slow = try await client.uploadedID(slowText, name: "harbor.json")
            let fixed = try await client.uploadedID(fixedText, name: "harbor-fixed.json")

            let findings = try #require(try await client.get("/api/traces/\(slow)/findings").json()["findings"] as? [[String: Any]])
            let blocked = try #require(findings.first { $0["kind"] as? String == "main-actor-blocked" })
            #expect((blocked["title"] as? String)?.hasPrefix("MessageStore.decodeHistory() ran on the Main Actor for 45.0 ms in Task 7002 (created by View.task @ Harbor/ConversationView.swift:44)") == true)
            let subjects = try #require(blocked["subjects"] as? [[String: Any]]).map { "\($0["role"] ?? ""): \($0["name"] ?? "")" }
            #expect(subjects.contains("task: Task 7002") && subjects.contains("function: MessageStore.decodeHistory()"))
            // The decode, the wait behind it and the hitch it caused are one incident: the wait and the hitch are its parts.
            let parts = try #require(blocked["parts"] as? [[String: Any]])
            #expect(parts.map { $0["kind"] as? String } == ["main-actor-blocked", "hitch-explained", "main-actor-wait"])
            #expect(!findings.contains { ["main-actor-wait", "hitch-explained"].contains($0["kind"] as? String) })
            let wait = try #require(parts.first { $0["kind"] as? String == "main-actor-wait" })
            #expect((wait["title"] as? String)?.hasPrefix("View.task @ Harbor/ComposerView.swift:19 waited 40.0 ms for the Main Actor while Task 7002 ran") == true)
            let hitch = try #require(parts.first { $0["kind"] as? String == "hitch-explained" })
            #expect((hitch["title"] as? String)?.contains("Task 7002") == true && (hitch["savingNs"] as? Int ?? 0) > 40_000_000)
            let fixedFindings = try #require(try await client.get("/api/traces/\(fixed)/findings").json()["findings"] as? [[String: Any]])
            #expect(!fixedFindings.contains { ($0["kind"] as? String)?.hasPrefix("main-actor") == true })

            // The task that wrote the state is a cause before it; its node carries the row to open.
            let update = try #require((blocked["evidence"] as? [String: Any])?["representativeUpdate"] as? Int)
            let graph = try await client.get("/api/traces/\(slow)/updates/\(update)/graph").json()
            let nodes = try #require(graph["nodes"] as? [[String: Any]])
            let edges = try #require(graph["edges"] as? [[String: Any]])
            let id = { (title: String) in nodes.first { $0["title"] as? String == title }?["id"] as? String }
            let run = try #require(nodes.first { $0["title"] as? String == "Task 7002" })
            #expect(run["kind"] as? String == "swift-task" && run["subtitle"] as? String == "ran 45.0 ms on the Main Actor")
            #expect(((run["task"] as? [String: Any])?["taskState"] as? Int) != nil)
            let chain = { (from: String?, to: String?) in edges.first { $0["from"] as? String == from && $0["to"] as? String == to }?["label"] as? String }
            #expect(chain(id("View.task @ Harbor/ConversationView.swift:44"), id("Task 7002")) == "creation")
            #expect(chain(id("Task 7002"), id("@State messages")) == "wrote")
            #expect(chain(id("@State messages"), id("ConversationView")) == "update")
            #expect(chain(id("Task 7002"), id("View.task @ Harbor/ComposerView.swift:19")) == "waited")

            // Comparing: the Main Actor freed, and a view that followed the frames is no regression.
            let comparison = try await client.get("/api/compare?a=\(slow)&b=\(fixed)").json()
            let mainActor = try #require(comparison["mainActor"] as? [[String: Any]])
            #expect(mainActor.map { $0["name"] as? String } == ["main-actor-busy", "main-actor-waiting", "main-actor-longest-wait"])
            #expect(mainActor.allSatisfy { $0["changeText"] as? String == "better" })
            #expect((comparison["frames"] as? [String: Any])?["changeText"] as? String == "more frames drawn: +3")
            let views = try #require(comparison["views"] as? [[String: Any]])
            #expect(views.first { $0["view"] as? String == "ScrollView" }?["change"] as? String == "follows-frames")
            #expect(!views.contains { $0["change"] as? String == "regressed" })
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
