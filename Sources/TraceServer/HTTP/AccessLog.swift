import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// One log line per request (`tracesvc.access`, info): method, path (query secrets masked),
/// status, bytes, duration, request id, client address, and the W3C trace id when the request
/// carries a `traceparent`. The request id is the client's `X-Request-Id` when it is a sane one,
/// else made here; it is sent back, and every log line of the request carries it (and the trace
/// id), so a proxy's log, the client's and the server's meet.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = TraceRequestContext
    static let logger = Logger(label: "tracesvc.access")

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        // A request the server makes of itself (the agent's tools at /mcp) keeps its parent's id.
        let requestID = context.logger[metadataKey: "request_id"].map { "\($0)" } ?? RequestID.accepting(request.headers[.xRequestID])
        let traceparent = request.headers[.traceparent].flatMap(TraceParent.init)
        context.logger[metadataKey: "request_id"] = .string(requestID)
        if let traceparent { context.logger[metadataKey: "trace_id"] = .string(traceparent.traceID) }
        let started = ContinuousClock.now
        var metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue),
            "path": .string(RequestID.loggablePath(request.uri.description)),
            "request_id": .string(requestID),
            "client": .string(context.clientAddress),
        ]
        if let traceparent { metadata["trace_id"] = .string(traceparent.traceID) }
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            metadata["status"] = .stringConvertible((error as? any HTTPResponseError)?.status.code ?? 500)
            metadata["bytes"] = .stringConvertible(0)
            metadata["duration_ms"] = .string(Self.milliseconds(since: started))
            Self.logger.info("access", metadata: metadata)
            throw error
        }
        response.headers[.xRequestID] = requestID
        if let traceparent { response.headers[.traceparent] = traceparent.header }
        metadata["status"] = .stringConvertible(response.status.code)
        let body = response.body
        let metadataSoFar = metadata
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            let bytes = Atomic<Int>(0)
            var metadata = metadataSoFar
            defer {
                metadata["bytes"] = .stringConvertible(bytes.load(ordering: .relaxed))
                metadata["duration_ms"] = .string(Self.milliseconds(since: started))
                Self.logger.info("access", metadata: metadata)
            }
            let counting = writer.map { buffer in
                bytes.add(buffer.readableBytes, ordering: .relaxed)
                return buffer
            }
            try await body.write(counting)
        }
        return response
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return String(format: "%.1f", ms)
    }
}

enum RequestID {
    /// A client's id is kept when it is 1 to 128 characters of letters, digits and `-_.:`
    /// (a UUID, an nginx `$request_id`, a W3C trace id); anything else is replaced, so that no
    /// client can write what it likes into the log.
    static func accepting(_ header: String?) -> String {
        if let header, (1...128).contains(header.utf8.count),
           header.utf8.allSatisfy({ isAllowed($0) }) {
            return header
        }
        return make()
    }

    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%016llx%016llx", generator.next() as UInt64, generator.next() as UInt64)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"):
            true
        default:
            false
        }
    }

    /// Query parameters whose values are never logged (a name containing one of these).
    static let secretParameters = ["token", "key", "secret", "password", "passwd", "signature", "auth", "credential", "session"]

    /// The path and query as logged: secret parameters' values masked, 2,048 characters at most.
    static func loggablePath(_ uri: String) -> String {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var text = String(parts[0])
        if parts.count == 2 {
            let query = parts[1].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
                let name = pair.split(separator: "=", maxSplits: 1).first.map { $0.lowercased() } ?? ""
                guard pair.contains("="), secretParameters.contains(where: { name.contains($0) }) else { return String(pair) }
                return "\(pair.split(separator: "=", maxSplits: 1)[0])=***"
            }
            text += "?" + query.joined(separator: "&")
        }
        return text.count > 2048 ? String(text.prefix(2048)) + "…" : text
    }
}

/// A W3C Trace Context `traceparent` header (version 00): kept when well formed.
struct TraceParent {
    let header: String
    let traceID: String

    init?(_ header: String) {
        let fields = header.split(separator: "-", omittingEmptySubsequences: false)
        guard header.utf8.count == 55, fields.count == 4, fields[0] == "00",
              fields[1].count == 32, fields[2].count == 16, fields[3].count == 2,
              fields.dropFirst().allSatisfy({ $0.allSatisfy { $0.isHexDigit && !$0.isUppercase } }),
              fields[1].contains(where: { $0 != "0" }), fields[2].contains(where: { $0 != "0" })
        else { return nil }
        self.header = header
        self.traceID = String(fields[1])
    }
}

extension HTTPField.Name {
    static let xRequestID = Self("X-Request-Id")!
    static let traceparent = Self("traceparent")!
}
