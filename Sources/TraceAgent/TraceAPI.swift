import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What the agent's tools read: tracesvc's HTTP API (docs/api.md). `tracesvc mcp` reaches a
/// server over HTTP (`HTTPTraceAPI`); `POST /mcp` asks the server's own router in process. Both
/// answer the same bytes, so the tools answer the same text either way.
public protocol TraceAPI: Sendable {
    /// `GET pathAndQuery` (an absolute path under `/api/`).
    func get(_ pathAndQuery: String) async throws(TraceAPIError) -> APIAnswer
    /// `POST path` with a JSON body (a note).
    func post(_ path: String, json: Data) async throws(TraceAPIError) -> APIAnswer
}

/// One answer of the API: its status and body.
public struct APIAnswer: Sendable {
    public var status: Int
    public var body: Data

    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}

/// The API could not be asked: the server is down, slow or gone. (An answer with an error
/// status is an `APIAnswer`.)
public struct TraceAPIError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// The API of a running tracesvc over HTTP, each request within a deadline.
public final class HTTPTraceAPI: TraceAPI {
    /// The server's root URL, without a trailing slash.
    public let server: String
    private let token: String?
    private let deadline: TimeAmount
    private let client: HTTPClient

    public init(server: String, token: String?, deadline: TimeAmount = .seconds(30)) {
        var root = server
        while root.hasSuffix("/") { root.removeLast() }
        self.server = root
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        self.deadline = deadline
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(3), read: deadline)
        // tracesvc never redirects its API; following one would carry the token to whatever host it names.
        configuration.redirectConfiguration = .disallow
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func shutdown() async {
        try? await client.shutdown()
    }

    public func get(_ pathAndQuery: String) async throws(TraceAPIError) -> APIAnswer {
        try await send(pathAndQuery, method: .GET, body: nil)
    }

    public func post(_ path: String, json: Data) async throws(TraceAPIError) -> APIAnswer {
        try await send(path, method: .POST, body: json)
    }

    /// Answers larger than this are not read (the largest answer the tools ask for, a call tree,
    /// is a few MB).
    private static let maxAnswerBytes = 64 << 20

    private func send(_ path: String, method: HTTPMethod, body: Data?) async throws(TraceAPIError) -> APIAnswer {
        var request = HTTPClientRequest(url: server + path)
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
            if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        }
        do {
            let response = try await client.execute(request, deadline: .now() + deadline)
            if (300..<400).contains(response.status.code), let location = response.headers.first(name: "Location") {
                throw TraceAPIError("tracesvc at \(server) redirected \(path) to \(Self.printable(location)): not followed (the token goes to no other address); give the server's own URL")
            }
            let bytes = try await response.body.collect(upTo: Self.maxAnswerBytes)
            return APIAnswer(status: Int(response.status.code), body: Data(bytes.readableBytesView))
        } catch let error as TraceAPIError {
            throw error
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw TraceAPIError("tracesvc at \(server) did not answer \(path) within \(deadline.nanoseconds / 1_000_000_000) s")
        } catch {
            throw TraceAPIError("cannot reach tracesvc at \(server) (\(path)): \(error)")
        }
    }

    /// A header's text as one line a terminal shows as text (no control characters).
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(500).map { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) ? "?" : $0 }))
    }
}
