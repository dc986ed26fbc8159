import Hummingbird
import TraceModel

/// The CPU samples of one trace drawn three ways (call tree, flame graph, stack chart) and of two
/// (the differential flame graph), all through one reading of the query's samples and transforms
/// (`cpuQuery`). docs/api.md, "CPU".
struct CPURoutes: TraceController {
    let models: any TraceModels
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/traces/:id/calltree", use: withTrace(callTree))
        router.get("/api/traces/:id/flamegraph", use: withTrace(flameGraph))
        router.get("/api/traces/:id/stackchart", use: withTrace(stackChart))
        router.get("/api/compare/flamegraph", use: differentialFlameGraph)
    }

    @Sendable func callTree(_ on: TraceRequest) async throws -> Response {
        let (trace, query) = (on.trace, on.query)
        var treeQuery = try cpuQuery(query, trace: trace)
        treeQuery.minPercent = min(100, max(0, try query.double("minPercent") ?? 0.1))
        let (answer, search) = (treeQuery, query.string("search"))
        return try await on.answer {
            var tree = trace.callTree(answer)
            if let search { tree.hiddenMatches = trace.hiddenMatches(answer, text: search) }
            return tree.json()
        }
    }

    @Sendable func flameGraph(_ on: TraceRequest) async throws -> Response {
        let (trace, query) = (on.trace, on.query)
        let flameQuery = FlameGraphQuery(
            tree: try cpuQuery(query, trace: trace), zoom: try callPath(query, "zoom", trace: trace),
            window: try weightWindow(query), width: try pixelWidth(query)
        )
        let search = query.string("search")
        return try await on.answer {
            var graph = trace.flameGraph(flameQuery)
            if let search { graph.hiddenMatches = trace.hiddenMatches(flameQuery.tree, text: search) }
            return graph.json()
        }
    }

    @Sendable func stackChart(_ on: TraceRequest) async throws -> Response {
        let (trace, query) = (on.trace, on.query)
        let chartQuery = StackChartQuery(tree: try cpuQuery(query, trace: trace), width: try pixelWidth(query))
        return try await on.answer { trace.stackChart(chartQuery).json() }
    }

    @Sendable func differentialFlameGraph(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let query = QueryParameters(request: request)
        let idsA = try recordingIDs(query.string("a"), parameter: "a", side: "A (before)")
        let idsB = try recordingIDs(query.string("b"), parameter: "b", side: "B (after)")
        let loaded = try await models.loaded(together: idsA + idsB).map(\.trace)
        let tracesA = Array(loaded.prefix(idsA.count)), tracesB = Array(loaded.dropFirst(idsA.count))
        let diffQuery: DifferentialFlameGraphQuery
        let window = try weightWindow(query), width = try pixelWidth(query)
        let removedLimit = Int(try query.int("removed", in: 0...1000) ?? 50)
        if idsA.count == 1, idsB.count == 1 {
            var before = try cpuQuery(query, trace: tracesA[0], rangeNames: ("aStart", "aEnd"), paths: false)
            let after = try cpuQuery(query, trace: tracesB[0], rangeNames: ("bStart", "bEnd"))
            // Thread rows are each trace's own: a thread of B means nothing in A.
            before.thread = nil
            diffQuery = DifferentialFlameGraphQuery(
                before: before, after: after, zoom: try callPath(query, "zoom", trace: tracesB[0]),
                window: window, width: width, removedLimit: removedLimit
            )
        } else {
            diffQuery = try pooledDifferentialQuery(query, tracesA, tracesB, window: window, width: width, removedLimit: removedLimit)
        }
        let (a, b) = (tracesA, tracesB)
        return jsonResponse(bytes: try await queries.run(for: context.work) { Trace.differentialFlameGraph(before: a, after: b, diffQuery).json() })
    }
}

/// A differential flame graph of several recordings a side, pooled: rows of one recording address
/// nothing in the others, so it zooms by names, and each side's recordings must weigh alike.
private func pooledDifferentialQuery(
    _ query: QueryParameters, _ tracesA: [Trace], _ tracesB: [Trace], window: WeightWindow?, width: Int, removedLimit: Int
) throws(APIError) -> DifferentialFlameGraphQuery {
    for (name, what) in [("thread", "a thread"), ("focus", "a focus path"), ("zoom", "a zoom path of rows")] where query.string(name) != nil {
        throw APIError.badParameter(name, "\(what) names rows of one recording; the graph pools several\(name == "zoom" ? ": zoom by names with zoomNames" : "")")
    }
    for (side, traces, start, end) in [("A", tracesA, "aStart", "aEnd"), ("B", tracesB, "bStart", "bEnd")] {
        if traces.count > 1, query.string(start) != nil || query.string(end) != nil {
            throw APIError.badParameter(start, "a range applies to one recording of \(side), not \(traces.count)")
        }
        if Set(traces.map(\.metadata.cpuWeightUnit)).count > 1 {
            throw APIError.badParameter(side.lowercased(), "the recordings of \(side) weigh their samples in different units (time and cycles): their means mean nothing")
        }
    }
    let names = query.string("zoomNames").map { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) } ?? []
    guard names.count <= CallTreeQuery.maxDepth + 2 else {
        throw APIError.badParameter("zoomNames", "a path has at most \(CallTreeQuery.maxDepth + 2) steps, not \(names.count)")
    }
    var pooled = DifferentialFlameGraphQuery(
        before: try cpuQuery(query, trace: tracesA[0], rangeNames: ("aStart", "aEnd"), paths: false),
        after: try cpuQuery(query, trace: tracesB[0], rangeNames: ("bStart", "bEnd"), paths: false),
        window: window, width: width, removedLimit: removedLimit
    )
    pooled.zoomNames = names
    return pooled
}

