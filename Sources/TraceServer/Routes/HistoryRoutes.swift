import Foundation
import Hummingbird
import TraceCatalog
import TraceModel
import TraceStorage

/// The history of a metric over builds, check verdicts, and notes on the evidence. All of it
/// reads and writes the catalog only: no trace is loaded.
struct HistoryRoutes: RouteController {
    let store: any HistoryAndNotes
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/history", use: history)
        router.post("/api/traces/:id/checks", use: recordVerdict)
        router.get("/api/traces/:id/notes", use: notes)
        router.post("/api/traces/:id/notes", use: addNote)
        router.delete("/api/traces/:id/notes/:noteId", use: deleteNote)
    }

    @Sendable func history(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let parameters = QueryParameters(request: request)
        var history = HistoryRequest()
        history.tags = try parameters.tags()
        history.metric = try parameters.choice("metric")
        history.view = parameters.string("view")
        history.module = parameters.string("module")
        history.finding = parameters.string("finding")
        if history.metric == .findingCost, history.finding == nil {
            throw APIError.badParameter("finding", "metric=finding-cost needs the finding's id (finding=long-body:RecipeRowView)")
        }
        history.order = try parameters.choice("order", default: HistoryOrder.upload)
        history.limit = Int(try parameters.int("limit", in: 1...2000) ?? 200)
        history.window = Int(try parameters.int("window", in: 2...50) ?? Int64(HistorySeries.defaultWindow))
        // Through the query gate: 16 history reads at once wait their turn as 16 queries would.
        let request = history
        return jsonResponse(bytes: try await queries.admit(for: context.work) { try await store.history(request) }.json())
    }

    /// A `tracesvc check` verdict on an uploaded trace: the history shows pass or fail per build.
    @Sendable func recordVerdict(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let id = try context.traceID()
        let body = try await decodeJSONBody(VerdictBody.self, from: request)
        guard body.rules >= 0, (0...body.rules).contains(body.failedRules) else {
            throw APIError(.badRequest, "bad verdict", detail: "failedRules must be between 0 and rules.")
        }
        guard body.passed == (body.failedRules == 0) else {
            throw APIError(.badRequest, "bad verdict", detail: "passed must be true exactly when failedRules is 0.")
        }
        let summary = try noteText(body.summary, field: "summary", maxLength: CheckVerdict.maxSummaryLength)
        let verdict = CheckVerdict(
            traceID: id.text, passed: body.passed, failedRules: body.failedRules, rules: body.rules,
            baselineID: try body.baselineId.map { text throws(APIError) in try checkedTraceID(text, field: "baselineId").text },
            summary: summary, checkedAtMicros: CatalogEntry.nowMicros()
        )
        try await store.recordVerdict(verdict)
        return try jsonResponse(VerdictJSON(verdict), status: .created)
    }

    @Sendable func notes(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let id = try context.traceID()
        _ = try await store.record(id: id)
        return try jsonResponse(NoteList(notes: try await store.notes(traceID: id.text).map(NoteJSON.init)))
    }

    @Sendable func addNote(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let id = try context.traceID()
        let body = try await decodeJSONBody(NoteBody.self, from: request)
        let record = try await store.record(id: id)
        let text = try noteText(body.text, field: "text", maxLength: TraceNote.maxLength)
        let target = try body.target.checked(updateCount: record.updateCount)
        return try jsonResponse(NoteJSON(try await store.addNote(to: record, target: target, text: text, by: context.actor)), status: .created)
    }

    @Sendable func deleteNote(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let id = try context.traceID()
        let noteID = context.parameters.get("noteId") ?? ""
        guard try await store.deleteNote(id: noteID, traceID: id.text, by: context.actor) else {
            throw APIError(.notFound, "unknown note", detail: "Trace \(id) has no note \(noteID).")
        }
        return Response(status: .noContent)
    }
}

