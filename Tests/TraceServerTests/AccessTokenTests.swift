import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
@testable import TraceServer
@testable import TraceStorage

/// Personal and CI tokens, scopes and the audit trail (docs/api.md, "Tokens" and "Audit"), on the
/// embedded catalog; TeamAccessTests runs the same story on PostgreSQL.
struct AccessTokenTests {
    @Test func tokensAreScopedRecordedAndRevocable() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var options = scratch.options()
        options.access = AccessPolicy(writeToken: "sesame")
        let storage = try TraceStore.Storage.embedded(in: scratch.dataDirectory)
        options.storage = storage
        try await AccessStory.run(options: options, catalog: storage.catalog)
        // The secrets are nowhere in the catalog's files: only their SHA-256.
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.dataDirectory.path).filter { $0.hasPrefix("catalog.sqlite") }
        #expect(!files.isEmpty)
        for file in files {
            let bytes = try Data(contentsOf: scratch.dataDirectory.appendingPathComponent(file))
            #expect(bytes.range(of: Data("tsv_".utf8)) == nil, "\(file) holds a token's secret")
        }
    }

    @Test func anOpenServerRecordsWritesAsOpen() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(recipesTrace(build: 1, bodyNs: 300_000), name: "open.json")
            #expect(try await client.get("/api/traces/\(id)").json()["uploadedBy"] as? String == "open (no token required)")
            let audit = try await client.get("/api/audit")
            #expect(audit.status == .ok, "\(audit.text)")
            let events = try #require(try audit.json()["events"] as? [[String: Any]])
            #expect(events.map { $0["actor"] as? String } == ["open (no token required)"])
            #expect(events.first?["traceName"] as? String == "open")
            // The samples have no uploader.
            #expect(try await client.get("/api/traces/\(try await client.sampleID())").json()["uploadedBy"] is NSNull)
        }
    }

    @Test func everyWriteRouteNeedsAScope() {
        let id = String(repeating: "a", count: 32)
        #expect(AccessRules.requiredScope(method: .post, path: "/api/traces") == .upload)
        #expect(AccessRules.requiredScope(method: .post, path: "/api/traces/\(id)/checks") == .upload)
        #expect(AccessRules.requiredScope(method: .patch, path: "/api/traces/\(id)") == .annotate)
        #expect(AccessRules.requiredScope(method: .post, path: "/api/traces/\(id)/notes") == .annotate)
        #expect(AccessRules.requiredScope(method: .delete, path: "/api/traces/\(id)/notes/0123456789abcdef") == .annotate)
        #expect(AccessRules.requiredScope(method: .delete, path: "/api/traces/\(id)") == .delete)
        #expect(AccessRules.requiredScope(method: .delete, path: "/api/traces") == .delete)
        #expect(AccessRules.requiredScope(method: .get, path: "/api/audit") == .read)
        #expect(AccessRules.requiredScope(method: .get, path: "/api/retention") == .read)
        #expect(AccessRules.requiredScope(method: .post, path: "/api/retention") == .admin)
        #expect(AccessRules.requiredScope(method: .get, path: "/api/traces/\(id)") == nil)
        #expect(AccessRules.requiredScope(method: .post, path: "/api/something-new") == .admin)
        #expect(AccessRules.requiredScope(method: .put, path: "/api/traces/\(id)") == .admin)
    }
}

