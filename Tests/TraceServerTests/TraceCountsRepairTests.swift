import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import TraceServer
@testable import TraceStorage

/// Issue 44: the counts a list's total and the quotas read drift when a replica older than them
/// writes; the running server's sweep counts the rows again, repairs the drift and says so in
/// `/metrics`. (Both engines' recount: `CatalogContractTests.repairsCountsAnOlderReplicaLeftWrong`.)
@Suite(.serialized) struct TraceCountsRepairTests {
    static func entry(_ n: Int, tags: [String]) -> CatalogEntry {
        CatalogEntry(
            id: String(format: "%032x", 0xC0_0000 + n), name: "Orbit-\(n).json", app: "Orbit", device: "Pixel-like", durationNs: 2_000_000, sizeBytes: Int64(5_000 + n),
            sha256: String(format: "%064x", 0xC0_0000 + n), sourceFormat: "native", updateCount: 10, run: nil, uploadedAtMicros: Int64(n) * 1_000_000,
            tags: tags, parserVersion: 1
        )
    }

    @Test func theSweepRepairsCountsAnOlderReplicaLeftWrongAndCountsTheRepair() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let catalog = try SQLiteCatalog(file: scratch.dataDirectory.appendingPathComponent("catalog.sqlite"))
        for n in 1...3 { _ = try await catalog.insert(Self.entry(n, tags: ["project:orbit"])) }
        // As a release before the counts stores and deletes: on the rows alone (two stored, one deleted).
        var statements = ["DELETE FROM traces WHERE id = '\(Self.entry(1, tags: []).id)'"]
        for older in [Self.entry(4, tags: ["project:orbit", "device:tablet"]), Self.entry(5, tags: ["project:orbit"])] {
            statements.append("""
                INSERT INTO traces (id, name, app, device, duration_ns, size_bytes, sha256, source_format, update_count, uploaded_at_us, parser_version)
                VALUES ('\(older.id)', '\(older.name)', 'Orbit', 'Pixel-like', 1, \(older.sizeBytes), '\(older.sha256)', 'native', 1, \(older.uploadedAtMicros), 1)
                """)
            for tag in older.tags {
                statements.append("INSERT INTO trace_tags (trace_id, tag, uploaded_at_us, size_bytes) VALUES ('\(older.id)', '\(tag)', 1, \(older.sizeBytes))")
            }
        }
        try await catalog.execute(statements)
        #expect(try await catalog.totals().count == 3, "drifted: the rows hold 4 traces, the counts say 3")

        let server = try LiveServerTests.Server(dataDirectory: scratch.dataDirectory, scratch: scratch)
        defer { _ = server.stop() }
        // The sweep runs as the server starts: every trace, project:orbit and device:tablet repaired.
        var repaired: String?
        let deadline = Date().addingTimeInterval(60)
        while repaired == nil, Date() < deadline {
            repaired = try await Self.text(server, "/metrics").split(separator: "\n")
                .first { $0.hasPrefix("tracesvc_sweep_repaired_total{what=\"trace_counts\"}") && !$0.hasSuffix(" 0") }.map(String.init)
            if repaired == nil { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(repaired?.hasSuffix(" 3") == true, "\(repaired ?? "no repair counted within 60 s")")
        // A page shorter than the list reads its total from the counts: the rows' again.
        let page = try JSONSerialization.jsonObject(with: Data(try await Self.text(server, "/api/traces?tag=project:orbit&limit=1").utf8)) as? [String: Any]
        #expect(page?["total"] as? Int == 4)
        #expect(try await catalog.recountTraces() == [], "nothing left to repair")
    }

    static func text(_ server: LiveServerTests.Server, _ path: String) async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: URL(string: path, relativeTo: server.base)!)
        return String(decoding: data, as: UTF8.self)
    }
}
