import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
@testable import TraceServer
@testable import TraceStorage

/// Retention by tag and age, and deleting by query (docs/api.md, "Retention and deleting by query").
struct RetentionTests {
    static let day: Int64 = 86_400_000_000

    @Test func theFirstRuleWhoseTagATraceHasDecides() throws {
        let policy = RetentionPolicy(rules: try ["branch=main:forever", "branch=*:30d", "nightly:2w", "*:90d"].map(RetentionRule.init(parsing:)))
        let now: Int64 = 1_000 * Self.day
        func entry(_ tags: [String], age days: Int64) -> CatalogEntry {
            CatalogEntry(id: String(repeating: "a", count: 32), name: "Trips.json", app: "Trips", device: "Mac", durationNs: 1, sizeBytes: 1,
                         sha256: String(repeating: "b", count: 64), sourceFormat: "native", updateCount: 1, run: nil,
                         uploadedAtMicros: now - days * Self.day, tags: tags, parserVersion: 1)
        }
        #expect(policy.expiring(entry(["branch:main"], age: 5_000), now: now) == nil)
        #expect(policy.expiring(entry(["branch:feature-x"], age: 31), now: now)?.description == "branch=*:30d")
        #expect(policy.expiring(entry(["branch:feature-x"], age: 29), now: now) == nil)
        // branch:main is kept although the trace is also nightly: the first matching rule decides.
        #expect(policy.expiring(entry(["nightly", "branch:main"], age: 400), now: now) == nil)
        #expect(policy.expiring(entry(["nightly"], age: 15), now: now)?.description == "nightly:2w")
        #expect(policy.expiring(entry([], age: 91), now: now)?.description == "*:90d")
        #expect(policy.expiring(entry(["branchy:x"], age: 89), now: now) == nil)
        #expect(RetentionPolicy(rules: [try RetentionRule(parsing: "branch=main:forever")]).deletes == false)
        for bad in ["branch=main", "branch=main:30", "branch=main:-3d", "branch=main:30y", "bad key=x:1d", "=x:1d", "branch=:1d"] {
            #expect(throws: RetentionError.self, "\(bad)") { try RetentionRule(parsing: bad) }
        }
        #expect(try RetentionRule(parsing: "commit=ab:cd:12h").selector == .tag(try TraceTag(parsing: "commit:ab:cd")))
    }

