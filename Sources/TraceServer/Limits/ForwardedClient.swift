import HTTPTypes
import Hummingbird
import Synchronization

/// Names each request's client (`TraceRequestContext.clientAddress`, and so its share of the query
/// pool and its access-log line): the peer, or behind a trusted proxy the address the proxy
/// forwarded (`TrustedProxies`). Outermost, so that every later step sees the client.
struct ForwardedClientMiddleware: RouterMiddleware {
    typealias Context = TraceRequestContext
    let proxies: TrustedProxies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !proxies.isEmpty, context.connection != nil, !context.isInProcess else { return try await next(request, context) }
        let (key, forwarded) = proxies.client(peer: context.remoteAddress, forwardedFor: request.headers[values: .xForwardedFor])
        var context = context
        context.clientAddress = key
        context.client = key
        context.isForwarded = forwarded
        return try await next(request, context)
    }
}

/// A proxy's connections are not limited per address (they carry every client), so a forwarded
/// client's requests in flight are limited instead, as an address's connections are: to the
/// connections one address may hold (`--max-connections-per-address`), and near the server's limit
/// (`--max-connections`: each request in flight holds one of the proxy's connections) to its fair
/// share of the last quarter (`ConnectionCounter.fairShareAdmits`). Beyond, a 429 (logged and
/// counted like any answer).
struct ForwardedClientLimitMiddleware: RouterMiddleware {
    typealias Context = TraceRequestContext
    let inFlight: RequestsInFlight

    init(maxPerClient: Int, maxInAll: Int = .max) { inFlight = RequestsInFlight(limit: maxPerClient, limitInAll: maxInAll) }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.isForwarded, !context.isInProcess else { return try await next(request, context) }
        let key = context.clientAddress
        guard let ticket = inFlight.enter(key) else {
            let held = inFlight.count(key)
            throw APIError(.tooManyRequests, "too many requests", detail: held >= inFlight.limit
                ? "\(inFlight.limit) requests from your address (\(key)) are in flight already (--max-connections-per-address); try again when they are answered."
                : "The server is near its limit of \(inFlight.limitInAll) connections (--max-connections) and \(held) requests from your address (\(key)) are in flight, your share of what is left; try again when they are answered.")
        }
        var response = try await next(request, context)
        // The request is in flight until its answer is written (or dropped, when the client left),
        // not only until its handler returns: the body's writer holds the ticket.
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer { withExtendedLifetime(ticket) {} }
            try await body.write(writer)
        }
        return response
    }
}

/// Requests in flight per client, at most `limit` each, and in the last quarter of `limitInAll`
/// only a client's fair share. A request holds a `Ticket` while in flight; its last reference
/// gone, the request is no longer counted, whatever path it took.
final class RequestsInFlight: Sendable {
    let limit: Int
    let limitInAll: Int
    private let counts = Mutex<(total: Int, perClient: [String: Int])>((0, [:]))

    init(limit: Int, limitInAll: Int = .max) {
        self.limit = limit
        self.limitInAll = limitInAll
    }

    func enter(_ key: String) -> Ticket? {
        let entered = counts.withLock { counts in
            let held = counts.perClient[key, default: 0]
            guard held < limit, limitInAll == .max || ConnectionCounter.fairShareAdmits(held: held, total: counts.total, limit: limitInAll) else { return false }
            counts.perClient[key] = held + 1
            counts.total += 1
            return true
        }
        return entered ? Ticket { self.leave(key) } : nil
    }

    func count(_ key: String) -> Int { counts.withLock { $0.perClient[key, default: 0] } }

    private func leave(_ key: String) {
        counts.withLock { counts in
            counts.total -= 1
            counts.perClient[key, default: 1] -= 1
            if counts.perClient[key]! <= 0 { counts.perClient[key] = nil }
        }
    }

    /// A request's place among its client's in flight, given back when dropped.
    typealias Ticket = ReleaseOnDrop
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
}
