import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Logging
import Metrics
import Synchronization

/// Limits that keep one client from holding the server: how many connections may be open (in
/// all and per address), how long a request head may take, how slowly and how long a body may
/// arrive. (Hummingbird's idle timeout covers a connection that sends no complete request head:
/// partial headers never reach its state machine.)
public struct ConnectionLimits: Sendable {
    /// Open connections beyond this are closed as soon as they are accepted.
    public var maxConnections = 512
    /// Open connections from one address (an IPv6 /64) beyond this are closed as they are accepted.
    public var maxConnectionsPerAddress = 32
    /// A connection without a complete request head (or idle between requests) for this long is closed.
    public var idleTimeout: TimeAmount = .seconds(30)
    /// ...and for only this long once the server, or the client's address, is near its connection
    /// limit (three quarters of it), so that half-open sockets cannot hold the slots.
    public var busyHeaderTimeout: TimeAmount = .seconds(5)
    /// A request whose body sends nothing for this long while the server waits for it is closed
    /// (a stalled upload is discarded).
    public var bodyReadTimeout: TimeAmount = .seconds(30)
    /// A body must arrive at least this fast on average over the time the server waits for it,
    /// measured once it has waited `minBodyRateGrace`: a body trickled a byte at a time is cut off,
    /// whatever its pauses.
    public var minBodyBytesPerSecond = 1024
    public var minBodyRateGrace: TimeAmount = .seconds(10)
    /// A body must be complete this long after its request head, however fast it arrives.
    public var bodyDeadline: TimeAmount = .seconds(3600)
    /// Proxies whose connections carry many clients: not limited per address; their requests are
    /// counted by the client address they forward instead (`ForwardedClientMiddleware`).
    public var trustedProxies = TrustedProxies.none

    public init() {}
}

/// Counts open connections across all event loops, in all and per client address, and shares the
/// last of them fairly: the last quarter of the server's slots goes by need, an address holding `c`
/// connections getting one only while more than `fairShareFactor * c` are free. So an address
/// holding none always finds the last slots free of those that hold some. Addresses at their
/// per-address maximum get none of that quarter, and each fresh address takes less of it than the one
/// before: at the defaults (512, 32) it takes 56 addresses to leave a newcomer no slot, not 16.
final class ConnectionCounter: Sendable {
    private struct Open {
        var total = 0
        var perAddress: [String: Int] = [:]
    }
    private let open = Mutex(Open())
    let limit: Int
    let limitPerAddress: Int
    /// Peers not limited per address (trusted proxies).
    let exempt: TrustedProxies
    /// In the last quarter of the slots, free slots an address needs per connection it holds.
    static let fairShareFactor = 16

    init(limit: Int, limitPerAddress: Int = .max, exempt: TrustedProxies = .none) {
        self.limit = limit
        self.limitPerAddress = limitPerAddress
        self.exempt = exempt
    }

    /// The key a connection from `peer` is counted by: its address, or "" (counted in all only) for a trusted proxy.
    func key(of peer: SocketAddress?) -> String {
        if exempt.trusts(peer) { return "" }
        return peer.map(ClientAddress.key) ?? "unknown"
    }

    /// Whether an address holding `held` connections may open another while `total` are open: below
    /// the last quarter of `limit`, any; in it, only while more than `fairShareFactor * held` are free.
    static func fairShareAdmits(held: Int, total: Int, limit: Int) -> Bool {
        let free = limit - total
        guard free > 0 else { return false }
        return free * 4 > limit || free > fairShareFactor * held
    }

    /// Adds a connection from `address` (its `key`); false when that puts the server or the
    /// address over its limit, or the address past its fair share of the last slots (the caller
    /// closes it, and releases it like any other). A trusted proxy has no fair share: it carries everyone.
    func admit(_ address: String) -> Bool {
        let refusal: String? = open.withLock { open in
            let held = address.isEmpty ? 0 : open.perAddress[address, default: 0]
            let total = open.total
            open.total += 1
            if !address.isEmpty { open.perAddress[address] = held + 1 }
            if total >= limit { return "server" }
            if address.isEmpty { return nil }
            if held >= limitPerAddress { return "address" }
            return Self.fairShareAdmits(held: held, total: total, limit: limit) ? nil : "share"
        }
        if let refusal { noteRefused(scope: refusal, address: address.isEmpty ? "a trusted proxy" : address) }
        return refusal == nil
    }

    /// Refusals since the last log line, and when that line was.
    private let refusedSinceLog = Mutex<(count: Int, loggedAt: ContinuousClock.Instant?)>((0, nil))

    /// A refused connection is counted (`tracesvc_connections_refused_total{limit}`) and logged,
    /// at most once per 10 s with how many were refused meanwhile (a flood must not flood the log).
    private func noteRefused(scope: String, address: String) {
        Counter(label: "tracesvc_connections_refused_total", dimensions: [("limit", scope)]).increment()
        let now = ContinuousClock.now
        let refused: Int? = refusedSinceLog.withLock { state in
            state.count += 1
            if let last = state.loggedAt, now - last < .seconds(10) { return nil }
            defer { state = (0, now) }
            return state.count
        }
        if let refused {
            let limitNamed = switch scope {
            case "server": "the server's limit of \(limit)"
            case "address": "the per-address limit of \(limitPerAddress)"
            default: "the address's fair share of the server's last free slots"
            }
            Self.logger.warning("refused \(refused) connection(s) over \(limitNamed), the latest from \(address)")
        }
    }

