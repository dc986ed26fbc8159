import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Uploads traces to a running tracesvc (`POST /api/traces`, docs/api.md) for `check --server`.
struct TraceUpload {
    /// The server's root URL, without a trailing slash.
    let server: String
    let token: String?

    init(server: String, token: String?) {
        var root = server
        while root.hasSuffix("/") { root.removeLast() }
        self.server = root
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func links(trace: String, baselines: [String]) async throws -> ShareLinks {
        let traceID = try await upload(trace)
        var baselineIDs: [String] = []
        for baseline in baselines { baselineIDs.append(try await upload(baseline)) }
        return ShareLinks(server: server, traceID: traceID, baselineIDs: baselineIDs)
    }

    /// Streams the file as the raw body; the trace's id from the answer (the same content gets the same id).
    func upload(_ path: String) async throws -> String {
        let file = URL(fileURLWithPath: path)
        guard let url = URL(string: "\(server)/api/traces?name=\(ShareLink.encode(file.lastPathComponent))") else {
            throw Failure(description: "bad server URL \(server)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await URLSession.shared.upload(for: request, fromFile: file)
        } catch {
            // One line ("Could not connect to the server."), not the NSError's user-info dump.
            throw Failure(description: "uploading \(path): \((error as? URLError)?.localizedDescription ?? error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        guard (200..<300).contains(status) else {
            let detail = (json?["detail"] as? String) ?? (json?["error"] as? String) ?? String(decoding: data.prefix(300), as: UTF8.self)
            throw Failure(description: "uploading \(path) got HTTP \(status): \(detail)")
        }
        guard let id = (json?["trace"] as? [String: Any])?["id"] as? String else {
            throw Failure(description: "uploading \(path): the server's answer has no trace id")
        }
        return id
    }
}
