import Hummingbird
import Logging
import NIOCore
import Synchronization

/// The context of every request: Hummingbird's, plus who the client is (for the query pool's
/// fairness) and its connection (so that work for a client who left is stopped).
public struct TraceRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// Closed when the client goes away; nil where requests do not come over a socket (tests).
    let connection: ConnectionWatch?
    /// The client's address key: the peer's, or the one a trusted proxy forwarded (set by
    /// `ForwardedClientMiddleware`).
    var clientAddress: String
    /// Whether `clientAddress` is one a trusted proxy forwarded (not the peer's).
    var isForwarded = false
    /// Whose share of the query pool this request uses: its address, or the write token it
    /// carries (set by `AccessGuardMiddleware`).
    var client: String
    /// Who sent it, as the audit trail names them: set by `AccessGuardMiddleware` on writes (and
    /// the reads that need a scope); nil on open reads.
    var identity: AccessIdentity?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        connection = ConnectionWatch.of(source.channel)
        clientAddress = remoteAddress.map(ClientAddress.key) ?? "local"
        client = clientAddress
    }

    /// A request the server makes of its own router for `outer` (the agent's tools at `/mcp`):
    /// the same client and connection, so it shares their place in the query pool and stops with them.
    init(inProcessFor outer: TraceRequestContext) {
        coreContext = .init(source: InProcessSource(logger: outer.logger))
        remoteAddress = outer.remoteAddress
        connection = outer.connection
        clientAddress = outer.clientAddress
        isForwarded = outer.isForwarded
        client = outer.client
    }

    /// A client of this process itself (benchmarks, tests): no connection, its own share of the pool.
    init(local logger: Logger) {
        coreContext = .init(source: InProcessSource(logger: logger))
        remoteAddress = nil
        connection = nil
        clientAddress = "local"
        client = "local"
    }

    private struct InProcessSource: RequestContextSource {
        var logger: Logger
    }

    /// The query pool's view of this request.
    var work: WorkClient { WorkClient(key: client, connection: connection) }
}

/// Who a piece of heavy work is for.
struct WorkClient: Sendable {
    /// Clients share the pool fairly by this key.
    var key: String
    /// The work stops when this closes.
    var connection: ConnectionWatch?

    /// Work on the server's own behalf (trace loads shared by requests).
    static let server = WorkClient(key: "server", connection: nil)

    /// The client of the request a task works for (`WorkClientMiddleware`), inherited by the tasks
    /// it starts: a trace load waits its turn for memory and for the load gate as this client's.
    @TaskLocal static var currentKey = "server"
}

/// Runs each request with its client as `WorkClient.currentKey` (after `AccessGuardMiddleware`,
/// which may name the client by its token).
struct WorkClientMiddleware: RouterMiddleware {
    typealias Context = TraceRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await WorkClient.$currentKey.withValue(context.client) { try await next(request, context) }
    }
}

/// The key of a client address that per-address limits count by (`IPAddress.clientKey`).
enum ClientAddress {
    static func key(_ address: SocketAddress) -> String {
        if case .unixDomainSocket = address { return "local" }
        return IPAddress(address)?.clientKey ?? "unknown"
    }
}

/// A connection's end as the requests on it see it: closed when the client closes its side
/// (or the connection goes away), so that work started for it can stop.
final class ConnectionWatch: Sendable {
    private struct State {
        var closed = false
        var nextHandler = 0
        var handlers: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    /// Runs `handler` once the connection closes (at once if it has); returns what `remove` takes.
    func onClose(_ handler: @escaping @Sendable () -> Void) -> Int? {
        let token = state.withLock { state -> Int? in
            guard !state.closed else { return nil }
            state.nextHandler += 1
            state.handlers[state.nextHandler] = handler
            return state.nextHandler
        }
        if token == nil { handler() }
        return token
    }

    func remove(_ token: Int) {
        _ = state.withLock { $0.handlers.removeValue(forKey: token) }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    func close() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.closed else { return [] }
            state.closed = true
            defer { state.handlers = [:] }
            return Array(state.handlers.values)
        }
        for handler in handlers { handler() }
    }

    // The connection guard (one per connection) opens and closes the watch; requests find it
    // by their channel.
    private static let open = Mutex<[ObjectIdentifier: ConnectionWatch]>([:])

    static func opened(for channel: any Channel) -> ConnectionWatch {
        let watch = ConnectionWatch()
        open.withLock { $0[ObjectIdentifier(channel)] = watch }
        return watch
    }

    static func of(_ channel: any Channel) -> ConnectionWatch? {
        open.withLock { $0[ObjectIdentifier(channel)] }
    }

    static func closed(_ channel: any Channel) {
        let watch = open.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
        watch?.close()
    }
}
