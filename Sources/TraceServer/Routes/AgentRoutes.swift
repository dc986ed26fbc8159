import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MCP
import Synchronization
import TraceAgent

/// `POST /mcp`: the agent interface (docs/agents.md) over MCP's Streamable HTTP, stateless (one
/// JSON answer a request, no session). The tools read this server's own API in process, through
/// the router with its middleware, so they answer what `tracesvc mcp --server` answers over HTTP.
/// Reading is open as every read is; `add_note` needs the write token (docs/api.md, "Access"):
/// the access guard lets `/mcp` through without it, checking Host and Origin as for any write.
struct AgentRoutes: RouteController {
    /// One JSON-RPC message: a tool call's arguments are short.
    static let maxRequestBytes = 1 << 20
    static let path = "/mcp"

    let policy: AccessPolicy
    let api: InProcessResponder

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get(RouterPath(Self.path), use: noStream)
        router.post(RouterPath(Self.path), use: message)
    }

    /// Stateless: no stream of server-sent events to open. The spec's answer is 405, which
    /// clients read as "no stream" (a 404 would read as an expired session). With a body, so its
    /// length is sent and the connection stays open for the client's next POST.
    @Sendable func noStream(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let body = #"{"error": "method not allowed", "detail": "/mcp is stateless: POST a JSON-RPC message; there is no event stream to open.", "location": null}"#
        return Response(
            status: .methodNotAllowed, headers: [.allow: "POST", .cacheControl: "no-store", .contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: body))
        )
    }

    @Sendable func message(_ request: Request, context: TraceRequestContext) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: Self.maxRequestBytes)
        let authorization = request.headers[.authorization]
        // No token configured (a loopback server) means anyone may write, as for every write.
        let writesAllowed = policy.writeToken == nil || context.identity?.allows(.annotate) == true
        let scheme = request.headers[.xForwardedProto]?.lowercased() == "https" ? "https" : "http"
        let agent = AgentContext(
            api: InProcessTraceAPI(responder: api, outer: context, authorization: writesAllowed ? authorization : nil),
            linkBase: "\(scheme)://\(request.head.authority ?? "127.0.0.1")", writesAllowed: writesAllowed
        )
        let server = await AgentServer.make(context: agent)
        let transport = StatelessHTTPServerTransport(validationPipeline: StandardValidationPipeline(validators: [
            AcceptHeaderValidator(mode: .jsonOnly), ContentTypeValidator(), ProtocolVersionValidator(),
        ]))
        try await server.start(transport: transport)
        var headers: [String: String] = [:]
        for field in request.headers where field.name != .authorization { headers[field.name.canonicalName] = field.value }
        let answer = await transport.handleRequest(MCP.HTTPRequest(method: "POST", headers: headers, body: Data(body.readableBytesView), path: "/mcp"))
        await server.stop()
        var fields = HTTPFields()
        for (name, value) in answer.headers.sorted(by: { $0.key < $1.key }) {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        fields[.cacheControl] = "no-store"
        return Response(
            status: .init(code: answer.statusCode),
            headers: fields,
            body: answer.bodyData.map { ResponseBody(byteBuffer: ByteBuffer(bytes: $0)) } ?? ResponseBody()
        )
    }
}

/// The tools' API on `router` in process, as `POST /mcp` reads it (for the benchmarks and tests),
/// on behalf of a local client without the write token.
public func inProcessTraceAPI(router: Router<TraceRequestContext>) -> any TraceAPI {
    let responder = InProcessResponder()
    responder.set(router.buildResponder())
    return InProcessTraceAPI(responder: responder, outer: TraceRequestContext(local: Logger(label: "tracesvc.agent")), authorization: nil)
}

/// The router answering the in-process requests: set once the router holds every route.
public final class InProcessResponder: Sendable {
    private let responder = Mutex<RouterResponder<TraceRequestContext>?>(nil)

    public init() {}

    func set(_ responder: RouterResponder<TraceRequestContext>) {
        self.responder.withLock { $0 = responder }
    }

    func respond(to request: Request, context: TraceRequestContext) async throws -> Response {
        guard let responder = responder.withLock({ $0 }) else { throw APIError(.serviceUnavailable, "server starting", detail: "The agent interface answers once the server has started.") }
        return try await responder.respond(to: request, context: context)
    }
}

/// The API as the tools read it at `/mcp`: a request to this server's router, never a socket.
/// It counts against the MCP client's share of the query pool and stops when its connection
/// closes, as the client's own requests would.
struct InProcessTraceAPI: TraceAPI {
    let responder: InProcessResponder
    let outer: TraceRequestContext
    let authorization: String?

    func get(_ pathAndQuery: String) async throws(TraceAPIError) -> APIAnswer {
        try await send(.get, pathAndQuery, body: nil)
    }

    func post(_ path: String, json: Data) async throws(TraceAPIError) -> APIAnswer {
        try await send(.post, path, body: json)
    }

    private func send(_ method: HTTPRequest.Method, _ path: String, body: Data?) async throws(TraceAPIError) -> APIAnswer {
        var head = HTTPRequest(method: method, scheme: "http", authority: "localhost", path: path)
        head.headerFields[.accept] = "application/json"
        if let body {
            head.headerFields[.contentType] = "application/json"
            head.headerFields[.contentLength] = String(body.count)
        }
        if let authorization { head.headerFields[.authorization] = authorization }
        let request = Request(head: head, body: .init(buffer: ByteBuffer(bytes: body ?? Data())))
        let context = TraceRequestContext(inProcessFor: outer)
        do {
            let response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as any HTTPResponseError {
                // What the server answers over HTTP for an error no middleware turned into JSON.
                response = try error.response(from: request, context: context)
            }
            let collector = BodyCollector()
            try await response.body.write(collector)
            return APIAnswer(status: response.status.code, body: collector.bytes)
        } catch {
            throw TraceAPIError("tracesvc failed answering \(path): \(error)")
        }
    }
}

/// Keeps what a response body writes.
private final class BodyCollector: ResponseBodyWriter, Sendable {
    private let buffer = Mutex(Data())

    var bytes: Data { buffer.withLock { $0 } }

    func write(_ buffer: ByteBuffer) async throws {
        self.buffer.withLock { $0.append(contentsOf: buffer.readableBytesView) }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
