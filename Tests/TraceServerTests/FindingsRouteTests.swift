import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TraceServer

@Suite struct FindingsRouteTests {
    @Test func findingsComeWithEvidenceAndFollowThresholds() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            // Every 10th of 40 updates takes 1.2 ms: four long LandmarkListItemView bodies.
            let id = try await client.uploadedID(nativeTrace(updates: 40, app: "Orders"))
            let response = try await client.get("/api/traces/\(id)/findings")
            #expect(response.status == .ok && response.headers[.contentType] == "application/json; charset=utf-8")
            let findings = try #require(try response.json()["findings"] as? [[String: Any]])
            let long = try #require(findings.first { $0["kind"] as? String == "long-body" })
            #expect(long["id"] as? String == "long-body:Landmarks.LandmarkListItemView")
            #expect(long["costNs"] as? Int == 4 * 1_200_000 && long["occurrences"] as? Int == 4)
            let evidence = try #require(long["evidence"] as? [String: Any])
            #expect(evidence["updates"] as? [Int] == [9, 19, 29, 39] && evidence["representativeUpdate"] as? Int == 9)
            #expect((evidence["range"] as? [String: Int])?["start"] == 1_900_000)
            #expect(evidence.keys.contains("cpuCoverage"))

            let stricter = try await client.get("/api/traces/\(id)/findings?longBodyMinCount=5").json()
            #expect((stricter["findings"] as? [[String: Any]])?.contains { $0["kind"] as? String == "long-body" } == false)
            let looser = try await client.get("/api/traces/\(id)/findings?longBodyNs=30000&longBodyMinCount=40").json()
            #expect((looser["findings"] as? [[String: Any]])?.first { $0["kind"] as? String == "long-body" }?["occurrences"] as? Int == 40)
        }
    }

    @Test func badThresholdsAreRefusedNamingTheParameter() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.sampleID()
            for query in ["longBodyNs=abc", "busyCoverage=2", "fanOutMinBodies=1", "fanOutMinBodies=8.5", "longBodyMinCount=-1"] {
                let response = try await client.get("/api/traces/\(id)/findings?\(query)")
                try expectError(response, .badRequest)
                let name = String(query.prefix { $0 != "=" })
                #expect((try response.json()["detail"] as? String)?.hasPrefix(name) == true, "\(response.text)")
            }
            try expectError(try await client.get("/api/traces/ffffffffffffffffffffffffffffffff/findings"), .notFound)
        }
    }

    @Test func defaultFindingsAreComputedOnceWhenTheTraceLoads() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(nativeTrace(updates: 30, app: "Orders"))
            let store = try await TraceStore.open(
                .init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30),
                logger: .init(label: "test")
            )
            let loaded = try await store.loaded(id: id)
            #expect(loaded.findings == loaded.trace.findings() && loaded.findings.map(\.kind) == [.longBody])
        }
    }
}
