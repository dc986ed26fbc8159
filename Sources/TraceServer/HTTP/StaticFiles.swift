import Crypto
import Foundation
import Hummingbird

/// Serves the browser app from the web root. Written instead of Hummingbird's FileMiddleware,
/// whose 2.28 pitfalls (see the team notes) we would otherwise have to guard:
/// - `%00` and `..` in the path are refused with 400; a symlink leading out of the root is 404;
/// - `Range` is ignored: every answer is the whole file with 200 (valid HTTP, and the app's
///   files are small), so suffix, out-of-range and multi-ranges cannot be answered wrongly;
/// - ETag from content hash, `If-None-Match` -> 304;
/// - the app page's files under `/v/<version>/` (`WebRootVersion`) are immutable for a year.
struct StaticFiles: Sendable {
    let root: URL
    let version: WebRootVersion

    init(root: URL) {
        self.root = root.standardizedFileURL.resolvingSymlinksInPath()
        version = WebRootVersion(root: self.root)
        // Known from the start: a replica that never served the app page still serves its files for good.
        _ = version.current()
    }

    /// The response for a request path (still percent-encoded), or nil when there is no such file.
    func response(forPath rawPath: String, request: Request) throws(APIError) -> Response? {
        guard var path = rawPath.removingPercentEncoding else {
            throw APIError(.badRequest, "bad path", detail: "The path is not valid percent-encoding.")
        }
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        if path.contains("\0") || path.contains("\\") || components.contains(where: { $0 == ".." || $0 == "." }) {
            throw APIError(.badRequest, "bad path", detail: "The path may not contain NUL, backslashes or dot segments.")
        }
        guard !components.isEmpty else { return nil }
        // A versioned URL is cached for good only when it names this web root's version (a replica
        // of another release, mid-upgrade, serves its own bytes under it, but not for good).
        var cacheControl = "no-cache"
        if let (version, rest) = WebRootVersion.split(path) {
            path = rest
            if version == self.version.lastKnown { cacheControl = "public, max-age=31536000, immutable" }
        }
        let file = path.split(separator: "/").reduce(root) { $0.appendingPathComponent(String($1)) }.resolvingSymlinksInPath()
        // A symlink inside the root may point anywhere: only files really under the root are served.
        guard file.path.hasPrefix(root.path + "/") else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue,
              var data = FileManager.default.contents(atPath: file.path)
        else { return nil }
        if path == "/index.html" { data = version.versioned(page: data, version: version.current()) }
        return Self.response(data, contentType: Self.contentType(of: file.pathExtension), cacheControl: cacheControl, request: request)
    }

    static func response(_ data: Data, contentType: String, cacheControl: String = "no-cache", request: Request) -> Response {
        let etag = "\"\(traceID(SHA256.hash(data: data)))\""
        var headers: HTTPFields = [
            .contentType: contentType,
            .eTag: etag,
            .cacheControl: cacheControl,
            .init("X-Content-Type-Options")!: "nosniff",
        ]
        if ifNoneMatch(request.headers[.ifNoneMatch], matches: etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(data.count)
        let body = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        return Response(status: .ok, headers: headers, body: body)
    }

    static func contentType(of pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "html", "htm": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "json", "map": "application/json; charset=utf-8"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "woff2": "font/woff2"
        case "txt", "md": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}

/// Answers GET/HEAD requests no route matched with a file from the web root.
struct StaticFilesMiddleware<Context: RequestContext>: RouterMiddleware {
    let files: StaticFiles

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError where error.status == .notFound && !(error is APIError) {
            let path = request.uri.path
            guard request.method == .get || request.method == .head, !path.hasPrefix("/api/") else { throw error }
            if let response = try files.response(forPath: path, request: request) { return response }
            // A browser asking for a page that does not exist gets the app, which shows its
            // "Page not found" page, still with 404; other clients get the JSON error.
            guard request.headers[.accept]?.contains("text/html") == true,
                  var page = try files.response(forPath: "/index.html", request: request) else { throw error }
            if page.status == .ok { page.status = .notFound }
            return page
        }
    }
}
