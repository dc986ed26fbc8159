import Hummingbird
import TraceModel

/// Swift tasks: the Main Actor lanes' states in a range, one state, and the tasks' summary.
struct TaskRoutes {
    let store: any TraceModels
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/traces/:id/task-states", use: taskStates)
        router.get("/api/traces/:id/task-states/:row", use: taskState)
        router.get("/api/traces/:id/tasks/summary", use: summary)
    }

    @Sendable func taskStates(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let trace = try await store.trace(id: context.traceID())
        let query = QueryParameters(request: request)
        let laneName = query.string("lane") ?? ""
        guard let lane = Lane(rawValue: laneName), lane == .mainActor || lane == .mainActorWaits else {
            throw APIError.badParameter("lane", "'\(laneName)' is not a task lane; use main-actor or main-actor-waits")
        }
        guard let range = try query.timeRange() else { throw APIError.badParameter("start", "start and end are required") }
        let limit = Int(try query.int("limit", in: 1...1000) ?? 50)
        return jsonResponse(bytes: try await queries.run(for: context.work) {
            let found = trace.taskStates(on: lane, in: range, limit: limit)
            let rows = found.rows.map { row in
                TaskStateListRow(
                    row: row, start: trace.taskStates.start[row], duration: trace.taskStates.duration[row],
                    severity: trace.taskSeverity(row).wireName, task: trace.taskTitle(Int(trace.taskStates.task[row])),
                    resumeFunction: trace.string(trace.taskStates.resumeFunction[row])
                )
            }
            return try encodeJSON(TaskStateList(rows: rows, count: found.count))
        })
    }

    @Sendable func taskState(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let trace = try await store.trace(id: context.traceID())
        let row = try context.rowParameter("row", noun: "task state", count: trace.taskStates.count)
        return jsonResponse(bytes: try await queries.run(for: context.work) { try encodeJSON(trace.taskStateDetail(row)) })
    }

    @Sendable func summary(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let trace = try await store.trace(id: context.traceID())
        let range = try QueryParameters(request: request).timeRange()
        return jsonResponse(bytes: try await queries.run(for: context.work) { try encodeJSON(TaskSummaryResponse(trace.taskSummary(in: range))) })
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

/// The first `TaskSummaryRow.maxListed` rows, and how many there are.
private struct TaskSummaryResponse: Encodable {
    var rows: [TaskSummaryRow]
    var count: Int
    init(_ rows: [TaskSummaryRow]) { (self.rows, count) = (Array(rows.prefix(TaskSummaryRow.maxListed)), rows.count) }
}
