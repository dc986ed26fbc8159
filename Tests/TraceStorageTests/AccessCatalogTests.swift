import Foundation
import Testing
@testable import TraceStorage

/// Tokens, the audit trail and deletes of many traces: one contract, both engines.
enum AccessContract {
    static func check(_ catalog: some Catalog) async throws {
        // Tokens: stored by their secret's hash, found by it, a name unique among unrevoked ones.
        let (ci, secret) = AccessToken.make(name: "ci-main", scopes: [.upload, .annotate, .upload], now: 1_000)
        #expect(ci.scopes == [.upload, .annotate])
        #expect(secret.hasPrefix("tsv_") && secret.count > 40)
        #expect(ci.secretSHA256 == AccessToken.sha256(ofSecret: secret))
        #expect(!ci.secretSHA256.contains(secret))
        #expect(try await catalog.addToken(ci))
        let (twin, _) = AccessToken.make(name: "ci-main", scopes: [.admin], now: 2_000)
        #expect(try await catalog.addToken(twin) == false)
        #expect(try await catalog.token(secretSHA256: AccessToken.sha256(ofSecret: secret)) == ci)
        #expect(try await catalog.token(secretSHA256: AccessToken.sha256(ofSecret: secret + "x")) == nil)
        try await catalog.markTokenUsed(id: ci.id, at: 5_000)
        #expect(try await catalog.token(secretSHA256: ci.secretSHA256)?.lastUsedAtMicros == 5_000)

        // Revoked: no longer found, still listed, and its name may be given again.
        #expect(try await catalog.revokeToken(name: "ci-main", at: 6_000))
        #expect(try await catalog.revokeToken(name: "ci-main", at: 7_000) == false)
        #expect(try await catalog.token(secretSHA256: ci.secretSHA256) == nil)
        #expect(try await catalog.addToken(twin))
        let (alice, _) = AccessToken.make(name: "alice", scopes: [.read, .delete], now: 3_000)
        #expect(try await catalog.addToken(alice))
        let listed = try await catalog.tokens()
        #expect(listed.map(\.name) == ["alice", "ci-main", "ci-main"])
        #expect(listed[1] == twin)
        #expect(listed[2].revokedAtMicros == 6_000)

        // The audit trail: newest first, a page at a time, by trace and by action.
        let events = (1...7).map { (n: Int) -> AuditEvent in
            let at: Int64 = n == 7 ? 6 : Int64(n)
            let actor = n % 2 == 0 ? "alice" : "ci-main"
            let action: AuditEvent.Action = n % 3 == 0 ? .delete : .upload
            let traceID: String? = n == 5 ? nil : "trace-\(n % 4)"
            return AuditEvent(atMicros: at, actor: actor, action: action, traceID: traceID, traceName: traceID.map { _ in "Trips \(n).trace" }, detail: "event \(n)")
        }
        try await catalog.recordAudit(Array(events.prefix(3)))
        try await catalog.recordAudit(Array(events.dropFirst(3)))
        var seen: [AuditEvent] = []
        var cursor: AuditCursor?
        repeat {
            let page = try await catalog.auditEvents(AuditQuery(), limit: 3, after: cursor)
            seen += page
            cursor = page.count == 3 ? page.last.map(AuditCursor.init(after:)) : nil
        } while cursor != nil
        #expect(seen.count == 7)
        #expect(Set(seen.map(\.id)).count == 7)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.atMicros > $1.atMicros || ($0.atMicros == $1.atMicros && $0.id > $1.id) })
        #expect(Set(seen) == Set(events))
        #expect(seen.first { $0.detail == "event 5" }?.traceID == nil)
        #expect(try await catalog.auditEvents(AuditQuery(traceID: "trace-1"), limit: 10, after: nil).map(\.detail) == ["event 1"])
        #expect(try await catalog.auditEvents(AuditQuery(action: .delete), limit: 10, after: nil).map(\.detail) == ["event 6", "event 3"])
        #expect(try await catalog.auditEvents(AuditQuery(action: .upload, actor: "alice"), limit: 10, after: nil).map(\.detail) == ["event 4", "event 2"])

        // Many deletes at once: those that exist, their dependents with them.
        for n in 1...1_200 {
            _ = try await catalog.insert(CatalogContract.entry(n, at: Int64(n), tags: ["branch:feature-\(n % 2)"]))
        }
        let doomed = (1...1_200).filter { $0 % 2 == 0 }.map { CatalogContract.entry($0, at: 0).id } + ["nope"]
        let removed = try await catalog.delete(ids: doomed)
        #expect(removed.count == 600)
        #expect(Set(removed.map(\.id)) == Set(doomed.dropLast()))
        #expect(try await catalog.totals().count == 600)
        #expect(try await catalog.page(CatalogQuery(tags: [try TraceTag(parsing: "branch:feature-0")]), limit: 10, after: nil).total == 0)
        #expect(try await catalog.delete(ids: []) == [])
    }
}

struct SQLiteAccessTests {
    @Test func keepsTheAccessContract() async throws {
        try await AccessContract.check(try SQLiteCatalog(file: try SQLiteCatalogTests.temporaryFile()))
    }
}

extension PostgresCatalogTests {
    @Test func keepsTheAccessContract() async throws {
        let (catalog, running) = try await Self.catalog(try TeamEngines.freshDatabase("access"))
        defer { running.cancel() }
        try await AccessContract.check(catalog)
    }

    @Test func aDeleteOfManyReachesTheOtherReplica() async throws {
        let url = try TeamEngines.freshDatabase("deletemany")
        let (writer, writing) = try await Self.catalog(url)
        let (reader, reading) = try await Self.catalog(url)
        defer { writing.cancel(); reading.cancel() }
        let changes = ChangeLog(reader)
        #expect(await changes.wait(for: .resync, within: .seconds(5)))
        let entries = (1...3).map { CatalogContract.entry($0, at: Int64($0)) }
        for entry in entries { _ = try await writer.insert(entry) }
        #expect(try await writer.delete(ids: entries.map(\.id)).count == 3)
        for entry in entries { #expect(await changes.wait(for: .deleted(id: entry.id), within: .seconds(10))) }
    }
}
