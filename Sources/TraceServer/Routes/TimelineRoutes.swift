import Hummingbird
import TraceModel

/// `GET /api/traces/{id}/timeline` (JSON, or binary columns for the browser) and
/// `GET /api/traces/{id}/long-update` (`]` / `[` on the timeline).
struct TimelineRoutes: TraceController {
    let models: any TraceModels
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/traces/:id/timeline", use: withTrace(timeline))
        router.get("/api/traces/:id/long-update", use: withTrace(longUpdate))
    }

    @Sendable func timeline(_ on: TraceRequest) async throws -> Response {
        let (loaded, query) = (on.loaded, on.query)
        let meta = loaded.trace.metadata
        let window = try query.timeRange() ?? TimeRange(start: meta.start, end: max(meta.end, meta.start + 1))
        let width = Int(try query.int("width", in: 1...10_000) ?? 1000)
        let lanes = try Self.lanes(query.string("lanes"), of: loaded.trace)
        // The browser asks for the compact columns (docs/api.md, "Binary timeline"); API users get JSON.
        if on.request.headers[.accept]?.contains("application/octet-stream") == true {
            let bytes = try await on.queries.run(for: on.context.work) { loaded.timelineBinary(window: window, width: width, lanes: lanes) }
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream", .cacheControl: "no-store", .vary: "Accept"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
            )
        }
        var response = try await on.answer { loaded.timeline(window: window, width: width, lanes: lanes).json() }
        response.headers[.vary] = "Accept"
        return response
    }

    /// `lanes=a,b`: each a lane the trace has (its signpost lanes are in `GET /api/traces/{id}`); all when absent.
    private static func lanes(_ text: String?, of trace: Trace) throws(APIError) -> [TimelineLaneID] {
        let allLanes = trace.allTimelineLanes
        guard let text else { return allLanes }
        return try text.split(separator: ",").map { name throws(APIError) -> TimelineLaneID in
            guard let lane = TimelineLaneID(wireName: String(name)), allLanes.contains(lane) else {
                throw .badParameter("lanes", "unknown lane '\(name)'; this trace's lanes are \(allLanes.map(\.wireName).joined(separator: ", "))")
            }
            return lane
        }
    }

    /// The next or previous long update, found in the model, not in the drawn marks.
    @Sendable func longUpdate(_ on: TraceRequest) async throws -> Response {
        let (trace, query) = (on.trace, on.query)
        let forward = try query.choice("direction", default: StepDirection.next) == .next
        let after = try query.int("after", in: 0...Int64(Int32.max)).map(Int.init)
        let time = try query.int("at") ?? (forward ? trace.metadata.start : trace.metadata.end)
        return try await on.answer {
            let found = trace.longUpdate(forward: forward, after: after, time: time).map { row in
                LongUpdateStep(id: row, start: trace.updates.start[row], duration: trace.updates.duration[row],
                               severity: trace.updates.severity(row).wireName)
            }
            return try encodeJSON(LongUpdateAnswer(update: found))
        }
    }
}

private enum StepDirection: String, CaseIterable { case next, previous }

private struct LongUpdateStep: Encodable {
    var id: Int
    var start: Int64
    var duration: Int64
    var severity: String
}

private struct LongUpdateAnswer: Encodable {
    @NullWhenAbsent var update: LongUpdateStep?
}
