import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// The CLI's requests and a server that redirects them (issue 39): the write token never reaches
/// another origin, and another origin's answer is never reported as the server's.
@Suite struct RedirectTests {
    /// What a tiny HTTP server saw: each request's path and whether it carried `Authorization`.
    final class Seen: Sendable {
        private let requests = Mutex<[(path: String, authorized: Bool)]>([])
        func add(_ path: String, authorized: Bool) { requests.withLock { $0.append((path, authorized)) } }
        var all: [(path: String, authorized: Bool)] { requests.withLock { $0 } }
    }

    /// A tiny server on a port of its own: every request is recorded; `answer` says what it answers.
    static func withServer(_ answer: @escaping @Sendable (Request, Seen) -> Response, _ body: @Sendable (_ root: String, _ seen: Seen) async throws -> Void) async throws {
        let seen = Seen()
        let router = Router()
        router.on("**", method: .get) { request, _ in answer(request, seen) }
        router.on("**", method: .post) { request, _ in
            _ = try await request.body.collect(upTo: 16 << 20)
            return answer(request, seen)
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body("http://127.0.0.1:\(try #require(client.port))", seen)
        }
    }

    static func record(_ request: Request, _ seen: Seen) {
        seen.add(request.uri.string, authorized: request.headers[.authorization] != nil)
    }

    static func redirect(_ status: HTTPResponse.Status, to location: String) -> Response {
        Response(status: status, headers: [.location: location])
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The binary run off the cooperative threads (the servers answer on them).
    static func tracesvc(_ arguments: [String], environment: [String: String] = [:]) async throws -> CheckTests.Run {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try CheckTests.tracesvc(arguments, environment: environment) })
            }
        }
    }

    @Test func anUploadRedirectedToAnotherOriginSendsItNothingAndFails() async throws {
        let folder = try CheckTests.Folder()
        let file = try folder.file("recipes-scroll.json", recipesTrace(build: 1, bodyNs: 300_000))
        try await Self.withServer({ request, seen in Self.record(request, seen); return Self.json(.created, #"{"trace": {"id": "foreign"}}"#) }) { foreign, foreignSeen in
            for status in [HTTPResponse.Status.temporaryRedirect, .permanentRedirect, .found, .seeOther] {
                try await Self.withServer({ request, seen in Self.record(request, seen); return Self.redirect(status, to: foreign + "/api/traces") }) { root, seen in
                    let run = try await Self.tracesvc(["upload", file, "--server", root, "--retries", "0"], environment: ["TRACESVC_TOKEN": "s3cret"])
                    #expect(run.status == 1 && run.stdout.isEmpty, "HTTP \(status.code): \(run.stdout)")
                    #expect(run.stderr.contains(foreign + "/api/traces") && run.stderr.contains("not followed"), "says where it was sent: \(run.stderr)")
                    #expect(seen.all.count == 1 && seen.all[0].authorized)
                }
            }
            #expect(foreignSeen.all.isEmpty, "neither the trace nor the token went to the other origin: \(foreignSeen.all)")
        }
    }

    @Test func aReadRedirectedToAnotherOriginGoesWithoutTheTokenAndItsAnswerIsNotTheServers() async throws {
        let folder = try CheckTests.Folder()
        let file = try folder.file("recipes-scroll.json", recipesTrace(build: 1, bodyNs: 300_000))
        let budget = try folder.file("budget.json", CheckTests.noRedRows)
        // The foreign host answers as a tracesvc would, with a baseline.
        let list = #"{"traces": [{"id": "0123456789abcdef0123456789abcdef", "name": "evil.json"}], "total": 1}"#
        try await Self.withServer({ request, seen in Self.record(request, seen); return Self.json(.ok, list) }) { foreign, foreignSeen in
            try await Self.withServer({ request, seen in Self.record(request, seen); return Self.redirect(.found, to: foreign + request.uri.string) }) { root, _ in
                let run = try await Self.tracesvc(["check", file, "--budget", budget, "--server", root, "--baseline-tags", "branch=main", "--token", "s3cret"])
                #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
                #expect(run.stderr.contains("another origin") && run.stderr.contains(foreign + "/api/traces?"), "\(run.stderr)")
            }
            #expect(foreignSeen.all.count == 1 && foreignSeen.all.allSatisfy { !$0.authorized }, "followed once, without the token: \(foreignSeen.all)")
        }
    }

    @Test func aRedirectWithinTheServerKeepsTheTokenAndSucceeds() async throws {
        let folder = try CheckTests.Folder()
        let file = try folder.file("recipes-scroll.json", recipesTrace(build: 1, bodyNs: 300_000))
        try await Self.withServer({ request, seen in
            Self.record(request, seen)
            guard request.uri.path.hasPrefix("/moved") else { return Self.redirect(.temporaryRedirect, to: "/moved" + request.uri.string) }
            guard request.headers[.authorization] == "Bearer s3cret" else { return Self.json(.unauthorized, #"{"error": "token"}"#) }
            return Self.json(.created, #"{"trace": {"id": "0123456789abcdef", "name": "recipes-scroll.json", "tags": []}}"#)
        }) { root, seen in
            let run = try await Self.tracesvc(["upload", file, "--server", root], environment: ["TRACESVC_TOKEN": "s3cret"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.hasPrefix(root + "/traces/0123456789abcdef"), "\(run.stdout)")
            #expect(seen.all.map(\.authorized) == [true, true] && seen.all[1].path.hasPrefix("/moved/api/traces?"))
        }
    }

    @Test func aServersErrorWithTerminalControlBytesIsPrintedAsText() async throws {
        let folder = try CheckTests.Folder()
        let file = try folder.file("recipes-scroll.json", recipesTrace(build: 1, bodyNs: 300_000))
        let hostile = #"{"error": "bad\u001b]0;owned\u0007", "detail": "\u001b[2J\u001b[31mred\u0007\u009b1m\nsecond line"}"#
        try await Self.withServer({ _, _ in Self.json(.internalServerError, hostile) }) { root, _ in
            let run = try await Self.tracesvc(["upload", file, "--server", root, "--retries", "0"], environment: ["TRACESVC_TOKEN": "s3cret"])
            #expect(run.status == 1)
            let controls = run.stderr.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F..<0xA0).contains($0.value) }
            #expect(controls.isEmpty, "no ESC, BEL or C1 reaches the terminal: \(run.stderr.debugDescription)")
            #expect(run.stderr.contains(#"\u{1B}[31mred\u{7}"#) && run.stderr.trimmingCharacters(in: .newlines).split(separator: "\n").count == 1, "\(run.stderr)")
        }
    }
}
