import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TraceFormats
import TraceSamples
@testable import TraceServer

@Suite struct CompareRoutesTests {
    /// The fixture trace with its short updates ten times longer (a real regression).
    private func slowerTrace(updates: Int) -> String {
        nativeTrace(updates: updates).replacingOccurrences(of: ",40000,", with: ",400000,")
    }

    @Test func comparesViewsCausesAndTotalsOfTwoTraces() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let before = try await client.uploadedID(nativeTrace(updates: 40), name: "before.json")
            let after = try await client.uploadedID(slowerTrace(updates: 40), name: "after.json")
            let json = try await client.get("/api/compare?a=\(before)&b=\(after)").json()
            #expect((json["a"] as? [String: Any])?["name"] as? String == "before")
            #expect((json["b"] as? [String: Any])?["updates"] as? Int == 40)
            #expect(json["differences"] as? [String] == [])
            let views = try #require(json["views"] as? [[String: Any]])
            let row = try #require(views.first)
            #expect(row["view"] as? String == "LandmarkListItemView" && row["change"] as? String == "regressed")
            #expect(row["significant"] as? Bool == true)
            let durations = try #require(row["durations"] as? [String: Any])
            #expect(durations["test"] as? String == "mann-whitney-u" && durations["direction"] as? String == "slower")
            #expect((row["delta"] as? [String: Any])?["totalNs"] as? Int == 36 * 360_000)
            let causes = try #require(json["causes"] as? [[String: Any]])
            #expect(causes.map { $0["change"] as? String } == ["unchanged"])
            #expect(causes.first?["source"] as? String == "@Observable ModelData")
            let totals = try #require(json["totals"] as? [[String: Any]])
            #expect(totals.map { $0["name"] as? String } == ["updates", "hitches", "hangs", "cpu"])
        }
    }

    @Test func aTraceAgainstItselfHasNoSignificantRowAndNullsForAbsentValues() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.sampleID()
            let json = try await client.get("/api/compare?a=\(id)&b=\(id)").json()
            let views = try #require(json["views"] as? [[String: Any]])
            #expect(!views.isEmpty && views.allSatisfy { $0["significant"] as? Bool == false && $0["change"] as? String == "unchanged" })
            let durations = try #require(views.first?["durations"] as? [String: Any])
            #expect(durations["direction"] is NSNull && durations["pValue"] as? Double == 1)
            #expect(json["functions"] as? [Any] != nil && (json["functions"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func perSideRangesRestrictEachTrace() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.sampleID()
            // Updates start every 100 µs from 1 ms: [1 ms, 2 ms) holds the first ten.
            let json = try await client.get("/api/compare?a=\(id)&b=\(id)&aStart=1000000&aEnd=1950000").json()
            let a = try #require(json["a"] as? [String: Any]), b = try #require(json["b"] as? [String: Any])
            #expect(a["updates"] as? Int == 10 && a["start"] as? Int == 1_000_000 && a["end"] as? Int == 1_950_000)
            #expect(b["updates"] as? Int == 30)
            let row = try #require((json["views"] as? [[String: Any]])?.first)
            #expect((row["delta"] as? [String: Any])?["count"] as? Int == 20 && row["change"] as? String == "regressed")
        }
    }

    @Test func badParametersAre400AndUnknownTraces404() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.sampleID()
            for query in ["b=\(id)", "a=\(id)", "a=\(id)&b=\(id)&aStart=5", "a=\(id)&b=\(id)&bStart=10&bEnd=5",
                          "a=\(id)&b=\(id)&bStart=x&bEnd=5", "a=\(id)&b=\(id)&functions=-1", "a=\(id)&b=\(id)&aStart=0&aEnd=9223372036854775807"] {
                let response = try await client.get("/api/compare?\(query)")
                try expectError(response, .badRequest)
            }
            let missing = "ffffffffffffffffffffffffffffffff"
            try expectError(try await client.get("/api/compare?a=\(missing)&b=\(id)"), .notFound)
            try expectError(try await client.get("/api/compare?a=\(id)&b=\(missing)"), .notFound)
            let detail = try await client.get("/api/compare?a=\(id)&b=\(id)&aStart=5").json()["detail"] as? String
            #expect(detail?.contains("aStart") == true && detail?.contains("aEnd") == true)
        }
    }

    @Test func severalRecordingsASideArePooled() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            var slow: [String] = [], fixed: [String] = []
            for run in UInt64(1)...3 {
                for (isSlow, name) in [(true, "pantry-slow-\(run).json"), (false, "pantry-fixed-\(run).json")] {
                    let text = String(decoding: NativeTraceWriter.encode(PantryTraces.trace(slow: isSlow, run: run)), as: UTF8.self)
                    let id = try await client.uploadedID(text, name: name)
                    if isSlow { slow.append(id) } else { fixed.append(id) }
                }
            }
            let json = try await client.get("/api/compare?a=\(slow.joined(separator: ","))&b=\(fixed.prefix(2).joined(separator: ","))").json()
            let a = try #require(json["a"] as? [String: Any]), b = try #require(json["b"] as? [String: Any])
            #expect(a["runs"] as? Int == 3 && b["runs"] as? Int == 2)
            #expect(a["runNames"] as? [String] == ["pantry-slow-1", "pantry-slow-2", "pantry-slow-3"])
            let row = try #require((json["views"] as? [[String: Any]])?.first { $0["view"] as? String == "ItemRowView" })
            #expect((row["a"] as? [String: Any])?["spread"] as? [String: Any] != nil && row["countChange"] as? String == "fewer")
            let verdict = try #require(json["verdict"] as? [[String: Any]])
            #expect(verdict.contains { $0["text"] as? String == "Collection fan-out resolved: ItemRowView (@Observable Pantry.items)" })
            #expect((json["intervals"] as? [[String: Any]])?.first?["name"] as? String == "Add to Cart")
            // One id a side is the same answer as before pooling existed.
            let single = try await client.get("/api/compare?a=\(slow[0])&b=\(fixed[0])").json()
            #expect((single["a"] as? [String: Any])?["runs"] as? Int == 1)
            // A range applies to one recording; empty ids and too many recordings are 400; an unknown one 404.
            for query in ["a=\(slow.joined(separator: ","))&b=\(fixed[0])&aStart=0&aEnd=5", "a=\(slow[0]),&b=\(fixed[0])",
                          "a=\(Array(repeating: slow[0], count: 11).joined(separator: ","))&b=\(fixed[0])"] {
                try expectError(try await client.get("/api/compare?\(query)"), .badRequest)
            }
            try expectError(try await client.get("/api/compare?a=\(slow[0]),ffffffffffffffffffffffffffffffff&b=\(fixed[0])"), .notFound)
        }
    }

    @Test func compareLinksOpenTheApp() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let page = try await client.get("/compare/aaaa/bbbb")
            #expect(page.status == .ok && Scratch.unversioned(page.text) == Scratch.indexHTML)
            let pooled = try await client.get("/compare?v=2&a=aaaa,cccc&b=bbbb")
            #expect(pooled.status == .ok && Scratch.unversioned(pooled.text) == Scratch.indexHTML)
            #expect(try await client.execute(uri: "/compare/aaaa/bbbb", method: .head).status == .ok)
        }
    }
}
