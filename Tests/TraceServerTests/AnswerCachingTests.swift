import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import TraceCatalog
import TraceFormats
import TraceSamples
@testable import TraceServer

/// The same request answers the same bytes, and an answer computed from stored traces carries a
/// strong ETag: a client that has the bytes gets 304 with no body (docs/api.md, "Caching").
@Suite struct AnswerCachingTests {
    /// Every answer computed from one trace, and the compare answers of two, for `a` and `b`.
    static func answers(_ a: String, _ b: String) -> [(path: String, accept: String)] {
        let json = "application/json"
        return [
            ("/api/traces/\(a)/summary", json), ("/api/traces/\(a)/summary?filter=long-view-body", json),
            ("/api/traces/\(a)/findings", json), ("/api/traces/\(a)/findings", json),
            ("/api/traces/\(a)/timeline?width=800", json), ("/api/traces/\(a)/timeline?width=800", "application/octet-stream"),
            ("/api/traces/\(a)/calltree", json), ("/api/traces/\(a)/flamegraph", json), ("/api/traces/\(a)/stackchart", json),
            ("/api/traces/\(a)/tasks/summary", json), ("/api/traces/\(a)/updates/0", json), ("/api/traces/\(a)/long-update", json),
            ("/api/traces/\(a)/search?q=View", json),
            ("/api/compare?a=\(a)&b=\(b)", json), ("/api/compare/flamegraph?a=\(a)&b=\(b)", json),
        ]
    }

    /// Samples of two apps (tasks, signposts, CPU samples) and an upload of a third.
    static func scratch() throws -> Scratch {
        let scratch = try Scratch()
        for sample in ["landmarks-concurrency-slow", "landmarks-scroll-slow"] {
            try Data(SampleTraces.fileContents(of: sample)).write(to: scratch.samples.appendingPathComponent("\(sample).json"))
        }
        return scratch
    }

    static func ids(_ client: some TestClientProtocol) async throws -> (sample: String, upload: String) {
        let upload = try await client.uploadedID(String(decoding: NativeTraceWriter.encode(OtherAppTraces.harbor()), as: UTF8.self), name: "harbor.json")
        let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
        let sample = try #require(list.first { $0["name"] as? String == "landmarks-concurrency-slow" }?["id"] as? String)
        return (sample, upload)
    }

    @Test func twoGETsOfEveryAnswerGiveTheSameBytesAcrossRestarts() async throws {
        let scratch = try Self.scratch()
        defer { scratch.remove() }
        // First server: each answer twice (the second from the models and findings kept in memory).
        let (first, ids) = try await scratch.withServer { client in
            let ids = try await Self.ids(client)
            var bodies: [String: [UInt8]] = [:]
            for (a, b) in [(ids.sample, ids.upload), (ids.upload, ids.sample)] {
                for (path, accept) in Self.answers(a, b) {
                    let one = try await client.get(path, headers: [.accept: accept])
                    let two = try await client.get(path, headers: [.accept: accept])
                    #expect(one.status == .ok, "\(path): \(one.text.prefix(200))")
                    #expect(one.body == two.body, "\(path) (\(accept)) answered different bytes")
                    bodies["\(path) \(accept)"] = Array(buffer: one.body)
                }
            }
            return (bodies, ids)
        }
        // A second server on the same data reads the traces again: the same bytes still.
        try await scratch.withServer { client in
            for (a, b) in [(ids.sample, ids.upload), (ids.upload, ids.sample)] {
                for (path, accept) in Self.answers(a, b) {
                    let again = try await client.get(path, headers: [.accept: accept])
                    let same = Array(buffer: again.body) == first["\(path) \(accept)"]
                    #expect(same, "\(path) (\(accept)) differs after a restart")
                }
            }
        }
    }

