import Foundation
import TraceAgent
import TraceModel
import TraceStorage
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Talks to a running tracesvc (docs/api.md) for `upload` and `check --baseline-tags`: every
/// failure is one line naming the server and what it said; requests that may be sent again
/// (an upload's id is its content's hash, so a second one never duplicates) are retried after a
/// connection failure or a 502, 503 or 504.
struct ServerClient {
    /// The server's root URL, without a trailing slash.
    let server: String
    let token: String?
    /// Attempts after the first, waiting 0.5 s, 1 s, 2 s… between them.
    var retries = 3

    init(server: String, token: String?, retries: Int = 3) {
        var root = server
        while root.hasSuffix("/") { root.removeLast() }
        self.server = root
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        self.retries = max(0, retries)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// An upload whose tags the server refused (403 for a sample's bytes, 409 for a move): what became of them.
        var tagOutcome: TagOutcome? = nil
    }

    /// The server's `tagOutcome` (docs/api.md, "Tags"): what became of an upload's tags.
    struct TagOutcome: Sendable {
        var traceID: String
        var stored: [String]
        var notStored: [String]
        var moved: [String]
        var conflicts: [String]
        var reason: String?
        /// As the server sent it, for `--format json`.
        var json: Data

        init?(_ object: Any?) {
            guard let object = object as? [String: Any], let traceID = object["traceID"] as? String,
                  let json = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            else { return nil }
            func moves(_ key: String) -> [String] {
                (object[key] as? [[String: Any]] ?? []).map { "\($0["from"] as? String ?? "?") → \($0["to"] as? String ?? "?")" }
            }
            (self.traceID, self.json) = (traceID, json)
            (stored, notStored) = (object["stored"] as? [String] ?? [], object["notStored"] as? [String] ?? [])
            (moved, conflicts, reason) = (moves("moved"), moves("conflicts"), object["reason"] as? String)
        }
    }

    struct Uploaded {
        var id: String
        var name: String
        var isNew: Bool
        var tags: [String]
        var tagOutcome: TagOutcome?
    }

    /// Uploads `path` with `tags` (`?tag=key:value`), streamed as the raw body.
    /// - Parameter retag: the tags may change the values of keys the same content stored before has (`?retag=1`).
    func upload(_ path: String, tags: [TraceTag] = [], run: Int? = nil, retag: Bool = false) async throws -> Uploaded {
        let file = URL(fileURLWithPath: path)
        guard FileManager.default.isReadableFile(atPath: file.path) else { throw Failure(description: "cannot read \(path)") }
        var query = ["name=\(ShareLink.encode(file.lastPathComponent))"] + tags.map { "tag=\(ShareLink.encode($0.text))" }
        if let run { query.append("run=\(run)") }
        if retag { query.append("retag=1") }
        var request = try self.request("/api/traces?" + query.joined(separator: "&"), method: "POST")
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let (data, status) = try await send(request, uploading: file, what: "uploading \(path)")
        let json = try object(data, status: status, what: "uploading \(path)")
        guard let trace = json["trace"] as? [String: Any], let id = trace["id"] as? String else {
            throw Failure(description: "uploading \(path): the server's answer has no trace id")
        }
        return Uploaded(id: id, name: trace["name"] as? String ?? file.lastPathComponent, isNew: status == 201, tags: trace["tags"] as? [String] ?? [],
                        tagOutcome: TagOutcome(json["tagOutcome"]))
    }

    /// The newest trace with all of `tags`, other than `excluding`; nil when there is none.
    func latest(tags: [TraceTag], excluding: String?) async throws -> (id: String, name: String)? {
        let query = (tags.map { "tag=\(ShareLink.encode($0.text))" } + ["limit=2"]).joined(separator: "&")
        let what = "asking for the latest trace with \(tags.map(\.text).joined(separator: ", "))"
        let (data, status) = try await send(try request("/api/traces?" + query, method: "GET"), what: what)
        let json = try object(data, status: status, what: what)
        let traces = json["traces"] as? [[String: Any]] ?? []
        guard let trace = traces.first(where: { ($0["id"] as? String) != excluding && ($0["isSample"] as? Bool) != true }),
              let id = trace["id"] as? String
        else { return nil }
        return (id, trace["name"] as? String ?? id)
    }

