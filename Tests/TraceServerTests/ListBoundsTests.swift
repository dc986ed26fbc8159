import Foundation
import HummingbirdTesting
import Testing
import TraceStorage

/// A list entry carries names cut to a bound; the trace's own answer carries them whole (issue 39:
/// a 20 MB app name was copied into every list entry, and five such traces made the list 314 MB).
@Suite struct ListBoundsTests {
    @Test func aHugeAppNameIsCutInEveryListAndWholeOnTheTracesOwnAnswer() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let app = "Pantry" + String(repeating: "Ä", count: 500_000)
        try await scratch.withServer { client in
            let id = try await client.uploadedID(nativeTrace(app: app), name: "huge.json")
            _ = try await client.uploadedID(nativeTrace(updates: 21, app: "Harbor"), name: "harbor.json")
            for path in ["/api/traces?limit=50", "/api/traces", "/api/traces?sort=name&limit=1", "/api/traces?q=pantry"] {
                let response = try await client.get(path)
                #expect(response.status == .ok && response.body.readableBytes < 16 << 10, "\(path): \(response.body.readableBytes) bytes")
                let traces = try #require(try response.json()["traces"] as? [[String: Any]])
                guard let listed = traces.first(where: { $0["id"] as? String == id }) else { continue }
                let shown = try #require(listed["app"] as? String)
                #expect(shown.count == CatalogEntry.listedLength + 1 && shown.hasSuffix("…") && app.hasPrefix(String(shown.dropLast())), "\(path)")
                #expect(traces.contains { $0["app"] as? String == "Harbor" } || path.contains("q=") || path.contains("limit=1"), "a short name is listed whole")
            }
            let info = try await client.get("/api/traces/\(id)").json()
            #expect(info["app"] as? String == app, "the trace's own answer has the whole name")
        }
    }
}
