import Hummingbird
import TraceCatalog
import TraceModel
import TraceStorage

/// `GET /api/compare?a=ID&b=ID`: trace A (before) against trace B (after), each optionally
/// restricted to a range (`aStart`/`aEnd`, `bStart`/`bEnd`). `a` and `b` may each list several
/// recordings (`a=ID,ID,ID`), pooled (`ComparisonSide.pooled`); a range then does not apply.
/// docs/api.md has the shape. `GET /api/noise`: the run-to-run noise of earlier recordings.
struct CompareRoutes: RouteController {
    let models: any TraceModels
    let noise: any EarlierRecordings
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/compare", use: compare)
        router.get("/api/noise", use: earlierNoise)
    }

    @Sendable func compare(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let query = QueryParameters(request: request)
        let idsA = try recordingIDs(query.string("a"), parameter: "a", side: "A (before)")
        let idsB = try recordingIDs(query.string("b"), parameter: "b", side: "B (after)")
        let rangeA = try query.timeRange("aStart", "aEnd"), rangeB = try query.timeRange("bStart", "bEnd")
        if rangeA != nil, idsA.count > 1 { throw APIError.badParameter("aStart", "a range applies to one recording of A, not \(idsA.count)") }
        if rangeB != nil, idsB.count > 1 { throw APIError.badParameter("bStart", "a range applies to one recording of B, not \(idsB.count)") }
        let causeLimit = Int(try query.int("causes", in: 0...100_000) ?? Int64(TraceComparison.defaultCauseLimit))
        let functionLimit = Int(try query.int("functions", in: 0...100_000) ?? Int64(TraceComparison.defaultFunctionLimit))
        let viewLimit = Int(try query.int("views", in: 0...100_000) ?? Int64(TraceComparison.defaultViewLimit))
        let loaded = try await models.loaded(together: idsA + idsB)
        let tracesA = Array(loaded.prefix(idsA.count)), tracesB = Array(loaded.dropFirst(idsA.count))
        // Each side is a pass over a whole trace (kept after the first compare of the whole
        // trace): all go through the query gate at once, off the cooperative pool.
        let sides = try await withThrowingTaskGroup(of: (Int, ComparisonSide).self) { group in
            for (index, trace) in (tracesA + tracesB).enumerated() {
                let range = index < tracesA.count ? rangeA : rangeB
                group.addTask { (index, try await queries.run(for: context.work) { trace.comparisonSide(in: range) }) }
            }
            var sides = [ComparisonSide?](repeating: nil, count: tracesA.count + tracesB.count)
            for try await (index, side) in group { sides[index] = side }
            return sides.map { $0! }
        }
        let a = Array(sides.prefix(tracesA.count)), b = Array(sides.dropFirst(tracesA.count))
        // The noise of earlier recordings with the same scenario, device and branch tags, uploaded
        // before these (the answer stays the same as more arrive).
        let earlier = try await noise.earlierNoise(comparing: (idsA + idsB).map(\.text))
        return jsonResponse(bytes: try await queries.run(for: context.work) {
            try encodeJSON(TraceComparison(.pooled(a), .pooled(b), causeLimit: causeLimit, functionLimit: functionLimit, viewLimit: viewLimit, earlier: earlier))
        })
    }

    /// `GET /api/noise?tag=…&exclude=ID`: the run-to-run noise of the latest traces with all the
    /// tags (`tracesvc check --baseline-tags`); `{"earlier": null}` when they measure nothing.
    @Sendable func earlierNoise(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let parameters = QueryParameters(request: request)
        let tags = try parameters.tags()
        guard !tags.isEmpty else { throw APIError.badParameter("tag", "give the tags of the recordings, e.g. tag=scenario:scroll&tag=branch:main") }
        let excluded = parameters.string("exclude").map { Set($0.split(separator: ",").map(String.init)) } ?? []
        return try jsonResponse(EarlierNoiseAnswer(earlier: try await queries.admit(for: context.work) { try await noise.earlierNoise(tags: tags, before: nil, excluding: excluded) }))
    }
}

/// The store's facet the compare routes need beside the models: the noise of earlier recordings
/// with the same tags (Library/, "EarlierNoise").
protocol EarlierRecordings: Sendable {
    func earlierNoise(comparing ids: [String]) async throws(StoreError) -> EarlierNoise?
    func earlierNoise(tags: [TraceTag], before: Int64?, excluding: Set<String>) async throws(StoreError) -> EarlierNoise?
}

/// `GET /api/noise`'s answer: null when the recordings measure nothing.
struct EarlierNoiseAnswer: Encodable {
    @NullWhenAbsent var earlier: EarlierNoise?
}

/// Recordings a side may pool.
let maxRecordingsPerSide = 10

/// The ids of `value` ("ID" or "ID,ID,ID"): a side of GET compare and compare/flamegraph.
/// An id that cannot be a trace's is the same 404 as an unknown one, before any load.
func recordingIDs(_ value: String?, parameter: String, side: String) throws -> [TraceID] {
    guard let value, !value.isEmpty else { throw APIError.badParameter(parameter, "give the id of trace \(side), or several separated by commas") }
    let texts = value.split(separator: ",", omittingEmptySubsequences: false)
    guard !texts.contains(where: \.isEmpty) else { throw APIError.badParameter(parameter, "an empty id in \"\(value)\"") }
    guard texts.count <= maxRecordingsPerSide else {
        throw APIError.badParameter(parameter, "\(texts.count) recordings; a side pools at most \(maxRecordingsPerSide)")
    }
    return try texts.map { text in
        guard let id = TraceID(text) else { throw APIError.unknownTrace(String(text.prefix(80))) }
        return id
    }
}
