// The differential flame graph of trace A (before) and trace B (after): B's flame graph, each
// frame with its weight at the same call path in A (paths matched by frame names, since the two
// recordings number their frames differently) and the change of its self weight as a share of
// each side's total; and the functions of A that B no longer runs at all.

public struct DifferentialFlameGraphQuery: Sendable, Equatable {
    /// A's samples and transforms (range, view, thread...) and B's; both top-down.
    public var before: CallTreeQuery
    public var after: CallTreeQuery
    /// B's graph: zoom, window and width as a flame graph's.
    public var zoom: [CallPathStep]
    public var window: WeightWindow?
    public var width: Int
    /// How many functions that went away are listed (heaviest in A first).
    public var removedLimit: Int

    public init(before: CallTreeQuery, after: CallTreeQuery, zoom: [CallPathStep] = [], window: WeightWindow? = nil, width: Int = 1200, removedLimit: Int = 50) {
        self.before = before
        self.after = after
        self.zoom = zoom
        self.window = window
        self.width = width
        self.removedLimit = removedLimit
    }
}

/// A function of A that B's graph does not hold anywhere.
public struct RemovedFunction: Sendable, Equatable {
    public var name: String
    public var binary: String
    public var kind: FlameFrameKind
    /// A's weight with the function on the stack (each sample once, however deep its recursion).
    public var total: Nanoseconds
    /// Its share of A's total, 0...1.
    public var share: Double
    /// The heaviest caller of its heaviest call path in A (empty at a root).
    public var caller: String
}

public struct DifferentialFlameGraph: Sendable, Equatable {
    /// B's graph.
    public var graph: FlameGraph
    public var beforeTotal: Nanoseconds
    public var beforeSamples: Int
    public var beforeUnit: CPUWeightUnit
    /// Per frame of `graph`: A's total and self weight at the same path, nil where A has none
    /// (the frame is new, or a merged block).
    public var beforeTotalOfFrame: [Nanoseconds?]
    public var beforeSelfOfFrame: [Nanoseconds?]
    /// Per frame: B's self share minus A's (each of its side's total), -1...1.
    public var selfDelta: [Double]
    /// Functions that went away, heaviest first, at most `removedLimit`, of `removedCount`.
    public var removed: [RemovedFunction]
    public var removedCount: Int
}

extension Trace {
    public static func differentialFlameGraph(before a: Trace, after b: Trace, _ query: DifferentialFlameGraphQuery) -> DifferentialFlameGraph {
        var beforeQuery = query.before, afterQuery = query.after
        (beforeQuery.mode, afterQuery.mode) = (.topDown, .topDown)
        // Thread rows differ between recordings: the graph is of every kept thread together.
        let before = a.callTreeArena(beforeQuery, byThread: false), after = b.callTreeArena(afterQuery, byThread: false)
        let (graph, nodeOfFrame) = b.flameGraphAndNodes(
            FlameGraphQuery(tree: afterQuery, zoom: query.zoom, window: query.window, width: query.width),
            arena: after.arena, total: after.total, sampleCount: after.sampleCount, updateCount: after.updateCount, byThread: false
        )
        let matcher = NameMatcher(a: a, aTree: before.arena, b: b, bTree: after.arena, view: (beforeQuery.view?.name ?? "", afterQuery.view?.name ?? ""))
        // The A node of each B node on the way (B's frames come parents first).
        let frames = graph.frames
        var aNodeOfFrame = [Int?](repeating: nil, count: frames.count)
        var aRoot: Int? = NodeArena.root
        if !afterQuery.focus.isEmpty, let focus = after.arena.node(at: afterQuery.focus) {
            aRoot = matcher.aNode(matching: focus)
        }
        var beforeTotal = before.total, beforeSelf: [Nanoseconds?] = [], beforeTotals: [Nanoseconds?] = [], deltas: [Double] = []
        if !afterQuery.focus.isEmpty { beforeTotal = aRoot.map { before.arena.nodes[$0].total } ?? 0 }
        var cache = matcher.emptyChildCache()
        for frame in 0..<frames.count {
            let node = nodeOfFrame[frame]
            var match: Int?
            if node >= 0 {
                let parentFrame = frames.parent[frame]
                if parentFrame < 0 {
                    match = afterQuery.focus.isEmpty ? aRoot.flatMap { matcher.child(of: $0, named: node, cache: &cache) } : aRoot
                } else {
                    match = aNodeOfFrame[parentFrame].flatMap { matcher.child(of: $0, named: node, cache: &cache) }
                }
            }
            aNodeOfFrame[frame] = match
            let aSelf = match.map { before.arena.nodes[$0].selfWeight }
            beforeSelf.append(aSelf)
            beforeTotals.append(match.map { before.arena.nodes[$0].total })
            let bShare = graph.totalWeight > 0 ? Double(frames.selfWeight[frame]) / Double(graph.totalWeight) : 0
            let aShare = beforeTotal > 0 ? Double(aSelf ?? 0) / Double(beforeTotal) : 0
            deltas.append(frames.kind[frame] == .merged ? 0 : bShare - aShare)
        }
        let removed = matcher.removedFunctions(aRoot: aRoot, aTotal: beforeTotal)
        return DifferentialFlameGraph(
            graph: graph, beforeTotal: beforeTotal, beforeSamples: aRoot.map { before.arena.nodes[$0].samples } ?? 0,
            beforeUnit: a.metadata.cpuWeightUnit, beforeTotalOfFrame: beforeTotals, beforeSelfOfFrame: beforeSelf, selfDelta: deltas,
            removed: Array(removed.prefix(max(0, query.removedLimit))), removedCount: removed.count
        )
    }
}

