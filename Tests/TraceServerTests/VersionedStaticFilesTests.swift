import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TraceServer

/// A reload costs no module download: the app page names its files under `/v/<version>/`, served
/// immutable; a changed file is a new version, so the page names new URLs.
struct VersionedStaticFilesTests {
    private func versionedScript(_ page: String) throws -> String {
        let start = try #require(page.range(of: "src=/v/"))
        let end = try #require(page[start.upperBound...].firstIndex(of: ">"))
        return "/v/" + page[start.upperBound..<end]
    }

    @Test func theAppPageNamesImmutableVersionedFilesAndAChangeIsANewURL() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let page = try await client.get("/")
            #expect(page.headers[.cacheControl] == "no-cache")
            let script = try versionedScript(page.text)
            #expect(script.hasSuffix("/js/app.js"), "\(page.text)")
            let module = try await client.get(script)
            #expect(module.status == .ok && module.text == "export const answer = 42;\n")
            #expect(module.headers[.cacheControl] == "public, max-age=31536000, immutable")
            // What an ES module imports relative to itself is under the same version: also immutable.
            let style = try await client.get(script.replacingOccurrences(of: "js/app.js", with: "css/app.css"))
            #expect(style.status == .ok && style.headers[.cacheControl] == "public, max-age=31536000, immutable")
            // The plain path still works, revalidated each time.
            #expect(try await client.get("/js/app.js").headers[.cacheControl] == "no-cache")
            // A version this server does not have: its bytes, but not for good.
            let other = try await client.get("/v/0123456789abcdef/js/app.js")
            #expect(other.status == .ok && other.headers[.cacheControl] == "no-cache")

            // A file of the web root changes: the page names another version.
            try Data("export const answer = 43;\n".utf8).write(to: scratch.webRoot.appendingPathComponent("js/app.js"))
            let changed = try versionedScript(try await client.get("/").text)
            #expect(changed != script)
            #expect(try await client.get(changed).text == "export const answer = 43;\n")
        }
    }
}
