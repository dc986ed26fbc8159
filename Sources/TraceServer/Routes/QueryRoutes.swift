import Hummingbird
import TraceModel

/// The views of one trace: timeline, summary, a view's updates, one update, the CPU call tree.
/// Each query runs through `queries` (off the cooperative pool, a bounded number at once).
func addQueryRoutes(to router: some RouterMethods<BasicRequestContext>, store: TraceStore, queries: WorkGate) {
    router.get("/api/traces/:id/timeline") { request, context in
        let loaded = try await store.loaded(id: context.traceID())
        let query = QueryParameters(request: request)
        let meta = loaded.trace.metadata
        let window = try query.timeRange() ?? TimeRange(start: meta.start, end: max(meta.end, meta.start + 1))
        let width = Int(try query.int("width", in: 1...10_000) ?? 1000)
        let allLanes = loaded.trace.allTimelineLanes
        let lanes = try query.string("lanes").map { text throws(APIError) -> [TimelineLaneID] in
            try text.split(separator: ",").map { name throws(APIError) -> TimelineLaneID in
                // A signpost lane the trace does not have is an error too: its ids are in GET /api/traces/{id}.
                guard let lane = TimelineLaneID(wireName: String(name)), allLanes.contains(lane) else {
                    throw .badParameter("lanes", "unknown lane '\(name)'; this trace's lanes are \(allLanes.map(\.wireName).joined(separator: ", "))")
                }
                return lane
            }
        } ?? allLanes
        // The browser asks for the compact columns (docs/api.md, "Binary timeline"); API users get JSON.
        if request.headers[.accept]?.contains("application/octet-stream") == true {
            let bytes = try await queries.run { loaded.timelineBinary(window: window, width: width, lanes: lanes) }
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream", .cacheControl: "no-store", .vary: "Accept"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
            )
        }
        var response = jsonResponse(bytes: try await queries.run { loaded.timeline(window: window, width: width, lanes: lanes).json() })
        response.headers[.vary] = "Accept"
        return response
    }

    router.get("/api/traces/:id/summary") { request, context in
        let trace = try await store.trace(id: context.traceID())
        let query = QueryParameters(request: request)
        let (range, filter) = (try query.timeRange(), try query.choice("filter", default: SummaryFilter.all))
        return jsonResponse(bytes: try await queries.run { try encodeJSON(trace.summary(in: range, filter: filter)) })
    }

    router.get("/api/traces/:id/updates") { request, context in
        let trace = try await store.trace(id: context.traceID())
        let query = QueryParameters(request: request)
        guard let view = query.string("view") else { throw APIError.badParameter("view", "the view name is required") }
        let order = try query.choice("order", default: SortOrder.asc)
        let updatesQuery = ViewUpdatesQuery(
            view: view, module: query.string("module"), category: query.string("category"), range: try query.timeRange(),
            filter: try query.choice("filter", default: .all), sort: try query.choice("sort", default: .start),
            descending: order == .desc,
            offset: Int(try query.int("offset", in: 0...Int64(Int32.max)) ?? 0),
            limit: Int(try query.int("limit", in: 1...10_000) ?? 200)
        )
        return jsonResponse(bytes: try await queries.run { try encodeJSON(trace.viewUpdates(updatesQuery)) })
    }

    router.get("/api/traces/:id/updates/:updateId") { _, context in
        let trace = try await store.trace(id: context.traceID())
        let id = try context.rowParameter("updateId", noun: "update", count: trace.updates.count)
        return try jsonResponse(trace.updateDetail(id))
    }

    router.get("/api/traces/:id/signposts/:row") { _, context in
        let trace = try await store.trace(id: context.traceID())
        let row = try context.rowParameter("row", noun: "signpost", count: trace.signposts.count)
        return try jsonResponse(trace.signpostDetail(row))
    }

    router.get("/api/traces/:id/task-states/:row") { _, context in
        let trace = try await store.trace(id: context.traceID())
        let row = try context.rowParameter("row", noun: "task state", count: trace.taskStates.count)
        return try jsonResponse(trace.taskStateDetail(row))
    }

    router.get("/api/traces/:id/task-states") { request, context in
        let trace = try await store.trace(id: context.traceID())
        let query = QueryParameters(request: request)
        let laneName = query.string("lane") ?? ""
        guard let lane = Lane(rawValue: laneName), lane == .mainActor || lane == .mainActorWaits else {
            throw APIError.badParameter("lane", "'\(laneName)' is not a task lane; use main-actor or main-actor-waits")
        }
        guard let range = try query.timeRange() else { throw APIError.badParameter("start", "start and end are required") }
        let limit = Int(try query.int("limit", in: 1...1000) ?? 50)
        let found = trace.taskStates(on: lane, in: range, limit: limit)
        let rows = found.rows.map { row in
            TaskStateListRow(
                row: row, start: trace.taskStates.start[row], duration: trace.taskStates.duration[row],
                severity: trace.taskSeverity(row).wireName, task: trace.taskTitle(Int(trace.taskStates.task[row])),
                resumeFunction: trace.string(trace.taskStates.resumeFunction[row])
            )
        }
        return try jsonResponse(TaskStateList(rows: rows, count: found.count))
    }

    router.get("/api/traces/:id/tasks/summary") { request, context in
        let trace = try await store.trace(id: context.traceID())
        let range = try QueryParameters(request: request).timeRange()
        return jsonResponse(bytes: try await queries.run { try encodeJSON(TaskSummaryResponse(rows: trace.taskSummary(in: range))) })
    }

    // `]` / `[` on the timeline: the next or previous long update, found in the model, not in the drawn marks.
    router.get("/api/traces/:id/long-update") { request, context in
        let trace = try await store.trace(id: context.traceID())
        let query = QueryParameters(request: request)
        let forward = try query.choice("direction", default: StepDirection.next) == .next
        let after = try query.int("after", in: 0...Int64(Int32.max)).map(Int.init)
        let time = try query.int("at") ?? (forward ? trace.metadata.start : trace.metadata.end)
        let found = trace.longUpdate(forward: forward, after: after, time: time).map { row in
            LongUpdateStep(id: row, start: trace.updates.start[row], duration: trace.updates.duration[row],
                           severity: trace.updates.severity(row).wireName)
        }
        return try jsonResponse(LongUpdateAnswer(update: found))
    }

    router.get("/api/traces/:id/calltree") { request, context in
        let trace = try await store.trace(id: context.traceID())
        let query = QueryParameters(request: request)
        let thread = try query.int("thread", in: 0...Int64(max(0, trace.threads.count - 1)))
        if thread != nil, trace.threads.isEmpty { throw APIError.badParameter("thread", "the trace has no threads") }
        // Symbol names hold commas ("f(a, b)"), never newlines: one name per line.
        let charged = query.string("charge").map { $0.split(separator: "\n").map(String.init) } ?? []
        guard charged.count <= 200 else { throw APIError.badParameter("charge", "at most 200 symbols can be charged to their callers, not \(charged.count)") }
        let treeQuery = CallTreeQuery(
            range: try query.timeRange(), mode: try query.choice("mode", default: .topDown),
            thread: thread.map(Int.init), minPercent: min(100, max(0, try query.double("minPercent") ?? 0.1)),
            view: query.string("view").map { CallTreeQuery.ViewSelector(name: $0, module: query.string("module")) },
            hideSystemLibraries: try query.choice("hideSystem", default: Switch.false) == .true,
            chargedToCaller: Set(charged)
        )
        return jsonResponse(bytes: try await queries.run { trace.callTree(treeQuery).json() })
    }

    router.get("/api/traces/:id/findings") { request, context in
        let loaded = try await store.loaded(id: context.traceID())
        let query = QueryParameters(request: request)
        var options = FindingsOptions()
        for parameter in FindingsOptions.parameters {
            guard let text = query.string(parameter.name) else { continue }
            do {
                try options.set(parameter.name, to: text)
            } catch {
                throw APIError(.badRequest, "bad parameter", detail: "\(error)")
            }
        }
        // Default thresholds were computed at load time; others read every update, off the pool.
        let trace = loaded.trace, thresholds = options
        if options == FindingsOptions() { return try jsonResponse(FindingsResponse(findings: loaded.findings)) }
        return jsonResponse(bytes: try await queries.run { try encodeJSON(FindingsResponse(findings: trace.findings(thresholds))) })
    }
}

private struct TaskStateList: Encodable {
    var rows: [TaskStateListRow]
    var count: Int
}

private struct TaskStateListRow: Encodable {
    var row: Int
    var start: Nanoseconds
    var duration: Nanoseconds
    var severity: String
    var task: String
    var resumeFunction: String
}

private struct TaskSummaryResponse: Encodable {
    var rows: [TaskSummaryRow]
}

private struct FindingsResponse: Encodable {
    var findings: [Finding]
}

enum SortOrder: String, CaseIterable { case asc, desc }
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

private enum Switch: String, CaseIterable { case `true`, `false` }
