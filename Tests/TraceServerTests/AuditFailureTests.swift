import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GRDB
import Testing
@testable import TraceServer

/// Issue 44: a change the audit trail cannot record does not stand. With the audit table refusing
/// writes (a real SQLite failure on the server's own catalog file), every audited write answers a
/// JSON 503 naming the audit log, leaves nothing changed, and `/metrics` counts it.
@Suite(.serialized) struct AuditFailureTests {
    @Test func aWriteTheAuditLogCannotRecordIsA503AndChangesNothing() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try LiveServerTests.Server(dataDirectory: scratch.dataDirectory, scratch: scratch)
        defer { _ = server.stop() }
        // Recorded while the log works: an upload (of another app than the samples) and a note.
        let (uploaded, status) = try await send(server, "POST", "/api/traces?name=kept.json&tag=branch:main", body: nativeTrace(updates: 30, app: "Pantry"))
        #expect(status == 201)
        let kept = try #require((uploaded["trace"] as? [String: Any])?["id"] as? String)
        let (note, noteStatus) = try await send(server, "POST", "/api/traces/\(kept)/notes", body: #"{"target": {"kind": "update", "update": 3}, "text": "kept"}"#)
        #expect(noteStatus == 201)
        let noteID = try #require(note["id"] as? String)
        let before = try await auditCount(server)

        // The audit table now refuses every insert, as a read-only destination would.
        let catalog = try DatabaseQueue(path: scratch.dataDirectory.appendingPathComponent("catalog.sqlite").path)
        try await catalog.write { db in
            try db.execute(sql: "CREATE TRIGGER audit_refused BEFORE INSERT ON audit_events BEGIN SELECT RAISE(ABORT, 'audit log is read-only'); END")
        }

        let attempts: [(String, String, String?)] = [
            ("POST", "/api/traces?name=new.json", nativeTrace(updates: 40, app: "Orbit")),
            ("PATCH", "/api/traces/\(kept)", #"{"add": ["build:7"]}"#),
            ("POST", "/api/traces/\(kept)/notes", #"{"target": {"kind": "update", "update": 4}, "text": "lost?"}"#),
            ("DELETE", "/api/traces/\(kept)/notes/\(noteID)", nil),
            ("DELETE", "/api/traces/\(kept)", nil),
        ]
        for (method, path, body) in attempts {
            let (answer, status) = try await send(server, method, path, body: body)
            #expect(status == 503, "\(method) \(path): \(answer)")
            #expect(answer["error"] as? String == "audit log unavailable", "\(method) \(path): \(answer)")
            #expect((answer["detail"] as? String ?? "").contains("audit_events"), "the detail names the audit log: \(answer)")
        }

        // Nothing changed: one trace of that app, its tags and its one note as they were.
        let (list, _) = try await send(server, "GET", "/api/traces?limit=200")
        let uploads = try #require(list["traces"] as? [[String: Any]]).filter { ($0["isSample"] as? Bool) != true }
        #expect(uploads.compactMap { $0["id"] as? String } == [kept], "the new upload was not kept and the trace not deleted")
        #expect(uploads.first?["tags"] as? [String] == ["branch:main"])
        let (notes, _) = try await send(server, "GET", "/api/traces/\(kept)/notes")
        #expect((notes["notes"] as? [[String: Any]])?.compactMap { $0["text"] as? String } == ["kept"])
        #expect(try await auditCount(server) == before, "nothing was recorded either")
        let metrics = try await text(server, "/metrics")
        #expect(metrics.contains("tracesvc_audit_failures_total 5"), "\(metrics.split(separator: "\n").filter { $0.contains("audit") })")

        // The log back: the same writes go through and are recorded.
        try await catalog.write { db in try db.execute(sql: "DROP TRIGGER audit_refused") }
        #expect(try await send(server, "PATCH", "/api/traces/\(kept)", body: #"{"add": ["build:7"]}"#).1 == 200)
        #expect(try await auditCount(server) == before + 1)
    }

    private func auditCount(_ server: LiveServerTests.Server) async throws -> Int {
        try #require(try await send(server, "GET", "/api/audit?limit=500").0["events"] as? [[String: Any]]).count
    }

    private func send(_ server: LiveServerTests.Server, _ method: String, _ path: String, body: String? = nil) async throws -> ([String: Any], Int) {
        var request = URLRequest(url: URL(string: path, relativeTo: server.base)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let json = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        return (json, try #require(response as? HTTPURLResponse).statusCode)
    }

    private func text(_ server: LiveServerTests.Server, _ path: String) async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: URL(string: path, relativeTo: server.base)!)
        return String(decoding: data, as: UTF8.self)
    }
}
