import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TraceServer
@testable import TraceStorage
import TraceFormats

/// A trace of a recipes app (not Landmarks): `bodies` view-body updates of RecipeRowView lasting
/// `bodyNs` each (give or take a little, so no two builds are the same file), and a HeaderView.
func recipesTrace(build: Int, bodyNs: Int, bodies: Int = 12) -> String {
    var rows: [String] = []
    for i in 0..<bodies {
        let jitter = ((build * 7919 + i * 104_729) % 41) * 1_000
        rows.append("[\(1_000_000 + i * 2_000_000 + build),\(bodyNs + jitter),\"view-body\",\"Recipes\",\"RecipeRowView\",\"\",\"\",0,0,0,\"none\"]")
    }
    rows.append("[\(40_000_000 + build),20000,\"view-body\",\"Recipes\",\"HeaderView\",\"\",\"\",0,0,0,\"none\"]")
    let end = 60_000_000
    return """
    {"format":"tracesvc-trace","version":1,
    "metadata":{"app":"Recipes","device":"iPad Pro","osVersion":"18.0","refreshRate":120,"recordedAt":null,"start":0,"end":\(end),"importNotes":[]},
    "processes":[[42,"Recipes"]],
    "threads":[[7,"Main Thread",0,true]],
    "updateGroups":[[900000,\(end - 1_000_000),"Transaction",0]],
    "updates":[\(rows.joined(separator: ","))],
    "nodes":[], "edges":[], "frames":[], "stacks":[], "samples":[]
    }
    """
}

extension TestClientProtocol {
    func json(_ method: HTTPRequest.Method, _ uri: String, _ body: String) async throws -> TestResponse {
        try await execute(uri: uri, method: method, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
    }

    func list(_ query: String) async throws -> [String: Any] {
        let response = try await get("/api/traces?\(query)")
        #expect(response.status == .ok, "\(response.text)")
        return try response.json()
    }
}

@Suite struct HistoryRoutesTests {
    @Test func uploadsCarryValidatedTagsThatTheListFiltersBy() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let first = try await client.upload(recipesTrace(build: 1, bodyNs: 300_000), name: "scroll.json&tag=branch:main&tag=scenario:scroll&tag=nightly")
            #expect(first.status == .created, "\(first.text)")
            let trace = try #require(try first.json()["trace"] as? [String: Any])
            #expect(trace["tags"] as? [String] == ["branch:main", "nightly", "scenario:scroll"])
            let id = try #require(trace["id"] as? String)
            _ = try await client.uploadedID(recipesTrace(build: 2, bodyNs: 300_000), name: "open.json&tag=branch:feature/x%2By&tag=scenario:open")

            // A bad tag is a 400 naming it, before the body is read: nothing is stored.
            for bad in ["Branch:main", "branch:", "branch:has%20space", "a:b&tag=a:c", ":x"] {
                let refused = try await client.upload(recipesTrace(build: 3, bodyNs: 300_000), name: "bad.json&tag=\(bad)")
                try expectError(refused, .badRequest)
                #expect(try refused.json()["error"] as? String == "bad tag")
                #expect((try refused.json()["detail"] as? String)?.contains("tag '") == true)
            }
            #expect((try await client.list("")["traces"] as? [[String: Any]])?.count == 3)
            #expect(try await client.list("")["total"] as? Int == 3)

            let main = try await client.list("tag=branch:main&limit=10")
            #expect((main["traces"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
            #expect(main["total"] as? Int == 1)
            #expect(try await client.list("tag=branch:feature/x%2By&limit=10")["total"] as? Int == 1)
            #expect(try await client.list("tag=branch:main&tag=scenario:open&limit=10")["total"] as? Int == 0)
            // Words match tags, names and the app; the sample matches "sample" and no tag filter.
            #expect(try await client.list("q=SCROLL%20recipes&limit=10")["total"] as? Int == 1)
            #expect(try await client.list("q=sample&limit=10")["total"] as? Int == 1)
            #expect(try await client.list("name=open&limit=10")["total"] as? Int == 1)
            let today = String(CatalogEntry.iso8601(micros: CatalogEntry.nowMicros()).prefix(10))
            #expect(try await client.list("from=\(today)&to=\(today)&limit=10")["total"] as? Int == 2)
            #expect(try await client.list("to=2000-01-01&limit=10")["total"] as? Int == 0)
            try expectError(try await client.get("/api/traces?from=yesterday"), .badRequest)
            try expectError(try await client.get("/api/traces?sort=colour"), .badRequest)