    @Test func anAnswerHasAStrongETagAndIfNoneMatchAnswers304WithNoBody() async throws {
        let scratch = try Self.scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let ids = try await Self.ids(client)
            var tags: Set<String> = []
            for (a, b) in [(ids.sample, ids.upload), (ids.upload, ids.sample)] {
                for (path, accept) in Self.answers(a, b) {
                    let answer = try await client.get(path, headers: [.accept: accept])
                    let etag = try #require(answer.headers[.eTag], "\(path)")
                    #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"), "\(path): \(etag)")
                    #expect(answer.headers[.cacheControl] == "no-cache", "\(path)")
                    tags.insert("\(etag) \(Array(buffer: answer.body).hashValue)")
                    let cached = try await client.get(path, headers: [.accept: accept, .ifNoneMatch: etag])
                    #expect(cached.status == .notModified && cached.body.readableBytes == 0, "\(path): \(cached.status)")
                    #expect(cached.headers[.eTag] == etag)
                    let other = try await client.get(path, headers: [.accept: accept, .ifNoneMatch: "\"0123\""])
                    #expect(other.status == .ok && other.body == answer.body, "\(path)")
                }
            }
            // One tag per different answer: another trace, query or Accept is another tag (the
            // findings are asked twice per trace: the same tag).
            #expect(tags.count == Set(tags.map { $0.split(separator: " ")[0] }).count)
            #expect(tags.count == 2 * (Self.answers("a", "b").count - 1))
        }
    }

    @Test func theETagNamesTheTracesTheRequestAndTheVersion() throws {
        let tag = ImmutableAnswerMiddleware.etag
        let (a1, b2) = (try #require(TraceID(String(repeating: "a1", count: 16))), try #require(TraceID(String(repeating: "b2", count: 16))))
        let base = tag([a1], "/api/traces/a1/summary", "filter=slow", "application/json", "parser 1, answers 1")
        #expect(base == tag([a1], "/api/traces/a1/summary", "filter=slow", "application/json", "parser 1, answers 1"))
        #expect(base != tag([b2], "/api/traces/a1/summary", "filter=slow", "application/json", "parser 1, answers 1"))
        #expect(base != tag([a1], "/api/traces/a1/summary", "filter=all", "application/json", "parser 1, answers 1"))
        #expect(base != tag([a1], "/api/traces/a1/summary", "filter=slow", "application/octet-stream", "parser 1, answers 1"))
        #expect(base != tag([a1], "/api/traces/a1/summary", "filter=slow", "application/json", "parser 2, answers 1"))
        #expect(base != tag([a1], "/api/traces/a1/summary", "filter=slow", "application/json", "parser 1, answers 2"))
        #expect(ImmutableAnswerMiddleware.version.contains("parser \(TraceImporter.parserVersion)"))
    }

    @Test func aDeletedTraceIsNotFoundEvenForAClientThatHasItsAnswer() async throws {
        let scratch = try Self.scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(nativeTrace(app: "Pantry"), name: "pantry.json")
            let summary = try await client.get("/api/traces/\(id)/summary")
            let etag = try #require(summary.headers[.eTag])
            #expect(try await client.execute(uri: "/api/traces/\(id)", method: .delete).status == .noContent)
            try expectError(try await client.get("/api/traces/\(id)/summary", headers: [.ifNoneMatch: etag]), .notFound)
        }
    }

    @Test func errorsAndMutableAnswersCarryNoETag() async throws {
        let scratch = try Self.scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(nativeTrace(app: "Pantry"), name: "pantry.json")
            let bad = try await client.get("/api/traces/\(id)/summary?filter=nope")
            #expect(bad.status == .badRequest && bad.headers[.eTag] == nil)
            #expect(try await client.get("/api/traces/ffffffffffffffffffffffffffffffff/summary", headers: [.ifNoneMatch: "*"]).status == .notFound)
            // Tags and notes change: the trace's info and the list are asked again each time.
            for path in ["/api/traces/\(id)", "/api/traces", "/api/traces/\(id)/notes"] {
                let answer = try await client.get(path)
                #expect(answer.status == .ok && answer.headers[.eTag] == nil && answer.headers[.cacheControl] == "no-store", "\(path)")
            }
        }
    }

    @Test func theEncoderSortsEveryKey() throws {
        var dictionary: [String: Int] = [:]
        for index in (0..<200).reversed() { dictionary["key\(index)"] = index }
        let text = String(decoding: try encodeJSON(dictionary), as: UTF8.self)
        let keys = text.split(separator: ",").map { $0.split(separator: ":")[0].filter { $0.isLetter || $0.isNumber } }
        #expect(keys == keys.sorted() && keys.count == 200)
    }
}