/// The store's facet the history routes need: the history, verdicts and notes, from the catalog.
protocol HistoryAndNotes: Sendable {
    func history(_ request: HistoryRequest) async throws(StoreError) -> HistoryAnswer
    func recordVerdict(_ verdict: CheckVerdict) async throws(StoreError)
    func record(id: TraceID) async throws(StoreError) -> TraceRecord
    func notes(traceID: String) async throws(StoreError) -> [TraceNote]
    func addNote(to record: TraceRecord, target: TraceNote.Target, text: String, by actor: String) async throws(StoreError) -> TraceNote
    func deleteNote(id: String, traceID: String, by actor: String) async throws(StoreError) -> Bool
}

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
}

/// A note's (or a verdict's) text: trimmed, not empty, at most `maxLength` characters, no control
/// or formatting characters but line breaks (no bidirectional overrides in a shared text).
func noteText(_ text: String, field: String, maxLength: Int) throws(APIError) -> String {
    let trimmed = text.replacingOccurrences(of: "\r\n", with: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty else { throw .badParameter(field, "empty") }
    guard trimmed.count <= maxLength else { throw .badParameter(field, "at most \(maxLength) characters (\(trimmed.count) given)") }
    guard !trimmed.unicodeScalars.contains(where: { $0 != "\n" && isControl($0) }) else {
        throw .badParameter(field, "control and formatting characters are not allowed (line breaks are)")
    }
    return trimmed
}

struct VerdictBody: Decodable {
    var passed: Bool
    var failedRules: Int
    var rules: Int
    var baselineId: String?
    var summary: String
}

struct VerdictJSON: Encodable {
    var traceId: String
    var passed: Bool
    var failedRules: Int
    var rules: Int
    @NullWhenAbsent var baselineId: String?
    var summary: String
    var checkedAt: String
}

extension VerdictJSON {
    init(_ verdict: CheckVerdict) {
        self.init(
            traceId: verdict.traceID, passed: verdict.passed, failedRules: verdict.failedRules, rules: verdict.rules,
            baselineId: verdict.baselineID, summary: verdict.summary, checkedAt: CatalogEntry.iso8601(micros: verdict.checkedAtMicros)
        )
    }
}

struct NoteBody: Decodable {
    struct Target: Decodable {
        var kind: String
        var update: Int?
        var start: Int64?
        var end: Int64?
        var finding: String?

        /// What the note is on, checked against a trace of `updateCount` updates.
        func checked(updateCount: Int) throws(APIError) -> TraceNote.Target {
            switch kind {
            case "update":
                guard let update else { throw APIError.badParameter("target.update", "an update note names its update") }
                guard (0..<updateCount).contains(update) else {
                    throw APIError(.notFound, "unknown update", detail: "The trace has \(updateCount) updates; there is no update \(update).")
                }
                return .update(update)
            case "range":
                guard let start, let end, TraceLimits.queryTimes.contains(start), TraceLimits.queryTimes.contains(end), end > start else {
                    throw APIError.badParameter("target", "a range note names its start and end (ns, end after start)")
                }
                return .range(start: start, end: end)
            case "finding":
                guard let finding, (1...300).contains(finding.count), !finding.unicodeScalars.contains(where: isControl) else {
                    throw APIError.badParameter("target.finding", "a finding note names the finding's id (at most 300 characters)")
                }
                return .finding(finding)
            default:
                throw APIError.badParameter("target.kind", "'\(kind)' is not one of update, range, finding")
            }
        }
    }

    var target: Target
    var text: String
}

struct NoteList: Encodable { var notes: [NoteJSON] }

/// A note as the API writes it; the target's fields that do not apply are null.
struct NoteJSON: Encodable {
    struct Target: Encodable {
        var kind: String
        @NullWhenAbsent var update: Int?
        @NullWhenAbsent var start: Int64?
        @NullWhenAbsent var end: Int64?
        @NullWhenAbsent var finding: String?
    }

    var id: String
    var traceId: String
    var target: Target
    var text: String
    var createdAt: String
}

extension NoteJSON {
    init(_ note: TraceNote) {
        let target = switch note.target {
        case let .update(row): Target(kind: "update", update: row)
        case let .range(start, end): Target(kind: "range", start: start, end: end)
        case let .finding(id): Target(kind: "finding", finding: id)
        }
        self.init(id: note.id, traceId: note.traceID, target: target, text: note.text, createdAt: CatalogEntry.iso8601(micros: note.createdAtMicros))
    }
}
