import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Synchronization

/// Limits that keep one client from holding the server: how many connections may be open, how
/// long a request's body may stall. (Hummingbird's idle timeout covers a connection that sends
/// no complete request head: partial headers never reach its state machine.)
public struct ConnectionLimits: Sendable {
    /// Open connections beyond this are closed as soon as they are accepted.
    public var maxConnections = 512
    /// A connection without a complete request head (or idle between requests) for this long is closed.
    public var idleTimeout: TimeAmount = .seconds(30)
    /// A request whose body sends nothing for this long is closed (a stalled upload is discarded).
    public var bodyReadTimeout: TimeAmount = .seconds(30)

    public init() {}
}

/// Counts open connections across all event loops.
final class ConnectionCounter: Sendable {
    private let open = Atomic<Int>(0)
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Adds one connection; false when that puts the server over its limit (the caller closes it).
    func admit() -> Bool { open.add(1, ordering: .relaxed).newValue <= limit }
    func release() { open.subtract(1, ordering: .relaxed) }
    var current: Int { open.load(ordering: .relaxed) }
}

/// Per-connection guard, added after the HTTP codec: enforces the connection limit, closes
/// requests whose body stalls, answers `Expect: 100-continue`, and turns HTTP parser errors
/// (a huge URL or header) into the API's JSON error instead of an empty 400.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let counter: ConnectionCounter
    private let bodyReadTimeout: TimeAmount
    private var admitted = false
    private var lastRead = NIODeadline.now()
    private var readingBody = false
    private var stallCheck: Scheduled<Void>?

    init(counter: ConnectionCounter, bodyReadTimeout: TimeAmount) {
        self.counter = counter
        self.bodyReadTimeout = bodyReadTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        admitted = counter.admit()
        if !admitted { context.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        counter.release()
        stallCheck?.cancel()
        stallCheck = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard admitted else { return }
        lastRead = .now()
        switch unwrapInboundIn(data) {
        case .head(let head):
            readingBody = true
            scheduleStallCheck(context)
            if head.headerFields[.expect]?.lowercased() == "100-continue" {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
        case .body:
            break
        case .end:
            readingBody = false
            stallCheck?.cancel()
            stallCheck = nil
        }
        context.fireChannelRead(data)
    }

    private func scheduleStallCheck(_ context: ChannelHandlerContext) {
        guard stallCheck == nil else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        stallCheck = context.eventLoop.scheduleTask(deadline: lastRead + bodyReadTimeout) {
            let (handler, context) = loopBound.value
            handler.stallCheck = nil
            guard handler.readingBody else { return }
            if NIODeadline.now() - handler.lastRead >= handler.bodyReadTimeout {
                context.close(promise: nil)
            } else {
                handler.scheduleStallCheck(context)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        let body = APIError(.badRequest, "malformed request", detail: "The request could not be parsed as HTTP: \(Self.describe(parserError)).")
            .jsonBody()
        var buffer = context.channel.allocator.buffer(capacity: body.count)
        buffer.writeBytes(body)
        let head = HTTPResponse(status: .badRequest, headerFields: [
            .contentType: "application/json; charset=utf-8", .contentLength: "\(body.count)", .connection: "close",
        ])
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