/// The samples and transforms every CPU route reads: `start`/`end` (or `rangeNames`), `mode`,
/// `thread`, `view`/`module`/`filter`/`longerThan`, `hideSystem`, `charge` (one symbol per line), `flatten`, `focus`.
/// `paths` false: `focus` is not read (it names another trace's rows).
private func cpuQuery(
    _ query: QueryParameters, trace: Trace, rangeNames: (String, String) = ("start", "end"), paths: Bool = true
) throws(APIError) -> CallTreeQuery {
    let thread = try query.int("thread", in: 0...Int64(max(0, trace.threads.count - 1)))
    if thread != nil, trace.threads.isEmpty { throw APIError.badParameter("thread", "the trace has no threads") }
    // Symbol names hold commas ("f(a, b)"), never newlines: one name per line.
    let charged = query.string("charge").map { $0.split(separator: "\n").map(String.init) } ?? []
    guard charged.count <= 200 else { throw APIError.badParameter("charge", "at most 200 symbols can be charged to their callers, not \(charged.count)") }
    var view: CallTreeQuery.ViewSelector?
    if let name = query.string("view") {
        view = CallTreeQuery.ViewSelector(
            name: name, module: query.string("module"), filter: try query.choice("filter", default: SummaryFilter.all),
            longerThan: try query.int("longerThan", in: 0...TraceLimits.durations.upperBound)
        )
    }
    return CallTreeQuery(
        range: try query.timeRange(rangeNames.0, rangeNames.1), mode: try query.choice("mode", default: .topDown),
        thread: thread.map(Int.init),
        view: view,
        hideSystemLibraries: try query.choice("hideSystem", default: Switch.false) == .true,
        chargedToCaller: Set(charged),
        flattenRecursion: try query.choice("flatten", default: Switch.false) == .true,
        focus: paths ? try callPath(query, "focus", trace: trace) : []
    )
}

/// A path of call tree steps (`t3.f120.f7`, docs/api.md), each naming a row the trace has.
private func callPath(_ query: QueryParameters, _ name: String, trace: Trace) throws(APIError) -> [CallPathStep] {
    guard let text = query.string(name) else { return [] }
    guard let path = CallPathStep.path(wire: text) else {
        throw APIError.badParameter(name, "'\(text.prefix(80))' is not a path of steps t<thread>, f<frame>, sys or out joined by '.'")
    }
    guard path.count <= CallTreeQuery.maxDepth + 2 else {
        throw APIError.badParameter(name, "a path has at most \(CallTreeQuery.maxDepth + 2) steps, not \(path.count)")
    }
    for step in path {
        switch step {
        case .thread(let index) where index >= trace.threads.count:
            throw APIError.badParameter(name, "the trace has \(trace.threads.count) threads; there is no thread \(index)")
        case .frame(let row) where Int(row) >= trace.cpu.frames.count:
            throw APIError.badParameter(name, "the trace has \(trace.cpu.frames.count) frames; there is no frame \(row)")
        default: continue
        }
    }
    return path
}

/// `from`/`to`: the part of a flame graph drawn, in weight from its left edge.
private func weightWindow(_ query: QueryParameters) throws(APIError) -> WeightWindow? {
    let from = try query.int("from", in: 0...Int64.max / 2), to = try query.int("to", in: 1...Int64.max / 2)
    switch (from, to) {
    case (nil, nil): return nil
    case let (from?, to?):
        guard to > from else { throw APIError(.badRequest, "bad window", detail: "to (\(to)) must be after from (\(from)).") }
        return WeightWindow(from: from, to: to)
    default: throw APIError(.badRequest, "bad window", detail: "Give both from and to, or neither.")
    }
}

/// `width`: the pixels an answer is drawn on (frames narrower than one are merged).
private func pixelWidth(_ query: QueryParameters) throws(APIError) -> Int {
    Int(try query.int("width", in: 1...10_000) ?? 1200)
}

private enum Switch: String, CaseIterable { case `true`, `false` }