/// Matches B's nodes to A's by the names of their steps (thread rows and frame rows are each
/// trace's own), and finds A's functions that B does not have.
private struct NameMatcher {
    let a: Trace, aTree: NodeArena, b: Trace, bTree: NodeArena
    let view: (a: String, b: String)

    func emptyChildCache() -> [Int: [String: Int]] { [:] }

    private func name(_ step: CallPathStep, in trace: Trace, view: String) -> String {
        if case .frame(let row) = step { return trace.string(trace.cpu.frames.name[Int(row)]) }
        // Rows that are not frames match their kind ("Outside V.body" of either view).
        return step == .outsideBody ? "\u{0}outside" : step == .systemLibraries ? "\u{0}system" : trace.callPathText(step, view: view).name
    }

    /// A's child of `aNode` named as B's node `bNode`, its children by name cached (the heaviest of a name).
    func child(of aNode: Int, named bNode: Int, cache: inout [Int: [String: Int]]) -> Int? {
        if cache[aNode] == nil {
            var byName: [String: Int] = [:]
            for child in aTree.nodes[aNode].children.values {
                let key = name(aTree.nodes[child].key, in: a, view: view.a)
                if let known = byName[key], aTree.nodes[known].total >= aTree.nodes[child].total { continue }
                byName[key] = child
            }
            cache[aNode] = byName
        }
        return cache[aNode]![name(bTree.nodes[bNode].key, in: b, view: view.b)]
    }

    /// The A node at B node `bNode`'s path, by names.
    func aNode(matching bNode: Int) -> Int? {
        var cache: [Int: [String: Int]] = [:]
        var (aCurrent, bCurrent) = (NodeArena.root, NodeArena.root)
        for step in bTree.path(to: bNode) {
            guard let next = bTree.nodes[bCurrent].children[step], let matched = child(of: aCurrent, named: next, cache: &cache) else { return nil }
            (bCurrent, aCurrent) = (next, matched)
        }
        return aCurrent
    }

