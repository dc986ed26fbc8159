import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import TraceCLI

/// Where `ServerClient` lets a redirect take a request (the live cases: TraceServerTests' RedirectTests).
@Suite struct RedirectPolicyTests {
    static func step(from: String, status: Int, to location: String, body: Bool = false, hop: Int = 0) throws -> RedirectPolicy.Step {
        let url = try #require(URL(string: from))
        var request = URLRequest(url: url)
        request.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
        let response = try #require(HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Location": location]))
        let server = try #require(RedirectPolicy.Origin(url))
        return RedirectPolicy.next(after: response, to: request, hasBody: body, server: server, hop: hop)
    }

    static func followed(_ step: RedirectPolicy.Step) -> URLRequest? {
        if case .follow(let request) = step { return request }
        return nil
    }

    static func refusal(_ step: RedirectPolicy.Step) -> String? {
        if case .refuse(let why) = step { return why }
        return nil
    }

    @Test func httpsToHttpIsRefusedWhateverTheHost() throws {
        for location in ["http://tracesvc.example.com/api/traces", "http://elsewhere.example/x"] {
            let why = try #require(Self.refusal(try Self.step(from: "https://tracesvc.example.com/api/traces", status: 301, to: location)))
            #expect(why.contains("from HTTPS") && why.contains(location))
        }
    }

    @Test func theTokenGoesOnlyToTheSameOrigin() throws {
        let same = try #require(Self.followed(try Self.step(from: "https://a.example/api/traces?x", status: 302, to: "/other")))
        #expect(same.url?.absoluteString == "https://a.example/other" && same.value(forHTTPHeaderField: "Authorization") == "Bearer s3cret")
        let explicitPort = try #require(Self.followed(try Self.step(from: "https://a.example/x", status: 308, to: "https://A.example:443/y")))
        #expect(explicitPort.value(forHTTPHeaderField: "Authorization") == "Bearer s3cret", "the same origin spelled otherwise")
        for other in ["https://b.example/x", "https://a.example:8443/x", "https://a.example.evil.test/x", "http://a.example/x"] {
            let from = other.hasPrefix("http:") ? "http://a.example:8080/x" : "https://a.example/x"
            let next = try #require(Self.followed(try Self.step(from: from, status: 307, to: other)), "\(other)")
            #expect(next.value(forHTTPHeaderField: "Authorization") == nil, "\(other)")
        }
    }

    @Test func aBodyIsNeitherSentElsewhereNorDropped() throws {
        #expect(Self.refusal(try Self.step(from: "https://a.example/x", status: 307, to: "https://b.example/x", body: true))?.contains("another origin") == true)
        #expect(Self.refusal(try Self.step(from: "https://a.example/x", status: 302, to: "/y", body: true))?.contains("drop the request's body") == true)
        #expect(Self.followed(try Self.step(from: "https://a.example/x", status: 308, to: "/y", body: true)) != nil)
        #expect(Self.refusal(try Self.step(from: "https://a.example/x", status: 307, to: "/y", hop: RedirectPolicy.maxHops)) != nil)
        #expect(Self.refusal(try Self.step(from: "https://a.example/x", status: 307, to: "file:///etc/passwd")) != nil)
    }
}