    private static let logger = Logger(label: "tracesvc.connections")

    func release(_ address: String) {
        open.withLock { open in
            open.total -= 1
            guard !address.isEmpty else { return }
            open.perAddress[address, default: 1] -= 1
            if open.perAddress[address]! <= 0 { open.perAddress[address] = nil }
        }
    }

    var current: Int { open.withLock { $0.total } }

    /// Three quarters or more of the server's slots, or of the address's, are taken.
    func isNearLimit(_ address: String) -> Bool {
        let (total, held) = open.withLock { ($0.total, $0.perAddress[address, default: 0]) }
        if total * 4 >= limit * 3 { return true }
        guard !address.isEmpty else { return false }
        return held * 4 >= limitPerAddress * 3
    }
}

/// Per-connection guard, added after the HTTP codec: enforces the connection limits, closes a
/// connection whose head is slow while the server is busy, cuts off bodies that stall, trickle
/// or take too long, answers `Expect: 100-continue` unless the headers already decide the answer
/// (an upload over the size limit or the storage quota), tells the requests on the connection
/// when the client leaves (`ConnectionWatch`), and turns HTTP parser errors (a huge URL or
/// header) into the API's JSON error instead of an empty 400.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let counter: ConnectionCounter
    private let limits: ConnectionLimits
    /// Whether to answer `Expect: 100-continue` to this request head (false: its answer is
    /// known from the headers, and sending the body would be for nothing).
    private let continueAllowed: @Sendable (HTTPRequest) -> Bool
    private var address = "unknown"
    private var admitted = false
    private var awaitingHead = true
    private var idleSince = NIODeadline.now()
    private var headCheck: Scheduled<Void>?
    private var readingBody = false
    private var bodyStart = NIODeadline.now()
    private var bodyBytes = 0
    /// Time this request's body kept the server waiting: only while the server asked for more
    /// (a read was requested and nothing came), so a server slow to read is not the client's fault.
    private var bodyWaited: TimeAmount = .zero
    /// Since when the server has been asking for data that has not come; nil when it is not asking.
    private var waitingSince: NIODeadline?
    private var responseStarted = false
    /// Requests whose head has been read, whose end has been read, and responses whose end has
    /// been written. A response's end belongs to the oldest request not yet answered, which need not
    /// be the last one read: a client reads a response whose length it knows as soon as its body
    /// is flushed, and may send its next request before the response's end passes this handler.
    private var requestsBegun = 0
    private var requestsRead = 0
    private var responsesEnded = 0
    private var bodyCheck: Scheduled<Void>?
    /// Answered before its body ended (a refused upload): the rest of the body is read and thrown
    /// away for a moment, so that the client sees the answer, and then the connection is closed.
    private var discarding = false
    /// How long a refused body is read and thrown away before the connection closes.
    static let lingerAfterRefusal: TimeAmount = .seconds(2)

    init(counter: ConnectionCounter, limits: ConnectionLimits, continueAllowed: @escaping @Sendable (HTTPRequest) -> Bool = { _ in true }) {
        self.counter = counter
        self.limits = limits
        self.continueAllowed = continueAllowed
    }

    func handlerAdded(context: ChannelHandlerContext) {
        address = counter.key(of: context.channel.remoteAddress)
        admitted = counter.admit(address)
        if !admitted {
            context.close(promise: nil)
            return
        }
        _ = ConnectionWatch.opened(for: context.channel)
        scheduleHeadCheck(context)
    }

    /// The slot goes back once, as soon as the server stops answering on this connection: a client
    /// that reads a response to its end and connects again must find the slot it just left free,
    /// not held until the server has seen the client's side close as well.
    private var slotReleased = false
    private func releaseSlot() {
        guard !slotReleased else { return }
        slotReleased = true
        counter.release(address)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode != .input { releaseSlot() }
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        releaseSlot()
        headCheck?.cancel()
        bodyCheck?.cancel()
        headCheck = nil
        bodyCheck = nil
        ConnectionWatch.closed(context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        releaseSlot()
        ConnectionWatch.closed(context.channel)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client closed its side (the server allows half-closed connections): it is gone,
        // and so is any reason to finish work for it.
        if case .some(.inputClosed) = event as? ChannelEvent { ConnectionWatch.closed(context.channel) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard admitted else { return }
        if discarding {
            if case .end = unwrapInboundIn(data) { context.close(promise: nil) } else { context.read() }
            return
        }
        let now = NIODeadline.now()
        if let waitingSince {
            if readingBody { bodyWaited = bodyWaited + (now - waitingSince) }
            self.waitingSince = nil
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            awaitingHead = false
            readingBody = true
            requestsBegun += 1
            bodyStart = now
            bodyBytes = 0
            bodyWaited = .zero
            scheduleBodyCheck(context)
            if head.headerFields[.expect]?.lowercased() == "100-continue", continueAllowed(head) {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
        case .body(let buffer):
            bodyBytes += buffer.readableBytes
        case .end:
            readingBody = false
            requestsRead += 1
            bodyCheck?.cancel()
            bodyCheck = nil
        }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        if waitingSince == nil { waitingSince = .now() }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.kind != .informational:
            responseStarted = true
        case .end where responsesEnded == requestsRead:
            // Answered before the body ended (the request answered is the one still being read):
            // Hummingbird would read the rest to keep the connection (or, told to close, stop
            // reading and wait for the client, who is still sending). Read it away instead,
            // briefly, then close.
            readingBody = false
            responsesEnded += 1
            responseStarted = false
            bodyCheck?.cancel()
            bodyCheck = nil
            discarding = true
            let channel = context.channel
            context.write(data, promise: promise)
            context.flush()
            context.read()
            context.eventLoop.scheduleTask(in: Self.lingerAfterRefusal) { channel.close(promise: nil) }
            return
        case .end:
            responsesEnded += 1
            responseStarted = false
            // The response is out: the connection waits for its next request head, unless the
            // client has already sent it.
            guard responsesEnded == requestsBegun else { break }
            awaitingHead = true
            idleSince = .now()
            scheduleHeadCheck(context)
        default:
            break
        }
        context.write(data, promise: promise)
    }

    /// While waiting for a request head: once the connection has waited `busyHeaderTimeout`,
    /// checks every second whether the server or its address is near the connection limit, and
    /// then closes it (the idle timeout covers the rest). The wait is measured from the last
    /// response's end: a check scheduled during an earlier wait must not close a connection that
    /// has only just finished a response (its client may be sending the next request).
    private func scheduleHeadCheck(_ context: ChannelHandlerContext) {
        guard headCheck == nil else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        headCheck = context.eventLoop.scheduleTask(deadline: max(idleSince + limits.busyHeaderTimeout, .now() + .seconds(1))) {
            let (handler, context) = loopBound.value
            handler.headCheck = nil
            guard handler.awaitingHead else { return }
            if NIODeadline.now() - handler.idleSince >= handler.limits.busyHeaderTimeout, handler.counter.isNearLimit(handler.address) {
                context.close(promise: nil)
            } else {
                handler.scheduleHeadCheck(context)
            }
        }
    }

    /// While a body arrives: every second, the silence, rate and deadline checks.
    private func scheduleBodyCheck(_ context: ChannelHandlerContext) {
        guard bodyCheck == nil else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        bodyCheck = context.eventLoop.scheduleTask(in: .seconds(1)) {
            let (handler, context) = loopBound.value
            handler.bodyCheck = nil
            guard handler.readingBody else { return }
            let now = NIODeadline.now()
            if let waitingSince = handler.waitingSince, now - waitingSince >= handler.limits.bodyReadTimeout {
                context.close(promise: nil)  // silent: as before, nothing more to say to a client that says nothing
            } else if let reason = handler.bodyTooSlow(at: now) {
                handler.refuse(context, status: .requestTimeout, error: "upload too slow", detail: reason)
            } else {
                handler.scheduleBodyCheck(context)
            }
        }
    }

    private func bodyTooSlow(at now: NIODeadline) -> String? {
        let elapsed = now - bodyStart
        if elapsed >= limits.bodyDeadline {
            return "The request body did not arrive within \(limits.bodyDeadline.nanoseconds / 1_000_000_000) s (--upload-deadline)."
        }
        let waited = bodyWaited + (waitingSince.map { now - $0 } ?? .zero)
        guard waited > limits.minBodyRateGrace else { return nil }
        let required = Int64(limits.minBodyBytesPerSecond) * waited.nanoseconds / 1_000_000_000
        guard Int64(bodyBytes) < required else { return nil }
        return "The request body arrived slower than \(limits.minBodyBytesPerSecond) bytes a second (--min-upload-rate)."
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        refuse(context, status: .badRequest, error: "malformed request",
               detail: "The request could not be parsed as HTTP: \(Self.describe(parserError)).")
    }

    /// Answers with the API's JSON error (unless a response has begun) and closes the connection.
    private func refuse(_ context: ChannelHandlerContext, status: HTTPResponse.Status, error: String, detail: String) {
        readingBody = false
        guard !responseStarted else {
            context.close(promise: nil)
            return
        }
        responseStarted = true
        let body = APIError(status, error, detail: detail).jsonBody()
        var buffer = context.channel.allocator.buffer(capacity: body.count)
        buffer.writeBytes(body)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .contentLength: "\(body.count)", .connection: "close"]
        SecurityHeaders.add(to: &headers)
        let head = HTTPResponse(status: status, headerFields: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(buffer)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    private static func describe(_ error: HTTPParserError) -> String {
        switch error {
        case .headerOverflow: "the request line or headers are too large"
        case .invalidURL: "the URL is invalid"
        case .invalidHeaderToken: "a header is malformed"
        case .invalidMethod: "the method is not valid"
        case .invalidVersion: "the HTTP version is not valid"
        default: "\(error)"
        }
    }
}