    /// Functions (by name and binary) on some stack of A's subtree at `aRoot` and nowhere in B's
    /// tree, heaviest first. A function's weight counts each sample once, at its outermost call.
    func removedFunctions(aRoot: Int?, aTotal: Nanoseconds) -> [RemovedFunction] {
        guard let aRoot else { return [] }
        var bNames = Set<String>()
        for node in 1..<max(1, bTree.nodes.count) { bNames.insert(name(bTree.nodes[node].key, in: b, view: view.b)) }
        struct Found { var total: Nanoseconds = 0, heaviest: Int = -1 }
        var found: [String: Found] = [:]
        // Depth first with enter/leave events, counting the names on the current path.
        var onPath: [String: Int] = [:]
        var pending: [(node: Int, leaving: Bool)] = aTree.nodes[aRoot].children.values.map { ($0, false) }
        while let (node, leaving) = pending.popLast() {
            let key = name(aTree.nodes[node].key, in: a, view: view.a)
            if leaving {
                onPath[key]! -= 1
                continue
            }
            if case .frame = aTree.nodes[node].key, !bNames.contains(key), onPath[key, default: 0] == 0 {
                var entry = found[key] ?? Found()
                entry.total += aTree.nodes[node].total
                if entry.heaviest < 0 || aTree.nodes[node].total > aTree.nodes[entry.heaviest].total { entry.heaviest = node }
                found[key] = entry
            }
            onPath[key, default: 0] += 1
            pending.append((node, true))
            pending.append(contentsOf: aTree.nodes[node].children.values.map { ($0, false) })
        }
        return found.map { key, entry in
            let node = aTree.nodes[entry.heaviest]
            let (_, binary, isAppCode) = a.callPathText(node.key, view: view.a)
            let caller = node.parent == aRoot || node.parent == NodeArena.root ? "" : a.callPathText(aTree.nodes[node.parent].key, view: view.a).name
            return RemovedFunction(
                name: key, binary: binary, kind: FlameLayout.kind(of: node.key, binary: binary, isAppCode: isAppCode),
                total: entry.total, share: aTotal > 0 ? Double(entry.total) / Double(aTotal) : 0, caller: caller
            )
        }
        .sorted { ($0.total, $1.name) > ($1.total, $0.name) }
    }
}

// MARK: JSON

extension DifferentialFlameGraph {
    /// The API's JSON: B's flame graph (as GET flamegraph) with A's weights per frame and what went away.
    public func json() -> [UInt8] {
        var out = JSONWriter()
        graph.writeHeader(to: &out)
        out.raw(",\"before\":{\"totalWeight\":"); out.int(beforeTotal)
        out.raw(",\"sampleCount\":"); out.int(Int64(beforeSamples))
        out.raw(",\"unit\":"); out.string(beforeUnit.rawValue)
        out.raw(",\"total\":"); out.optionalInts(beforeTotalOfFrame)
        out.raw(",\"self\":"); out.optionalInts(beforeSelfOfFrame)
        out.raw("},\"selfDelta\":[")
        for (i, delta) in selfDelta.enumerated() {
            if i > 0 { out.raw(",") }
            out.signedFraction(delta)
        }
        out.raw("],\"removedCount\":"); out.int(Int64(removedCount))
        out.raw(",\"removed\":[")
        for (i, function) in removed.enumerated() {
            if i > 0 { out.raw(",") }
            out.raw("{\"name\":"); out.string(function.name)
            out.raw(",\"binary\":"); out.string(function.binary)
            out.raw(",\"kind\":"); out.string(function.kind.rawValue)
            out.raw(",\"total\":"); out.int(function.total)
            out.raw(",\"share\":"); out.signedFraction(function.share)
            out.raw(",\"caller\":"); out.string(function.caller)
            out.raw("}")
        }
        out.raw("]}")
        return out.bytes
    }
}

extension JSONWriter {
    mutating func optionalInts(_ values: [Int64?]) {
        raw("[")
        for (i, value) in values.enumerated() {
            if i > 0 { raw(",") }
            if let value { int(value) } else { raw("null") }
        }
        raw("]")
    }

    /// A fraction in -1...1 with 6 decimals (a share of a total, to a millionth).
    mutating func signedFraction(_ value: Double) {
        let millionths = Int64((min(1, max(-1, value)) * 1_000_000).rounded())
        if millionths < 0 { raw("-") }
        let magnitude = millionths.magnitude
        int(Int64(magnitude / 1_000_000))
        raw(".")
        let decimals = magnitude % 1_000_000
        for divisor: UInt64 in [100_000, 10_000, 1000, 100, 10, 1] { bytes.append(UInt8(ascii: "0") + UInt8(decimals / divisor % 10)) }
    }
}
