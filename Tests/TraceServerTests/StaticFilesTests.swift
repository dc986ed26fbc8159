import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TraceServer

@Suite struct StaticFilesTests {
    @Test func servesAssetsWithTheirContentTypes() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let expected = [
                "/js/app.js": "text/javascript; charset=utf-8",
                "/css/app.css": "text/css; charset=utf-8",
                "/icons/logo.svg": "image/svg+xml",
                "/index.html": "text/html; charset=utf-8",
            ]
            for (path, type) in expected {
                let response = try await client.get(path)
                #expect(response.status == .ok, "\(path)")
                #expect(response.headers[.contentType] == type, "\(path)")
            }
            #expect(try await client.get("/js/app.js").text == "export const answer = 42;\n")
            try expectError(try await client.get("/js/missing.js"), .notFound)
        }
    }

    @Test func appRoutesAnswerWithTheAppPage() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            for path in ["/", "/traces/0123456789abcdef0123456789abcdef", "/traces/abc/updates/12?v=1&w=0,100"] {
                let response = try await client.get(path)
                // The page's script is named under the web root's version (VersionedStaticFilesTests).
                let page = response.text.replacing(#/=/v/[0-9a-f]+/js//#, with: "=/js/")
                #expect(response.status == .ok && page == Scratch.indexHTML, "\(path)")
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            }
        }
    }

    @Test func anUnknownPageIsTheAppsNotFoundPageForBrowsersAndJSONOtherwise() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let browser: HTTPFields = [.accept: "text/html,application/xhtml+xml,*/*;q=0.8"]
            let page = try await client.get("/nope", headers: browser)
            #expect(page.status == .notFound && page.text.replacing(#/=/v/[0-9a-f]+/js//#, with: "=/js/") == Scratch.indexHTML)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            try expectError(try await client.get("/nope"), .notFound)
            try expectError(try await client.get("/api/nope", headers: browser), .notFound)
            // A module script asks with Accept: */*: a missing one stays a JSON 404.
            try expectError(try await client.get("/js/missing.js", headers: [.accept: "*/*"]), .notFound)
        }
    }

    @Test func etagGivesNotModified() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let first = try await client.get("/js/app.js")
            let etag = try #require(first.headers[.eTag])
            let second = try await client.get("/js/app.js", headers: [.ifNoneMatch: etag])
            #expect(second.status == .notModified && second.body.readableBytes == 0)
            #expect(try await client.get("/js/app.js", headers: [.ifNoneMatch: "\"other\""]).status == .ok)
            // Weak validators and lists (what proxies and browsers send) match too.
            #expect(try await client.get("/js/app.js", headers: [.ifNoneMatch: "\"other\", W/\(etag)"]).status == .notModified)
            #expect(try await client.get("/js/app.js", headers: [.ifNoneMatch: "\"other\",  *"]).status == .notModified)
        }
    }

    @Test func traversalAndNULAreRefused() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            for path in ["/../secret.txt", "/js/../../secret.txt", "/%2e%2e/secret.txt", "/js/%2E%2E/%2e%2e/secret.txt", "/js/..%2f..%2fsecret.txt",
                         "/index.html%00.js", "/js/app.js%00", "/%5c..%5csecret.txt"] {
                let response = try await client.get(path)
                #expect(response.status == .badRequest || response.status == .notFound, "\(path): \(response.status)")
                #expect(!response.text.contains("secret") || response.status != .ok, "\(path)")
                #expect(response.headers[.contentType] != "text/javascript; charset=utf-8", "\(path)")
            }
            #expect(try await client.get("/index.html%00.js").status == .badRequest)
            #expect(try await client.get("/%2e%2e/secret.txt").status == .badRequest)
        }
    }

    @Test func symlinkLeadingOutOfTheWebRootIsNotFollowed() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let response = try await client.get("/js/leak.js")
            #expect(response.status == .notFound)
            #expect(!response.text.contains("secret"))
        }
    }

    @Test func rangeRequestsGetTheWholeFile() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let whole = "export const answer = 42;\n"
            for range in ["bytes=-5", "bytes=1000-2000", "bytes=0-1,5-7", "bytes=2-4"] {
                let response = try await client.get("/js/app.js", headers: [.range: range])
                #expect(response.status == .ok && response.text == whole, "\(range)")
                #expect(response.headers[.contentLength] == String(whole.utf8.count))
            }
        }
    }

    @Test func headHasHeadersWithoutBody() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let response = try await client.execute(uri: "/js/app.js", method: .head)
            #expect(response.status == .ok && response.body.readableBytes == 0)
            #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
            // App routes too (link checkers and chat previews send HEAD first).
            let pageBytes = try await client.get("/").body.readableBytes
            for path in ["/", "/traces/0123456789abcdef0123456789abcdef", "/traces/abc/updates/12?v=2"] {
                let page = try await client.execute(uri: path, method: .head)
                #expect(page.status == .ok && page.body.readableBytes == 0, "\(path)")
                #expect(page.headers[.contentLength] == String(pageBytes), "\(path)")
            }
        }
    }
}