            // Sorted by name, a page at a time: the cursor carries the name.
            let byName = try await client.list("sort=name&limit=1")
            #expect((byName["traces"] as? [[String: Any]])?.first?["name"] as? String == "open")
            let cursor = try #require(byName["nextCursor"] as? String)
            try expectError(try await client.get("/api/traces?limit=1&cursor=\(cursor)"), .badRequest)
            let second = try await client.list("sort=name&limit=1&cursor=\(cursor)")
            #expect((second["traces"] as? [[String: Any]])?.first?["name"] as? String == "scroll")

            // The same file again with another value of a key it has: refused, nothing changed,
            // the conflict named (no tag moves silently); with retag=1 the key takes its new value.
            let moved = try await client.upload(recipesTrace(build: 1, bodyNs: 300_000), name: "again.json&tag=branch:release")
            #expect(moved.status == .conflict)
            let refused = try #require(try moved.json()["tagOutcome"] as? [String: Any])
            #expect((refused["conflicts"] as? [[String: String]]) == [["from": "branch:main", "to": "branch:release"]])
            #expect(try await client.get("/api/traces/\(id)").json()["tags"] as? [String] == ["branch:main", "nightly", "scenario:scroll"])
            let again = try await client.upload(recipesTrace(build: 1, bodyNs: 300_000), name: "again.json&tag=branch:release&retag=1")
            #expect(again.status == .ok)
            #expect((try again.json()["tagOutcome"] as? [String: Any])?["moved"] as? [[String: String]] == [["from": "branch:main", "to": "branch:release"]])
            #expect((try again.json()["trace"] as? [String: Any])?["tags"] as? [String] == ["branch:release", "nightly", "scenario:scroll"])
            let info = try await client.get("/api/traces/\(id)").json()
            #expect(info["tags"] as? [String] == ["branch:release", "nightly", "scenario:scroll"])
        }
    }

    @Test func writeTokenHoldersEditTags() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(recipesTrace(build: 1, bodyNs: 300_000), name: "t.json&tag=branch:main&tag=nightly")
            let replaced = try await client.json(.patch, "/api/traces/\(id)", #"{"tags": ["scenario:scroll", "build:7"]}"#)
            #expect(replaced.status == .ok, "\(replaced.text)")
            #expect(try replaced.json()["tags"] as? [String] == ["build:7", "scenario:scroll"])
            let edited = try await client.json(.patch, "/api/traces/\(id)", #"{"add": ["build:8", "device:ipad"], "remove": ["scenario"]}"#)
            #expect(try edited.json()["tags"] as? [String] == ["build:8", "device:ipad"])
            try expectError(try await client.json(.patch, "/api/traces/\(id)", #"{"tags": ["x y"]}"#), .badRequest)
            try expectError(try await client.json(.patch, "/api/traces/\(id)", #"{"tags": "branch:main"}"#), .badRequest)
            try expectError(try await client.execute(uri: "/api/traces/\(id)", method: .patch, headers: [.contentType: "text/plain"], body: ByteBuffer(string: "{}")), .unsupportedMediaType)
            try expectError(try await client.json(.patch, "/api/traces/\(try await client.sampleID())", #"{"tags": ["a"]}"#), .forbidden)
            try expectError(try await client.json(.patch, "/api/traces/\(String(repeating: "e", count: 32))", #"{"tags": ["a"]}"#), .notFound)
        }
    }

    @Test func aServerOnTheNetworkWantsItsTokenForEveryWrite() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var options = scratch.options()
        options.access = AccessPolicy(writeToken: "sesame")
        try await scratch.withServer(options) { client in
            let upload = try await client.execute(uri: "/api/traces?name=t.json&tag=a:b", method: .post,
                                                  headers: [.contentType: "application/json", .authorization: "Bearer sesame"],
                                                  body: ByteBuffer(string: recipesTrace(build: 1, bodyNs: 1)))
            let id = try #require((try upload.json()["trace"] as? [String: Any])?["id"] as? String)
            try expectError(try await client.json(.patch, "/api/traces/\(id)", #"{"tags": []}"#), .unauthorized)
            try expectError(try await client.json(.post, "/api/traces/\(id)/notes", #"{"target": {"kind": "update", "update": 0}, "text": "x"}"#), .unauthorized)
            try expectError(try await client.json(.post, "/api/traces/\(id)/checks", #"{"passed": true, "failedRules": 0, "rules": 1, "summary": "ok"}"#), .unauthorized)
        }
    }

    @Test func notesAreKeptWithTheTraceAndRefuseWhatTheyCannotBe() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(recipesTrace(build: 1, bodyNs: 300_000), name: "t.json")
            let added = try await client.json(.post, "/api/traces/\(id)/notes", #"{"target": {"kind": "update", "update": 12}, "text": "  fixed in #1234: <b>cached</b> the formatter \n"}"#)
            #expect(added.status == .created, "\(added.text)")
            let note = try added.json()
            #expect(note["text"] as? String == "fixed in #1234: <b>cached</b> the formatter")
            let noteID = try #require(note["id"] as? String)
            #expect(noteID.count == 16)
            #expect((note["target"] as? [String: Any])?["update"] as? Int == 12)
            #expect((note["target"] as? [String: Any])?["finding"] is NSNull)
            #expect(try await client.json(.post, "/api/traces/\(id)/notes", #"{"target": {"kind": "range", "start": 100, "end": 2000}, "text": "slow here"}"#).status == .created)
            #expect(try await client.json(.post, "/api/traces/\(id)/notes", #"{"target": {"kind": "finding", "finding": "long-body:Recipes.RecipeRowView"}, "text": "known"}"#).status == .created)

            try expectError(try await client.json(.post, "/api/traces/\(id)/notes", #"{"target": {"kind": "update", "update": 13}, "text": "x"}"#), .notFound)
            try expectError(try await client.json(.post, "/api/traces/\(id)/notes", #"{"target": {"kind": "range", "start": 5, "end": 5}, "text": "x"}"#), .badRequest)
            try expectError(try await client.json(.post, "/api/traces/\(id)/notes", #"{"target": {"kind": "frame"}, "text": "x"}"#), .badRequest)
            try expectError(try await client.json(.post, "/api/traces/\(id)/notes", #"{"target": {"kind": "update", "update": 1}, "text": "   "}"#), .badRequest)
            try expectError(try await client.json(.post, "/api/traces/\(id)/notes", #"{"target": {"kind": "update", "update": 1}, "text": "evil \u202e txt"}"#), .badRequest)
            try expectError(try await client.json(.post, "/api/traces/\(id)/notes", "{\"target\": {\"kind\": \"update\", \"update\": 1}, \"text\": \"\(String(repeating: "a", count: 501))\"}"), .badRequest)
            try expectError(try await client.json(.post, "/api/traces/\(id)/notes", #"{"text": "no target"}"#), .badRequest)
            try expectError(try await client.json(.post, "/api/traces/\(try await client.sampleID())/notes", #"{"target": {"kind": "update", "update": 1}, "text": "x"}"#), .forbidden)

            let notes = try #require(try await client.get("/api/traces/\(id)/notes").json()["notes"] as? [[String: Any]])
            #expect(notes.map { ($0["target"] as? [String: Any])?["kind"] as? String } == ["update", "range", "finding"])
            #expect(try await client.execute(uri: "/api/traces/\(id)/notes/\(noteID)", method: .delete).status == .noContent)
            try expectError(try await client.execute(uri: "/api/traces/\(id)/notes/\(noteID)", method: .delete), .notFound)
            #expect((try await client.get("/api/traces/\(id)/notes").json()["notes"] as? [[String: Any]])?.count == 2)
            // A deleted trace takes its notes along.
            #expect(try await client.execute(uri: "/api/traces/\(id)", method: .delete).status == .noContent)
            try expectError(try await client.get("/api/traces/\(id)/notes"), .notFound)
        }
    }

    /// Notes posted at once never pass the cap (issue 39: 203 of 200 were kept).
    @Test func notesPostedAtOnceStopAtTheCap() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(recipesTrace(build: 2, bodyNs: 300_000), name: "capped.json")
            let posts = TraceNote.maxPerTrace + 40
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for n in 0..<posts {
                    group.addTask { try await client.json(.post, "/api/traces/\(id)/notes", #"{"target": {"kind": "update", "update": 1}, "text": "note \#(n)"}"#).status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == TraceNote.maxPerTrace)
            #expect(statuses.filter { $0 == .conflict }.count == 40)
            let notes = try #require(try await client.get("/api/traces/\(id)/notes").json()["notes"] as? [[String: Any]])
            #expect(notes.count == TraceNote.maxPerTrace)
            let refused = try await client.json(.post, "/api/traces/\(id)/notes", #"{"target": {"kind": "update", "update": 1}, "text": "one more"}"#)
            #expect(refused.status == .conflict)
            #expect(refused.text.contains("too many notes") && refused.text.contains(id), "\(refused.text)")
        }
    }

    @Test func theFileComesBackAsItWasUploaded() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let text = recipesTrace(build: 4, bodyNs: 1000)
            let id = try await client.uploadedID(text, name: "r%C3%A9sum%C3%A9%20\"x\".json")
            let file = try await client.get("/api/traces/\(id)/file")
            #expect(file.status == .ok)
            #expect(String(buffer: file.body) == text)
            #expect(file.headers[.contentType] == "application/octet-stream")
            #expect(file.headers[.contentDisposition] == "attachment; filename=\"r_sum___x_\"")
            #expect(file.headers[.traceRun] == nil)
            try expectError(try await client.get("/api/traces/\(String(repeating: "e", count: 32))/file"), .notFound)
        }
    }

    /// A stored file changed on disk is refused with an error naming the trace, never served
    /// (issue 39: embedded mode served the changed bytes; team mode refused them).
    @Test func aDamagedStoredFileIsNotServed() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let text = recipesTrace(build: 5, bodyNs: 2000)
            let id = try await client.uploadedID(text, name: "damaged.json")
            let blobs = scratch.dataDirectory.appendingPathComponent("blobs", isDirectory: true)
            let stored = try #require(try FileManager.default.contentsOfDirectory(atPath: blobs.path).filter { $0.count == 64 }.first)
            // One byte changed, the size kept: a flipped bit on disk.
            var bytes = try Data(contentsOf: blobs.appendingPathComponent(stored))
            bytes[bytes.count / 2] ^= 0x20
            try bytes.write(to: blobs.appendingPathComponent(stored))
            let file = try await client.get("/api/traces/\(id)/file")
            #expect(file.status == .conflict)
            #expect(file.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(file.text.contains("stored file changed") && file.text.contains(id), "\(file.text)")
            #expect(!file.text.contains("RecipeRowView"), "none of the stored bytes")
        }
    }

    /// 30 builds of one scenario; RecipeRowView's bodies take 300 µs up to build 19 and 1.5 ms
    /// from build 20 (its long-body finding with them); build 25 was uploaded twice.
    @Test func theHistoryNamesTheFirstBadBuildAndFollowsTheFindings() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            var ids: [Int: String] = [:]
            for build in 1...30 {
                let tags = "tag=scenario:scroll&tag=branch:main&tag=build:\(build)&tag=commit:c\(String(format: "%04d", 31 - build))"
                ids[build] = try await client.uploadedID(recipesTrace(build: build, bodyNs: build < 20 ? 300_000 : 1_500_000), name: "run-\(build).json&\(tags)")
            }
            _ = try await client.uploadedID(recipesTrace(build: 125, bodyNs: 1_500_000), name: "run-25b.json&tag=scenario:scroll&tag=branch:main&tag=build:25")
            _ = try await client.uploadedID(recipesTrace(build: 99, bodyNs: 9_000_000), name: "other.json&tag=scenario:open&tag=branch:main")
            let verdict = try await client.json(.post, "/api/traces/\(ids[20]!)/checks",
                                                #"{"passed": false, "failedRules": 1, "rules": 3, "baselineId": "\#(ids[19]!)", "summary": "1 of 3 rules failed"}"#)
            #expect(verdict.status == .created, "\(verdict.text)")

            let answer = try await client.get("/api/history?tag=scenario:scroll&tag=branch:main&view=RecipeRowView")
            #expect(answer.status == .ok, "\(answer.text)")
            let history = try answer.json()
            #expect((history["metric"] as? [String: Any])?["name"] as? String == "body-time-total")
            #expect(history["matched"] as? Int == 31 && history["shown"] as? Int == 31 && history["pending"] as? Int == 0)
            let builds = try #require(history["builds"] as? [[String: Any]])
            #expect(builds.map { $0["label"] as? String } == (1...30).map(String.init))
            #expect((builds[24]["traces"] as? [[String: Any]])?.count == 2)
            let firstBad = try #require(history["firstBad"] as? [String: Any])
            #expect(firstBad["label"] as? String == "20")
            #expect(firstBad["traceId"] as? String == ids[20])
            #expect(firstBad["previousLabel"] as? String == "19" && firstBad["previousTraceId"] as? String == ids[19])
            #expect(firstBad["direction"] as? String == "up")
            #expect(firstBad["commit"] as? String == "c0011")
            #expect((history["changePoints"] as? [[String: Any]])?.count == 1)
            let point20 = try #require((builds[19]["traces"] as? [[String: Any]])?.first)
            #expect((point20["check"] as? [String: Any])?["passed"] as? Bool == false)
            #expect((builds[18]["traces"] as? [[String: Any]])?.first?["check"] is NSNull)
            // The value is the view's total body time, as the comparison counts it.
            let before = try #require((builds[0]["traces"] as? [[String: Any]])?.first?["value"] as? Int)
            #expect((3_600_000...4_100_000).contains(before))
            let findings = try #require(history["findings"] as? [[String: Any]])
            let longBody = try #require(findings.first { $0["id"] as? String == "long-body:Recipes.RecipeRowView" })
            #expect((longBody["firstSeen"] as? [String: Any])?["label"] as? String == "20")
            #expect(longBody["stillPresent"] as? Bool == true)
            #expect(longBody["builds"] as? Int == 11)
            #expect((history["views"] as? [[String: Any]])?.first?["view"] as? String == "RecipeRowView")

            // Another metric of the same traces: the bodies did not change in number.
            let counts = try await client.get("/api/history?tag=scenario:scroll&view=RecipeRowView&metric=body-count").json()
            #expect(counts["firstBad"] is NSNull)
            #expect((counts["builds"] as? [[String: Any]])?.allSatisfy { $0["median"] as? Int == 12 } == true)
            // In commit order (the commit-time tag): none here, so nothing to draw, and a note says why.
            let commits = try await client.get("/api/history?tag=scenario:scroll&order=commit").json()
            #expect((commits["builds"] as? [[String: Any]])?.isEmpty == true)
            #expect((commits["notes"] as? [String])?.first?.contains("31 traces have no commit-time tag") == true)
            let cost = try await client.get("/api/history?tag=scenario:scroll&metric=finding-cost&finding=long-body:Recipes.RecipeRowView").json()
            #expect((cost["firstBad"] as? [String: Any])?["label"] as? String == "20")

            try expectError(try await client.get("/api/history?metric=speed"), .badRequest)
            try expectError(try await client.get("/api/history?metric=finding-cost"), .badRequest)
            try expectError(try await client.get("/api/history?tag=Bad"), .badRequest)
        }
    }

    /// A trace stored before the history (or read by an older parser) has no figures: the
    /// background measures it, and the history shows it then.
    @Test func tracesWithoutFiguresAreMeasuredInTheBackground() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await TraceStore.open(.init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 28), logger: .init(label: "test"))
        let file = scratch.root.appendingPathComponent("old.json")
        try Data(recipesTrace(build: 1, bodyNs: 400_000).utf8).write(to: file)
        let (hex, size) = try sha256OfFile(file)
        let entry = CatalogEntry(
            id: String(hex.prefix(32)), name: "old", app: "Recipes", device: "iPad Pro", durationNs: 60_000_000, sizeBytes: size, sha256: hex,
            sourceFormat: "tracesvc-json/1", updateCount: 13, run: nil, uploadedAtMicros: 1, tags: ["scenario:old"], parserVersion: 0
        )
        _ = try await store.commit(entry, file: file)
        var request = HistoryRequest()
        request.tags = [try TraceTag(parsing: "scenario:old")]
        let before = try await store.history(request)
        #expect(before.pending == 1 && before.builds.isEmpty)
        #expect(await store.measureStale() == 1)
        #expect(await store.measureStale() == 0)
        let after = try await store.history(request)
        #expect(after.pending == 0 && after.builds.count == 1)
        #expect(after.view == "RecipeRowView")
        #expect(try await store.storage.catalog.entry(id: entry.id)?.parserVersion == TraceImporter.parserVersion)
    }
}
