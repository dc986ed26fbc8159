import Hummingbird
import TraceModel

/// Swift tasks: the Main Actor lanes' states in a range, one state, and the tasks' summary.
struct TaskRoutes: TraceController {
    let models: any TraceModels
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/traces/:id/task-states", use: withTrace(taskStates))
        router.get("/api/traces/:id/task-states/:row", use: withTrace(taskState))
        router.get("/api/traces/:id/tasks/summary", use: withTrace(summary))
    }

    @Sendable func taskStates(_ on: TraceRequest) async throws -> Response {
        let (trace, query) = (on.trace, on.query)
        let laneName = query.string("lane") ?? ""
        guard let lane = Lane(rawValue: laneName), lane == .mainActor || lane == .mainActorWaits else {
            throw APIError.badParameter("lane", "'\(laneName)' is not a task lane; use main-actor or main-actor-waits")
        }
        guard let range = try query.timeRange() else { throw APIError.badParameter("start", "start and end are required") }
        let limit = Int(try query.int("limit", in: 1...1000) ?? 50)
        return try await on.answer {
            let found = trace.taskStates(on: lane, in: range, limit: limit)
            let rows = found.rows.map { row in
                TaskStateListRow(
                    row: row, start: trace.taskStates.start[row], duration: trace.taskStates.duration[row],
                    severity: trace.taskSeverity(row).wireName, task: trace.taskTitle(Int(trace.taskStates.task[row])),
                    resumeFunction: trace.string(trace.taskStates.resumeFunction[row])
                )
            }
            return try encodeJSON(TaskStateList(rows: rows, count: found.count))
        }
    }

    @Sendable func taskState(_ on: TraceRequest) async throws -> Response {
        let trace = on.trace
        let row = try on.context.rowParameter("row", noun: "task state", count: trace.taskStates.count)
        return try await on.answer { try encodeJSON(trace.taskStateDetail(row)) }
    }

    @Sendable func summary(_ on: TraceRequest) async throws -> Response {
        let (trace, range) = (on.trace, try on.query.timeRange())
        return try await on.answer { try encodeJSON(TaskSummaryResponse(trace.taskSummary(in: range))) }
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