/// The story both engines tell: the server runs with the shared token "sesame" on `catalog`.
enum AccessStory {
    static func run(options: ServerOptions, catalog: any Catalog) async throws {
        let (ci, ciSecret) = AccessToken.make(name: "ci-main", scopes: [.upload])
        let (alice, aliceSecret) = AccessToken.make(name: "alice", scopes: [.read, .annotate, .delete])
        #expect(try await catalog.addToken(ci))
        #expect(try await catalog.addToken(alice))
        let app = try await buildApplication(options: options, logger: Logger(label: "test"))
        try await app.test(.router) { client in
            func send(_ method: HTTPRequest.Method, _ uri: String, token: String?, json: String? = nil) async throws -> TestResponse {
                var headers: HTTPFields = [.contentType: json == nil ? "application/json" : "application/json"]
                if let token { headers[.authorization] = "Bearer \(token)" }
                return try await client.execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
            }
            // Uploads: the CI token may, nobody without a token, nobody with a made-up one.
            let upload = try await client.execute(uri: "/api/traces?name=ci.json&tag=branch:main", method: .post,
                                                  headers: [.contentType: "application/json", .authorization: "Bearer \(ciSecret)"],
                                                  body: ByteBuffer(string: recipesTrace(build: 1, bodyNs: 300_000)))
            #expect(upload.status == .created, "\(upload.text)")
            let id = try #require((try upload.json()["trace"] as? [String: Any])?["id"] as? String)
            for token in [nil, "tsv_made-up", "sesame2"] as [String?] {
                let refused = try await client.execute(uri: "/api/traces?name=x.json", method: .post,
                                                       headers: token.map { [.authorization: "Bearer \($0)"] } ?? [:],
                                                       body: ByteBuffer(string: recipesTrace(build: 2, bodyNs: 300_000)))
                try expectError(refused, .unauthorized)
            }
            // A scope it lacks is a 403 naming the scope.
            let tagging = try await send(.patch, "/api/traces/\(id)", token: ciSecret, json: #"{"add": ["nightly"]}"#)
            try expectError(tagging, .forbidden)
            #expect(tagging.text.contains("'annotate'") && tagging.text.contains("ci-main"), "\(tagging.text)")
            let deleting = try await send(.delete, "/api/traces/\(id)", token: ciSecret)
            try expectError(deleting, .forbidden)
            #expect(deleting.text.contains("'delete'"))
            try expectError(try await send(.get, "/api/audit", token: ciSecret), .forbidden)
            try expectError(try await send(.get, "/api/audit", token: nil), .unauthorized)

            // The shared token still does everything, as "shared token".
            #expect(try await send(.patch, "/api/traces/\(id)", token: "sesame", json: #"{"add": ["nightly"]}"#).status == .ok)
            // Alice annotates; the trace page says who uploaded it.
            let note = try await send(.post, "/api/traces/\(id)/notes", token: aliceSecret, json: #"{"target": {"kind": "update", "update": 0}, "text": "slow row"}"#)
            #expect(note.status == .created, "\(note.text)")
            #expect(try await client.get("/api/traces/\(id)").json()["uploadedBy"] as? String == "ci-main")
            #expect(try await send(.delete, "/api/traces/\(id)", token: aliceSecret).status == .noContent)

            // The trail, newest first, a page at a time; secrets are never in it.
            let first = try await send(.get, "/api/audit?limit=2", token: aliceSecret)
            #expect(first.status == .ok, "\(first.text)")
            #expect(first.headers[.cacheControl] == "no-store")
            let firstPage = try first.json()
            let cursor = try #require(firstPage["nextCursor"] as? String)
            let rest = try await send(.get, "/api/audit?limit=2&cursor=\(cursor)", token: "sesame").json()
            #expect(rest["nextCursor"] is NSNull)
            let events = (firstPage["events"] as? [[String: Any]] ?? []) + (rest["events"] as? [[String: Any]] ?? [])
            #expect(events.map { "\($0["actor"] ?? "") \($0["action"] ?? "")" } == ["alice delete", "alice note", "shared token tags", "ci-main upload"])
            #expect(events.allSatisfy { $0["traceId"] as? String == id && $0["traceName"] as? String == "ci" })
            #expect(events[2]["detail"] as? String == "tags: branch:main, nightly")
            #expect(events[3]["detail"] as? String == "new; tags: branch:main")
            let byAlice = try await send(.get, "/api/audit?actor=alice&action=note", token: aliceSecret).json()["events"] as? [[String: Any]]
            #expect(byAlice?.count == 1)
            try expectError(try await send(.get, "/api/audit?action=rename", token: aliceSecret), .badRequest)
            try expectError(try await send(.get, "/api/audit?cursor=nope", token: aliceSecret), .badRequest)
            let whole = try await send(.get, "/api/audit?limit=50", token: "sesame").text
            for secret in [ciSecret, aliceSecret, "sesame"] { #expect(!whole.contains(secret)) }

            // Revoked: refused at once; listed with its last use, never its secret.
            #expect(try await catalog.revokeToken(name: "ci-main", at: CatalogEntry.nowMicros()))
            let afterRevoke = try await client.execute(uri: "/api/traces?name=y.json", method: .post, headers: [.authorization: "Bearer \(ciSecret)"],
                                                       body: ByteBuffer(string: recipesTrace(build: 3, bodyNs: 300_000)))
            try expectError(afterRevoke, .unauthorized)
            let listed = try await catalog.tokens()
            #expect(listed.map(\.name) == ["alice", "ci-main"])
            #expect(listed[1].lastUsedAtMicros != nil && listed[1].revokedAtMicros != nil)
        }
    }
}