    @Test func theSweepDeletesWhatThePolicyExpiresAndRecordsIt() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await TraceStore.open(.init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30),
                                              logger: Logger(label: "test"))
        let now = CatalogEntry.nowMicros()
        // 600 feature traces 40 days old (past a page of the scan and two deletion batches), 5 of main as old, 5 recent features.
        var expected: Set<String> = []
        for n in 0..<610 {
            let tags = n < 600 ? ["branch:feature-\(n % 7)"] : n < 605 ? ["branch:main"] : ["branch:feature-1"]
            let age = n < 605 ? 40 * Self.day : Self.day
            let id = String(format: "%032x", n + 1)
            let blob = scratch.root.appendingPathComponent("blob-\(n)")
            try Data("trace \(n)".utf8).write(to: blob)
            let sha = String(format: "%064x", n + 1)
            _ = try await store.storage.blobs.put(key: sha, file: blob, size: 7)
            _ = try await store.storage.catalog.insert(CatalogEntry(
                id: id, name: "Pantry-\(n).json", app: "Pantry", device: "iPhone", durationNs: 1, sizeBytes: 7, sha256: sha, sourceFormat: "native",
                updateCount: 1, run: nil, uploadedAtMicros: now - age + Int64(n), tags: tags, parserVersion: 1))
            if n < 600 { expected.insert(id) }
        }
        let policy = RetentionPolicy(rules: try ["branch=main:forever", "branch=*:30d"].map(RetentionRule.init(parsing:)))
        let candidates = try await store.retentionCandidates(policy)
        #expect(Set(candidates.map(\.entry.id)) == expected)
        #expect(candidates.allSatisfy { $0.rule == "branch=*:30d" })
        #expect(zip(candidates, candidates.dropFirst()).allSatisfy { $0.entry.uploadedAtMicros <= $1.entry.uploadedAtMicros })
        // Nothing is deleted by asking.
        #expect(try await store.storage.catalog.totals().count == 610)

        #expect(await store.applyRetention(policy) == 600)
        #expect(await store.applyRetention(policy) == 0)
        let left = try await store.storage.catalog.all()
        #expect(left.count == 10)
        #expect(Set(left.map(\.id)).isDisjoint(with: expected))
        // Their bytes went with them; the kept traces' stayed.
        let blobs = Set(try await store.storage.blobs.list().map(\.key))
        #expect(blobs == Set(left.map(\.sha256)))
        let trail = try await store.storage.catalog.auditEvents(AuditQuery(action: .delete), limit: 1000, after: nil)
        #expect(trail.count == 600)
        #expect(trail.allSatisfy { $0.actor == "retention" && $0.detail == "retention rule branch=*:30d" && $0.traceName?.hasPrefix("Pantry-") == true })
    }

    @Test func deletingByQueryNeedsAFilterAndTheDeleteScopeAndIsAudited() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var options = scratch.options()
        options.access = AccessPolicy(writeToken: "sesame")
        options.retention = RetentionPolicy(rules: try ["branch=main:forever", "branch=*:30d"].map(RetentionRule.init(parsing:)))
        let storage = try TraceStore.Storage.embedded(in: scratch.dataDirectory)
        options.storage = storage
        let (cleaner, secret) = AccessToken.make(name: "cleaner", scopes: [.delete, .read])
        #expect(try await storage.catalog.addToken(cleaner))
        try await scratch.withServer(options) { client in
            func send(_ method: HTTPRequest.Method, _ uri: String, token: String = "sesame") async throws -> TestResponse {
                try await client.execute(uri: uri, method: method, headers: [.authorization: "Bearer \(token)"])
            }
            var ids: [String] = []
            for (n, tag) in ["branch:feature-x", "branch:feature-x", "branch:main"].enumerated() {
                let uploaded = try await client.execute(uri: "/api/traces?name=pantry-\(n).json&tag=\(tag)", method: .post,
                                                        headers: [.contentType: "application/json", .authorization: "Bearer sesame"],
                                                        body: ByteBuffer(string: recipesTrace(build: n, bodyNs: 300_000)))
                #expect(uploaded.status == .created, "\(uploaded.text)")
                ids.append(try #require((try uploaded.json()["trace"] as? [String: Any])?["id"] as? String))
            }
            try expectError(try await send(.delete, "/api/traces"), .badRequest)
            try expectError(try await send(.delete, "/api/traces?older-than=30y"), .badRequest)
            try expectError(try await client.execute(uri: "/api/traces?tag=branch:feature-x", method: .delete), .unauthorized)

            let dry = try await send(.delete, "/api/traces?tag=branch:feature-x&dry-run=true", token: secret).json()
            #expect(dry["dryRun"] as? Bool == true && dry["matched"] as? Int == 2 && dry["deleted"] as? Int == 0)
            #expect(Set((dry["traces"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }) == Set(ids.prefix(2)))
            #expect(try await client.get("/api/traces?limit=10").json()["total"] as? Int == 4)  // and the sample
            // Just uploaded: not older than 30 days.
            #expect(try await send(.delete, "/api/traces?tag=branch:feature-x&older-than=30d", token: secret).json()["matched"] as? Int == 0)
            // Nothing has expired under the policy yet.
            let retention = try await send(.get, "/api/retention", token: secret).json()
            #expect(retention["rules"] as? [String] == ["branch=main:forever", "branch=*:30d"] && retention["matched"] as? Int == 0)

            let done = try await send(.delete, "/api/traces?tag=branch:feature-x", token: secret).json()
            #expect(done["dryRun"] as? Bool == false && done["deleted"] as? Int == 2)
            let left = try await client.get("/api/traces?limit=10").json()["traces"] as? [[String: Any]] ?? []
            #expect(left.compactMap { $0["id"] as? String }.filter { ids.contains($0) } == [ids[2]])
            let trail = try await send(.get, "/api/audit?action=delete", token: secret).json()["events"] as? [[String: Any]] ?? []
            #expect(trail.count == 2)
            #expect(trail.allSatisfy { $0["actor"] as? String == "cleaner" && $0["detail"] as? String == "by query tag=branch:feature-x" })
            // Applying the policy by hand is for administrators.
            try expectError(try await send(.post, "/api/retention", token: secret), .forbidden)
            #expect(try await send(.post, "/api/retention").json()["deleted"] as? Int == 0)
        }
    }
}
