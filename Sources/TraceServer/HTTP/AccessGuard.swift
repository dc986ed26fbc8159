import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Who may reach the server and who may change what it stores (docs/api.md, "Access").
///
/// - Host: a request must name this server. IP literals and `localhost` always do; a DNS name
///   only when listed (`--allowed-host`, plus the machine's own name). This defeats DNS
///   rebinding, where an attacker's name resolves to 127.0.0.1.
/// - Cross-site writes: a state change (POST, PUT, PATCH, DELETE) from a page of another origin
///   is refused, whatever its content type (`Origin` must match `Host`; `Sec-Fetch-Site` must be
///   same-origin or none).
/// - Write token: when set, uploads and deletes need `Authorization: Bearer <token>`; reading by
///   link stays open.
public struct AccessPolicy: Sendable {
    /// Host names (lowercase, without port) accepted besides IP literals and `localhost`.
    public var allowedHosts: Set<String> = []
    /// Needed by state changes when set.
    public var writeToken: String?

    public init(allowedHosts: Set<String> = [], writeToken: String? = nil) {
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.writeToken = writeToken
    }

    /// The host part of a `Host` header value ("example.com:8080", "[::1]:80"), lowercased.
    static func hostName(ofAuthority authority: String) -> String {
        let text = authority.lowercased()
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            return String(text[text.index(after: text.startIndex)..<close])
        }
        if let colon = text.lastIndex(of: ":") { return String(text[..<colon]) }
        return text
    }

    func accepts(host: String) -> Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || allowedHosts.contains(host) { return true }
        return Self.isIPLiteral(host)
    }

    static func isIPLiteral(_ host: String) -> Bool {
        if host.contains(":") { return host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && UInt8(part) != nil }
    }

    /// Constant-time comparison, so response timing does not reveal how much of a guess was right.
    func tokenMatches(_ authorization: String?) -> Bool {
        guard let expected = writeToken else { return true }
        guard let authorization, authorization.lowercased().hasPrefix("bearer ") else { return false }
        let given = Array(authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces).utf8)
        let wanted = Array(expected.utf8)
        var difference = UInt8(given.count == wanted.count ? 0 : 1)
        for index in 0..<wanted.count { difference |= wanted[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }

    /// A random token for a server shared on the network when the user gave none.
    public static func generateToken() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

struct AccessGuardMiddleware: RouterMiddleware {
    let policy: AccessPolicy
    /// The shared write token and the personal tokens in the catalog.
    let tokens: TokenAuthority

    func handle(_ request: Request, context: TraceRequestContext, next: (Request, TraceRequestContext) async throws -> Response) async throws -> Response {
        // HTTP/1.1 requires Host; a request without one cannot come from a browser page.
        if let authority = request.head.authority {
            let host = AccessPolicy.hostName(ofAuthority: authority)
            guard policy.accepts(host: host) else {
                throw APIError(.misdirectedRequest, "unknown host",
                               detail: "This server does not answer to the host name '\(host)'. Start it with --allowed-host \(host) to allow it.")
            }
        }
        if [.post, .put, .patch, .delete].contains(request.method) { try checkSameOrigin(request) }
        var context = context
        let authorization = request.headers[.authorization]
        if let scope = AccessRules.requiredScope(method: request.method, path: request.uri.path) {
            guard let identity = try await tokens.identify(authorization: authorization) else {
                // A token that is not this server's is told apart from none (a CI secret gone stale).
                guard authorization == nil else {
                    throw APIError(.unauthorized, "wrong write token",
                                   detail: "The Authorization header's token is neither this server's write token (the one `tracesvc serve` printed or was given with --write-token) nor a live one made with `tracesvc token create` (revoked?).")
                }
                throw APIError(.unauthorized, "write token required",
                               detail: "Uploading, tagging, annotating and deleting traces on this server needs a token: send Authorization: Bearer <token> (the token `tracesvc serve` printed or was given with --write-token, or one made with `tracesvc token create`).")
            }
            guard identity.allows(scope) else {
                throw APIError(.forbidden, "missing scope",
                               detail: "The token '\(identity.name)' may \(identity.scopes.sorted().map(\.rawValue).joined(separator: ", ")); this request needs the scope '\(scope.rawValue)' (tracesvc token create --scope \(scope.rawValue)).")
            }
            context.identity = identity
        } else if authorization != nil {
            // `/mcp`: reads stay open whatever token came; its writes go through the routes above.
            context.identity = try? await tokens.identify(authorization: authorization)
        }
        // A client holding a token is known by it, wherever it connects from (CI runners behind
        // one token share one fair share of the query pool); others by their address.
        if authorization != nil, let identity = context.identity, identity != .open {
            context.client = identity == .sharedToken ? "token" : "token:\(identity.name)"
        }
        return try await next(request, context)
    }

    private func checkSameOrigin(_ request: Request) throws(APIError) {
        if let site = request.headers[.secFetchSite]?.lowercased(), site != "same-origin", site != "none" {
            throw crossOrigin("Sec-Fetch-Site is \(site)")
        }
        guard let origin = request.headers[.origin] else { return }
        guard let url = URL(string: origin), let originHost = url.host, let authority = request.head.authority else {
            throw crossOrigin("Origin is \(origin)")
        }
        // The server speaks plain HTTP; a TLS proxy in front of it says so with X-Forwarded-Proto
        // (a header no page of another origin can add to a request without the server's consent).
        let scheme = request.headers[.xForwardedProto]?.lowercased() == "https" ? "https" : "http"
        guard url.scheme?.lowercased() == scheme else {
            throw crossOrigin("Origin \(origin) is not this server (\(scheme)://\(authority))")
        }
        let originAuthority = url.port.map { "\(originHost):\($0)" } ?? originHost
        let requested = authority.lowercased()
        // Browsers omit the default port in Origin; Host may or may not carry it.
        let defaultPort = scheme == "https" ? "443" : "80"
        guard originAuthority.lowercased() == requested || "\(originAuthority.lowercased()):\(defaultPort)" == requested else {
            throw crossOrigin("Origin \(origin) is not this server (\(authority))")
        }
    }

    private func crossOrigin(_ why: String) -> APIError {
        APIError(.forbidden, "cross-origin request", detail: "Traces can only be uploaded or deleted from this server's own pages: \(why).")
    }
}

extension HTTPField.Name {
    static let secFetchSite = Self("Sec-Fetch-Site")!
    static let xForwardedProto = Self("X-Forwarded-Proto")!
}

/// Headers that keep the app's pages from being framed or made to run foreign code, even if a
/// trace's text ever reached the page as markup.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        SecurityHeaders.add(to: &response.headers)
        return response
    }
}

/// The headers every answer carries: the router's (`SecurityHeadersMiddleware`) and those the
/// connection guard gives before routing (a malformed request, a body too slow).
enum SecurityHeaders {
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
        + "worker-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static func add(to headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xFrameOptions] = "DENY"
        headers[.xContentTypeOptions] = "nosniff"
        headers[.referrerPolicy] = "same-origin"
    }
}

extension HTTPField.Name {
    static let xFrameOptions = Self("X-Frame-Options")!
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}