    /// The run-to-run noise of the latest traces with all of `tags` (other than `excluding`), as
    /// the server measured them (`GET /api/noise`); nil when they measure nothing.
    func earlierNoise(tags: [TraceTag], excluding: String?) async throws -> EarlierNoise? {
        let query = (tags.map { "tag=\(ShareLink.encode($0.text))" } + (excluding.map { ["exclude=\(ShareLink.encode($0))"] } ?? [])).joined(separator: "&")
        let what = "asking for the noise of the traces with \(tags.map(\.text).joined(separator: ", "))"
        let (data, status) = try await send(try request("/api/noise?" + query, method: "GET"), what: what)
        guard status == 200 else { throw failure(data, status: status, what: what) }
        struct Answer: Decodable { var earlier: EarlierNoise? }
        do {
            return try JSONDecoder().decode(Answer.self, from: data).earlier
        } catch {
            throw Failure(description: "\(what): the server's answer is not a noise estimate (\(error))")
        }
    }

    /// The bytes of trace `id` as uploaded, written to `destination`; the run it was read at.
    func download(_ id: String, to destination: URL) async throws -> Int? {
        let what = "downloading trace \(id)"
        let request = try request("/api/traces/\(ShareLink.encode(id))/file", method: "GET")
        var lastFailure: Failure?
        for attempt in 0...retries {
            if attempt > 0 { try await Task.sleep(for: Self.backoff(attempt)) }
            do {
                let (data, response) = try await URLSession.shared.data(for: request)
                let http = response as? HTTPURLResponse
                let status = http?.statusCode ?? 0
                if Self.retryable(status) && attempt < retries { lastFailure = failure(data, status: status, what: what); continue }
                guard status == 200 else { throw failure(data, status: status, what: what) }
                try data.write(to: destination)
                return (http?.value(forHTTPHeaderField: "X-Trace-Run")).flatMap { Int($0) }
            } catch let error as URLError {
                lastFailure = unreachable(error, what: what)
            }
        }
        throw lastFailure ?? Failure(description: "\(what): no answer")
    }

    /// Records a check's verdict on the server (`POST /api/traces/{id}/checks`).
    func recordVerdict(traceID: String, passed: Bool, failedRules: Int, rules: Int, baselineID: String?, summary: String) async throws {
        var request = try request("/api/traces/\(ShareLink.encode(traceID))/checks", method: "POST")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        var body: [String: Any] = ["passed": passed, "failedRules": failedRules, "rules": rules, "summary": summary]
        body["baselineId"] = baselineID ?? NSNull()
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let what = "recording the verdict of trace \(traceID)"
        let (data, status) = try await send(request, what: what)
        _ = try object(data, status: status, what: what)
    }

    // MARK: Requests

