import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TraceServer

/// Frames' files and lines in the API, and the links `serve --source-url/--source-root` make of them.
@Suite struct SourceLinkTests {
    /// A Trips recording whose app frame has its file and line (a native file, as Instruments 27's export becomes).
    static let trips = nativeTrace(app: "Trips").replacingOccurrences(
        of: #"["body","Trips",true]"#, with: #"["TripCard.body.getter","Trips",true,"/Users/dev/Trips/Trips/Views/TripCard.swift",88]"#
    )

    func upload(_ client: any TestClientProtocol, tags: String) async throws -> String {
        let response = try await client.execute(
            uri: "/api/traces?name=trips.json\(tags)", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: Self.trips)
        )
        let trace = try #require(try response.json()["trace"] as? [String: Any], "\(response.text)")
        return try #require(trace["id"] as? String)
    }

    @Test func theTraceCarriesTheLinkWithItsCommitAndTheFlameGraphTheLine() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var options = scratch.options()
        options.sourceLinks = SourceLinkOptions(urlTemplate: "https://github.com/org/trips/blob/{commit}/{path}#L{line}", root: "/Users/dev/Trips")
        try await scratch.withServer(options) { client in
            let id = try await upload(client, tags: "&tag=commit:4f2a91c")
            let info = try await client.get("/api/traces/\(id)").json()
            let link = try #require(info["sourceLink"] as? [String: Any])
            #expect(link["url"] as? String == "https://github.com/org/trips/blob/4f2a91c/{path}#L{line}")
            #expect(link["root"] as? String == "/Users/dev/Trips")

            let graph = try await client.get("/api/traces/\(id)/flamegraph?width=800").json()
            let sources = try #require(graph["sources"] as? [[String: Any]])
            #expect(sources.first?["path"] as? String == "/Users/dev/Trips/Trips/Views/TripCard.swift")
            #expect(sources.first?["line"] as? Int == 88)
            let tree = try await client.get("/api/traces/\(id)/calltree").text
            #expect(tree.contains(#""source":{"path":"/Users/dev/Trips/Trips/Views/TripCard.swift","line":88}"#))
        }
    }

    @Test func withoutACommitTagTheLinkSaysWhyAndWithoutOptionsThereIsNone() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var options = scratch.options()
        options.sourceLinks = SourceLinkOptions(urlTemplate: "https://github.com/org/trips/blob/{commit}/{path}#L{line}", root: "/Users/dev/Trips")
        try await scratch.withServer(options) { client in
            let id = try await upload(client, tags: "")
            let link = try #require(try await client.get("/api/traces/\(id)").json()["sourceLink"] as? [String: Any])
            #expect(link["url"] == nil || link["url"] is NSNull)
            #expect((link["note"] as? String)?.contains("commit:") == true)
        }
        try await scratch.withServer(scratch.options()) { client in
            let id = try await upload(client, tags: "&tag=commit:4f2a91c")
            #expect(try await client.get("/api/traces/\(id)").json()["sourceLink"] is NSNull, "null without --source-url/--source-root")
        }
    }

    @Test func aCommitTagThatIsNoCommitNameMakesNoLink() {
        let options = SourceLinkOptions(urlTemplate: "https://x/{commit}/{path}", root: nil)
        #expect(options.link(tags: ["commit:abc\"><script>"]).url == nil)
        #expect(options.link(tags: ["commit:release/2.1"]).url == "https://x/release/2.1/{path}")
    }
}
