import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a request of `ServerClient` may go when the server answers with a redirect. URLSession
/// would follow it with every header, the write token included, to whatever host the `Location`
/// names; so the session follows nothing (`RedirectsAnswered`) and this decides each hop:
/// - the same origin (scheme, host, port): followed with the token;
/// - another origin: followed without `Authorization` for a request without a body; a request with a
///   body (an upload, a verdict) is not sent there at all, its bytes stay with the server named;
/// - HTTPS to HTTP: refused (the request would cross the network in clear);
/// - 301/302/303 of a request with a body: refused (following would drop the body, not send it);
/// - more than `maxHops`: refused.
/// An answer that comes from another origin is never taken as the server's (`ServerClient.send`).
enum RedirectPolicy {
    static let maxHops = 5

    enum Step {
        case follow(URLRequest)
        case refuse(String)
    }

    struct Origin: Equatable, CustomStringConvertible {
        var scheme: String
        var host: String
        var port: Int

        init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host?.lowercased() else { return nil }
            self.scheme = scheme
            self.host = host
            port = url.port ?? (scheme == "https" ? 443 : 80)
        }

        var description: String {
            let defaultPort = scheme == "https" ? 443 : 80
            return "\(scheme)://\(host.contains(":") ? "[\(host)]" : host)" + (port == defaultPort ? "" : ":\(port)")
        }
    }

    static func isRedirect(_ status: Int) -> Bool { [301, 302, 303, 307, 308].contains(status) }

    /// The next request after `response` (a redirect) answered `request`, for a client of `server`.
    static func next(after response: HTTPURLResponse, to request: URLRequest, hasBody: Bool, server: Origin, hop: Int) -> Step {
        let status = response.statusCode
        let from = request.url?.absoluteString ?? "?"
        guard let location = response.value(forHTTPHeaderField: "Location"),
              let target = URL(string: location, relativeTo: request.url)?.absoluteURL
        else { return .refuse("\(from) answered HTTP \(status) without a usable Location") }
        let shown = ServerClient.printable(target.absoluteString)
        guard let origin = Origin(target) else { return .refuse("\(from) redirected (HTTP \(status)) to \(shown), not an http:// or https:// URL: not followed") }
        guard hop < maxHops else { return .refuse("more than \(maxHops) redirects, the last to \(shown): not followed") }
        if request.url?.scheme?.lowercased() == "https", origin.scheme == "http" {
            return .refuse("\(from) redirected (HTTP \(status)) from HTTPS to \(shown), in clear: refused")
        }
        if hasBody, status != 307, status != 308 {
            return .refuse("\(from) redirected (HTTP \(status)) to \(shown), which would drop the request's body: not followed; give --server \(origin)")
        }
        if hasBody, origin != server {
            return .refuse("\(from) redirected (HTTP \(status)) to \(shown), another origin: not followed (neither the request nor its token goes there); give --server \(origin) if that is the server")
        }
        var next = request
        next.url = target
        if origin != server { next.setValue(nil, forHTTPHeaderField: "Authorization") }
        return .follow(next)
    }
}

/// A session delegate that hands every redirect back as the answer, for `RedirectPolicy` to judge.
final class RedirectsAnswered: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    static let session = URLSession(configuration: .default, delegate: RedirectsAnswered(), delegateQueue: nil)
}