    private func request(_ path: String, method: String) throws -> URLRequest {
        guard let url = URL(string: server + path) else { throw Failure(description: "bad server URL \(server)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 300
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }

    /// Sends (retrying what may be retried); the answer's bytes and status.
    private func send(_ request: URLRequest, uploading file: URL? = nil, what: String) async throws -> (Data, Int) {
        var lastFailure: Failure?
        for attempt in 0...retries {
            if attempt > 0 { try await Task.sleep(for: Self.backoff(attempt)) }
            do {
                let (data, response) = if let file {
                    try await URLSession.shared.upload(for: request, fromFile: file)
                } else {
                    try await URLSession.shared.data(for: request)
                }
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                if Self.retryable(status) && attempt < retries {
                    lastFailure = failure(data, status: status, what: what)
                    continue
                }
                return (data, status)
            } catch let error as URLError {
                lastFailure = unreachable(error, what: what)
            }
        }
        throw lastFailure ?? Failure(description: "\(what): no answer from \(server)")
    }

    static func retryable(_ status: Int) -> Bool { [502, 503, 504].contains(status) }

    static func backoff(_ attempt: Int) -> Duration { .milliseconds(500 << min(attempt - 1, 4)) }

    /// A 2xx answer's JSON object, or the failure the server described.
    private func object(_ data: Data, status: Int, what: String) throws -> [String: Any] {
        guard (200..<300).contains(status) else { throw failure(data, status: status, what: what) }
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    /// One line: what was being done, the status, and the server's own words (with the location of an unreadable file).
    private func failure(_ data: Data, status: Int, what: String) -> Failure {
        let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        let error = json?["error"] as? String, detail = json?["detail"] as? String, location = json?["location"] as? String
        let said = detail ?? error ?? String(decoding: data.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let tagOutcome = TagOutcome(json?["tagOutcome"])
        let line: String = switch status {
        case 401 where token != nil: "\(server) refused the write token given (HTTP 401): it is not this server's token (check --token, --token-file or TRACESVC_TOKEN)"
        case 401: "\(server) needs its write token (HTTP 401): give --token TOKEN, --token-file FILE or set TRACESVC_TOKEN"
        case 403 where tagOutcome != nil, 409 where tagOutcome != nil:
            "\(server) did not store the tags \(tagOutcome?.notStored.joined(separator: ", ") ?? "") (HTTP \(status)): \(tagOutcome?.reason ?? said)"
        case 413: "\(server) refused the file as too large (HTTP 413): \(said)"
        case 422: "\(server) cannot read it (HTTP 422) at \(location ?? "?"): " + Self.withoutLocation(said, location)
        default: "\(server) answered HTTP \(status)" + (error.map { " \($0)" } ?? "") + (said.isEmpty || said == error ? "" : ": \(said)")
        }
        return Failure(description: "\(what): \(Self.printable(line))", tagOutcome: tagOutcome)
    }

    /// The server's words as one line a terminal shows as text: a newline is a space, and every
    /// other control character (ESC starting a terminal sequence, BEL, DEL, C1) is written as `\u{1B}`.
    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A, 0x0D: out += " "
            case 0x00..<0x20, 0x7F..<0xA0: out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func withoutLocation(_ detail: String, _ location: String?) -> String {
        guard let location, detail.hasPrefix(location + ":") else { return detail }
        return detail.dropFirst(location.count + 1).trimmingCharacters(in: .whitespaces)
    }

    private func unreachable(_ error: URLError, what: String) -> Failure {
        let why: String = switch error.code {
        case .cannotConnectToHost: "connection refused"
        case .cannotFindHost, .dnsLookupFailed: "no such host"
        case .timedOut: "timed out"
        case .networkConnectionLost: "the connection was lost"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid: "TLS failed"
        default: "network error \(error.code.rawValue)"
        }
        return Failure(description: "\(what): cannot reach \(server) (\(why))")
    }
}

extension ServerClient {
    /// The write token: the first line of `tokenFile`, else `$TRACESVC_TOKEN`.
    static func token(file tokenFile: String?, given: String? = nil) throws -> String? {
        if let given { return given }
        guard let tokenFile else { return CommandContext.current.environment["TRACESVC_TOKEN"] }
        guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8),
              let line = text.split(whereSeparator: \.isNewline).first.map({ $0.trimmingCharacters(in: .whitespaces) }), !line.isEmpty
        else { throw Failure(description: "--token-file: cannot read a token from the first line of \(tokenFile)") }
        return line
    }

    /// `--server` as the commands accept it: an http:// or https:// URL with a host.
    static func isServerURL(_ text: String) -> Bool {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else { return false }
        return true
    }
}
