import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TraceServer
@testable import TraceStorage

/// Quotas by tag through the API (docs/deploy.md, "Quotas by tag"): a clear 403 naming the tag and
/// the quota, nothing stored; the engines' own check is `TagQuotaContract`.
struct TagQuotaTests {
    @Test func quotasReadAsGivenAndBadOnesSayWhy() throws {
        let perProject = try TagQuota(parsing: "project=*:2000 traces")
        #expect(perProject.selector == .key("project") && perProject.maxTraces == 2000 && perProject.maxBytes == nil)
        #expect(try TagQuota(parsing: "project=pantry:10 GB").maxBytes == 10 << 30)
        #expect(try TagQuota(parsing: "nightly:500MB").selector == .tag(try TraceTag(parsing: "nightly")))
        #expect(try TagQuota(parsing: "commit=ab:cd:3 traces").selector == .tag(try TraceTag(parsing: "commit:ab:cd")))
        #expect(perProject.tags(among: ["project:pantry", "projects:x", "branch:main", "project"]) == ["project:pantry"])
        for bad in ["project=*", "project=*:", "project=*:0 traces", "project=*:-3 traces", "project=*:12", "project=*:3 apples", "project=*:10PB",
                    "Bad=*:1 trace", "=x:1 trace", "project=*:99999999999TB"] {
            #expect(throws: TagQuotaError.self, "\(bad)") { try TagQuota(parsing: bad) }
        }
    }

    @Test func anUploadPastItsTagsQuotaIs403NamingBothAndStoresNothing() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var options = scratch.options()
        options.tagQuotas = try ["project=*:2 traces", "size=big:1KB"].map(TagQuota.init(parsing:))
        try await scratch.withServer(options) { client in
            func upload(build: Int, tags: [String]) async throws -> TestResponse {
                try await client.execute(uri: "/api/traces?name=recipes-\(build).json" + tags.map { "&tag=\($0)" }.joined(), method: .post,
                                         headers: [.contentType: "application/json"], body: ByteBuffer(string: recipesTrace(build: build, bodyNs: 300_000)))
            }
            #expect(try await upload(build: 1, tags: ["project:pantry"]).status == .created)
            #expect(try await upload(build: 2, tags: ["project:pantry", "branch:main"]).status == .created)
            let refused = try await upload(build: 3, tags: ["project:pantry", "branch:main"])
            try expectError(refused, .forbidden)
            let error = try refused.json()
            #expect(error["error"] as? String == "tag quota exceeded")
            #expect(error["detail"] as? String == "The tag 'project:pantry' is at its quota (--tag-quota 'project=*:2 traces'): it holds 2 traces, at most 2. Delete some of its traces or ask for a larger quota.")
            // Nothing of it was stored: the list, the tag's traces and the incoming folder are as before.
            #expect(try await client.get("/api/traces?limit=10&tag=branch:main").json()["total"] as? Int == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.dataDirectory.appendingPathComponent("incoming").path).isEmpty)
            // Another project has its own count; the same content again is no new trace.
            #expect(try await upload(build: 3, tags: ["project:trips"]).status == .created)
            #expect(try await upload(build: 1, tags: ["project:pantry"]).status == .ok)
            // A size quota names the sizes.
            let big = try await upload(build: 4, tags: ["size:big"])
            try expectError(big, .forbidden)
            #expect((try big.json()["detail"] as? String)?.contains("its traces hold 0KB; this one's") == true)
            #expect((try big.json()["detail"] as? String)?.contains("more would pass 1KB") == true)

            // A tag edit into the full project is refused the same way; the trace keeps its tags.
            let trips = try #require(try await client.get("/api/traces?tag=project:trips").json()["traces"] as? [[String: Any]]).first
            let tripsID = try #require(trips?["id"] as? String)
            let edit = try await client.execute(uri: "/api/traces/\(tripsID)", method: .patch, headers: [.contentType: "application/json"],
                                                body: ByteBuffer(string: #"{"add": ["project:pantry"]}"#))
            try expectError(edit, .forbidden)
            #expect(try edit.json()["detail"] as? String == "The tag 'project:pantry' is at its quota (--tag-quota 'project=*:2 traces'): it holds 2 traces, at most 2. Delete some of its traces or ask for a larger quota.")
            #expect(try await client.get("/api/traces/\(tripsID)").json()["tags"] as? [String] == ["project:trips"])
            // An edit of a trace's other tags inside its full project passes.
            let pantry = try #require(try await client.get("/api/traces?tag=project:pantry&limit=1").json()["traces"] as? [[String: Any]]).first
            let kept = try await client.execute(uri: "/api/traces/\(try #require(pantry?["id"] as? String))", method: .patch,
                                                headers: [.contentType: "application/json"], body: ByteBuffer(string: #"{"add": ["nightly"]}"#))
            #expect(kept.status == .ok)
        }
    }
}
