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

    func links(trace: String, baselines: [String]) async throws -> ShareLinks {
        let traceID = try await upload(trace)
        var baselineIDs: [String] = []
        for baseline in baselines { baselineIDs.append(try await upload(baseline)) }
        return ShareLinks(server: server, traceID: traceID, baselineIDs: baselineIDs)
    }

    /// Streams the file as the raw body; the trace's id from the answer (the same content gets the same id).
    func upload(_ path: String) async throws -> String {
        try await ServerClient(server: server, token: token).upload(path).id
    }
}
