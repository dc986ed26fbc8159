import Hummingbird
import TraceModel

/// `GET /api/traces/{id}/findings`: what the rules found, with the default or given thresholds.
struct FindingsRoutes: TraceController {
    let models: any TraceModels
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/traces/:id/findings", use: withTrace(findings))
    }

    @Sendable func findings(_ on: TraceRequest) async throws -> Response {
        let (loaded, query) = (on.loaded, on.query)
        var options = FindingsOptions()
        for parameter in FindingsOptions.parameters {
            guard let text = query.string(parameter.name) else { continue }
            do {
                try options.set(parameter.name, to: text)
            } catch {
                throw APIError(.badRequest, "bad parameter", detail: "\(error)")
            }
        }
        // Default thresholds are built once, right after the load (or here, off the pool, if this
        // asks first); others read every update, off the pool.
        if options == FindingsOptions() {
            if let built = loaded.findingsIfBuilt { return try jsonResponse(FindingsResponse(built, of: loaded.trace)) }
            return try await on.answer { try encodeJSON(FindingsResponse(loaded.findings, of: loaded.trace)) }
        }
        let (trace, thresholds) = (loaded.trace, options)
        return try await on.answer { try encodeJSON(FindingsResponse(trace.findings(thresholds), of: trace)) }
    }
}

/// The costliest `FindingsOptions.maxListed` findings, how many there are, and the time all of
/// them cost with each instant counted once (`Trace.totalCost(of:)`).
private struct FindingsResponse: Encodable {
    var findings: [Finding]
    var total: Int
    var costNs: Nanoseconds
    init(_ findings: [Finding], of trace: Trace) {
        (self.findings, total) = (Array(findings.prefix(FindingsOptions.maxListed)), findings.count)
        costNs = trace.totalCost(of: findings)
    }
}
