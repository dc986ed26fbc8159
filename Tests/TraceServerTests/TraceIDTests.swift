import Foundation
import Testing
import TraceCatalog
@testable import TraceServer

/// Ids are checked once at the edge (`TraceID`, `BlobKey`): what cannot be one is turned away as
/// an unknown trace, the same answer as an id nobody stored.
@Suite struct TraceIDTests {
    @Test func onlyThirtyTwoLowercaseHexDigitsAreATraceID() throws {
        #expect(TraceID("0123456789abcdef0123456789abcdef")?.text == "0123456789abcdef0123456789abcdef")
        for text in ["", "0123456789ABCDEF0123456789ABCDEF", "0123456789abcdef0123456789abcde", "0123456789abcdef0123456789abcdef0",
                     "../../etc/passwd", "0123456789abcdef0123456789abcdeg", "0123456789abcdef0123456789abcd\u{e9}"] {
            #expect(TraceID(text) == nil, "\(text)")
        }
        let decoded = try JSONDecoder().decode([TraceID].self, from: Data(#"["0123456789abcdef0123456789abcdef"]"#.utf8))
        #expect(decoded.map(\.text) == ["0123456789abcdef0123456789abcdef"])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([TraceID].self, from: Data(#"["nope"]"#.utf8)) }
    }

    @Test func aBlobKeyIsAContentHashOrAStreamedUploadsKey() {
        let sha = String(repeating: "ab", count: 32)
        #expect(BlobKey(content: sha)?.isStreamed == false)
        #expect(BlobKey(streamed: String(repeating: "c", count: 32))?.text == "up-" + String(repeating: "c", count: 32))
        #expect(BlobKey(streamed: String(repeating: "c", count: 32))?.isStreamed == true)
        for text in ["", String(sha.dropLast()), sha.uppercased(), "up-" + String(repeating: "c", count: 31), "../" + sha, "up-../../x"] {
            #expect(BlobKey(text) == nil, "\(text)")
        }
        #expect(BlobKey(content: "up-" + String(repeating: "c", count: 32)) == nil)
    }

    @Test func aTextThatIsNoTraceIDIsAnUnknownTraceWhereverGiven() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let sample = try await client.sampleID()
            for path in ["/api/traces/NOPE", "/api/traces/nope/summary", "/api/traces/..%2F..%2Fdata/timeline",
                         "/api/traces/\(sample.uppercased())/calltree", "/api/compare?a=\(sample)&b=x",
                         "/api/compare/flamegraph?a=\(sample),\(sample.dropLast())&b=\(sample)", "/api/traces/nope/notes"] {
                let answer = try await client.get(path)
                try expectError(answer, .notFound)
                #expect(try answer.json()["error"] as? String == "unknown trace", "\(path)")
            }
            // An id that could be one but names no trace: the same answer.
            try expectError(try await client.get("/api/traces/ffffffffffffffffffffffffffffffff/summary"), .notFound)
            #expect(try await client.get("/api/traces/\(sample)/summary").status == .ok)
        }
    }
}
