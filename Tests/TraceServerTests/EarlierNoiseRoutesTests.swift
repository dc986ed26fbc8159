import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TraceServer

/// Issue 40: one recording a side takes its run-to-run noise from earlier recordings with the same
/// tags, through the API (`GET /api/compare`, `GET /api/noise`) and the CLI (`check --baseline-tags`).
@Suite struct EarlierNoiseRoutesTests {
    /// Eight builds of a quiet device: RecipeRowView's bodies within ±3 % of 300 µs.
    static let quietBodies = [300_000, 309_000, 294_000, 303_000, 297_000, 306_000, 291_000, 300_000]

    @Test func aCompareOfOneRecordingASideSaysItsNoiseCameFromEarlierRecordingsAndTellsWhatThePriorCannot() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let tags = "tag=scenario:recipes&tag=branch:main&tag=device:ipad"
            for (index, body) in Self.quietBodies.enumerated() {
                _ = try await client.uploadedID(recipesTrace(build: index + 1, bodyNs: body), name: "recipes-\(index + 1).json&\(tags)&tag=build:\(index + 1)")
            }
            let before = try await client.uploadedID(recipesTrace(build: 9, bodyNs: 300_000), name: "recipes-9.json&\(tags)&tag=build:9")
            let after = try await client.uploadedID(recipesTrace(build: 10, bodyNs: 405_000), name: "recipes-10.json&\(tags)&tag=build:10")
            // Untagged copies of the same two recordings: nothing earlier to read, the prior.
            let plainBefore = try await client.uploadedID(recipesTrace(build: 11, bodyNs: 300_000), name: "plain-a.json")
            let plainAfter = try await client.uploadedID(recipesTrace(build: 12, bodyNs: 405_000), name: "plain-b.json")

            let compared = try await client.get("/api/compare?a=\(before)&b=\(after)")
            #expect(compared.status == .ok, "\(compared.text)")
            let noise = try #require(try compared.json()["noise"] as? [String: Any])
            #expect(noise["source"] as? String == "history")
            #expect(noise["earlierRecordings"] as? Int == 8, "the 8 uploaded before, not the compared two: \(noise)")
            #expect((noise["text"] as? String)?.hasPrefix("noise from 8 earlier recordings tagged branch=main, device=ipad, scenario=recipes") == true, "\(noise)")
            let row = try #require((try compared.json()["views"] as? [[String: Any]])?.first { $0["view"] as? String == "RecipeRowView" })
            #expect(row["speedChange"] as? String == "slower", "1.35x beyond a quiet device's noise: \(row["recordings"] ?? "")")

            let plain = try await client.get("/api/compare?a=\(plainBefore)&b=\(plainAfter)")
            let plainNoise = try #require(try plain.json()["noise"] as? [String: Any])
            #expect(plainNoise["source"] as? String == "prior")
            let plainRow = try #require((try plain.json()["views"] as? [[String: Any]])?.first { $0["view"] as? String == "RecipeRowView" })
            #expect(plainRow["speedChange"] as? String == "same", "one recording a side against the 12 % prior cannot tell 1.35x")

            // The noise itself, as check --baseline-tags asks for it.
            let asked = try await client.get("/api/noise?tag=scenario:recipes&tag=branch:main&exclude=\(after)")
            #expect(asked.status == .ok, "\(asked.text)")
            let earlier = try #require(try asked.json()["earlier"] as? [String: Any])
            #expect(earlier["recordings"] as? Int == 9 && earlier["tags"] as? [String] == ["branch:main", "scenario:recipes"])
            let sigma = try #require((earlier["noise"] as? [String: Any])?["sigma"] as? Double)
            #expect(sigma < 0.08, "a quiet device: σ \(sigma)")
            #expect(try await client.get("/api/noise?tag=scenario:nothing").json()["earlier"] is NSNull)
            try expectError(try await client.get("/api/noise"), .badRequest)
        }
    }

    @Test func checkWithBaselineTagsJudgesOneBaselineAgainstTheServersEarlierRecordings() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try LiveServerTests.Server(dataDirectory: scratch.dataDirectory, scratch: scratch)
        defer { _ = server.stop() }
        let folder = try CheckTests.Folder()
        let root = server.base.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        var newest = ""
        for (index, body) in Self.quietBodies.enumerated() {
            newest = try folder.file("main-\(index + 1).json", recipesTrace(build: index + 1, bodyNs: body))
            let run = try CheckTests.tracesvc(["upload", newest, "--server", root, "--tag", "branch=main", "--tag", "scenario=recipes", "--tag", "build=\(index + 1)"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        // A pull request's rows 1.35x slower: beyond the server's noise for this scenario.
        let checked = try folder.file("pr.json", recipesTrace(build: 20, bodyNs: 405_000))
        let run = try CheckTests.tracesvc(["check", checked, "--server", root, "--baseline-tags", "branch=main,scenario=recipes", "--format", "json"])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let time = try #require(try CheckTests.results(CheckTests.json(run.stdout)).first { $0["metric"] as? String == "baseline-body-time" })
        #expect(time["passed"] as? Bool == false)
        let notes = time["notes"] as? [String] ?? []
        #expect(notes.contains { $0.contains("noise from 8 earlier recordings tagged branch=main, scenario=recipes") }, "\(notes)")

        // The same newest baseline as a file: one recording a side against the default prior, which cannot tell it.
        let local = try CheckTests.tracesvc(["check", checked, "--baseline", newest, "--format", "json"])
        #expect(local.status == 0, "\(local.stdout)\(local.stderr)")
        let localTime = try #require(try CheckTests.results(CheckTests.json(local.stdout)).first { $0["metric"] as? String == "baseline-body-time" })
        #expect((localTime["notes"] as? [String] ?? []).contains { $0.contains("the default prior") })
    }
}
