// The differential flame graph of trace A (before) and trace B (after): B's flame graph, each
// frame with its weight at the same call path in A (paths matched by frame names, since the two
// recordings number their frames differently) and the change of its self weight as a share of
// each side's total and of its self time per run; and the functions of A that B no longer runs at all.

public struct DifferentialFlameGraphQuery: Sendable, Equatable {
    /// A's samples and transforms (range, view, thread...) and B's; both top-down.
    public var before: CallTreeQuery
    public var after: CallTreeQuery
    /// B's graph: zoom, window and width as a flame graph's.
    public var zoom: [CallPathStep]
    /// The zoom of a pooled graph (several recordings a side): the names of its frames from a root.
    public var zoomNames: [String] = []
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
    /// Per frame: B's self time per run minus A's, as a fraction of the larger side's total per
    /// run, -1...1: the colour a reviewer reads against the tables' ms. A frame whose time did not
    /// change stays white when the other side's total halves, which a share change paints red.
    /// The share change where the two sides weigh in different units (time against cycles).
    public var selfTimeDelta: [Double]
    /// Functions that went away, heaviest first, at most `removedLimit`, of `removedCount`.
    public var removed: [RemovedFunction]
    public var removedCount: Int
    /// Recordings pooled a side (weights are per run when more than one).
    public var beforeRuns = 1
    public var afterRuns = 1
}

extension Trace {
    public static func differentialFlameGraph(before a: Trace, after b: Trace, _ query: DifferentialFlameGraphQuery) -> DifferentialFlameGraph {
        var beforeQuery = query.before, afterQuery = query.after
        (beforeQuery.mode, afterQuery.mode, beforeQuery.focus) = (.topDown, .topDown, [])
        // Thread rows differ between recordings: the graph is of every kept thread together.
        let (graph, nodeOfFrame) = b.flameGraphAndNodes(
            FlameGraphQuery(tree: afterQuery, zoom: query.zoom, window: query.window, width: query.width), byThread: false
        )
        guard case .topDown(var aTree, let aSlices) = a.cpuTrees(beforeQuery, byThread: false).trees,
              case .topDown(var bTree, let bSlices) = b.cpuTrees(afterQuery, byThread: false).trees else { preconditionFailure("top-down trees") }
        aTree.load(aSlices.first ?? .empty, of: a)
        bTree.load(bSlices.first ?? .empty, of: b)
        let matcher = NameMatcher(a: a, aTree: aTree, b: b, bTree: bTree, view: (beforeQuery.view?.name ?? "", afterQuery.view?.name ?? ""))
        // A's node at B's focus (by names), the root of what is compared.
        var aRoot: Int? = Int(CPUPathTrie.root)
        if !afterQuery.focus.isEmpty {
            var bNode = Int(CPUPathTrie.root)
            for step in afterQuery.focus {
                guard let next = bTree.trie.child(of: bNode, step) else { aRoot = nil; break }
                aRoot = aRoot.flatMap { matcher.child(of: $0, named: next) }
                bNode = next
            }
        }
        let beforeTotal = aRoot.map { aTree.total($0) } ?? 0
        let (beforeSelf, beforeTotals, deltas, timeDeltas) = Self.beforeWeights(
            of: graph, nodeOfFrame: nodeOfFrame, beforeTotal: beforeTotal, sameUnit: a.metadata.cpuWeightUnit == b.metadata.cpuWeightUnit,
            match: { node, aParent in
                if let aParent { return matcher.child(of: aParent, named: node) }
                return afterQuery.focus.isEmpty ? aRoot.flatMap { matcher.child(of: $0, named: node) } : aRoot
            },
            weights: { (aTree.selfWeight($0), aTree.total($0)) }
        )
        let removed = matcher.removedFunctions(aRoot: aRoot, aTotal: beforeTotal, bRoot: b.focusRoot(afterQuery.focus, in: bTree))
        return DifferentialFlameGraph(
            graph: graph, beforeTotal: beforeTotal, beforeSamples: aRoot.map { aTree.samples($0) } ?? 0,
            beforeUnit: a.metadata.cpuWeightUnit, beforeTotalOfFrame: beforeTotals, beforeSelfOfFrame: beforeSelf, selfDelta: deltas,
            selfTimeDelta: timeDeltas, removed: Array(removed.prefix(max(0, query.removedLimit))), removedCount: removed.count
        )
    }

    /// A's weights at each of B's frames and each frame's change of self share and of self time
    /// (per run, of the larger side's total; the share change when `sameUnit` is false). B's frames
    /// come parents first; `match(node, aParent)` is A's node for B's tree node `node` under A's node
    /// `aParent` (nil for a root frame); a frame whose parent has no A node has none either.
    static func beforeWeights(
        of graph: FlameGraph, nodeOfFrame: [Int], beforeTotal: Nanoseconds, sameUnit: Bool,
        match: (_ node: Int, _ aParent: Int?) -> Int?, weights: (Int) -> (selfWeight: Nanoseconds, total: Nanoseconds)
    ) -> (self: [Nanoseconds?], totals: [Nanoseconds?], deltas: [Double], timeDeltas: [Double]) {
        let frames = graph.frames
        let timeScale = Double(max(beforeTotal, graph.totalWeight))
        var aNodeOfFrame = [Int?](repeating: nil, count: frames.count)
        var beforeSelf: [Nanoseconds?] = [], beforeTotals: [Nanoseconds?] = [], deltas: [Double] = [], timeDeltas: [Double] = []
        for frame in 0..<frames.count {
            let node = nodeOfFrame[frame], parentFrame = frames.parent[frame]
            var found: Int?
            if node >= 0 {
                if parentFrame < 0 { found = match(node, nil) }
                else if let aParent = aNodeOfFrame[parentFrame] { found = match(node, aParent) }
            }
            aNodeOfFrame[frame] = found
            let aWeights = found.map(weights)
            beforeSelf.append(aWeights?.selfWeight)
            beforeTotals.append(aWeights?.total)
            let bShare = graph.totalWeight > 0 ? Double(frames.selfWeight[frame]) / Double(graph.totalWeight) : 0
            let aShare = beforeTotal > 0 ? Double(aWeights?.selfWeight ?? 0) / Double(beforeTotal) : 0
            let merged = frames.kind[frame] == .merged
            deltas.append(merged ? 0 : bShare - aShare)
            let timeChange = timeScale > 0 ? Double(frames.selfWeight[frame] - (aWeights?.selfWeight ?? 0)) / timeScale : 0
            timeDeltas.append(merged ? 0 : sameUnit ? timeChange : bShare - aShare)
        }
        return (beforeSelf, beforeTotals, deltas, timeDeltas)
    }

    /// The node of a (threadless) focus path in a loaded top-down tree; the root without one.
    fileprivate func focusRoot(_ focus: [CallPathStep], in tree: TopDownTree) -> Int? {
        var node = Int(CPUPathTrie.root)
        for step in focus {
            guard let next = tree.trie.child(of: node, step) else { return nil }
            node = next
        }
        return node
    }
}

/// Matches B's nodes to A's by the names of their steps (frame rows are each trace's own), and
/// finds A's functions that B does not run. Names are compared as text only across traces:
/// within one, by their string references.
private struct NameMatcher {
    let a: Trace, aTree: TopDownTree, b: Trace, bTree: TopDownTree
    let view: (a: String, b: String)
    private let childCache = ChildCache()

    /// A's children by name, filled as the graph asks (a class: the matcher is passed around by value).
    private final class ChildCache { var byNode: [Int: [String: Int]] = [:] }

    init(a: Trace, aTree: TopDownTree, b: Trace, bTree: TopDownTree, view: (a: String, b: String)) {
        (self.a, self.aTree, self.b, self.bTree, self.view) = (a, aTree, b, bTree, view)
    }

    private func name(_ step: CallPathStep, in trace: Trace, view: String) -> String {
        if case .frame(let row) = step { return trace.string(trace.cpu.frames.name[Int(row)]) }
        // Rows that are not frames match their kind ("Outside V.body" of either view).
        return step == .outsideBody ? "\u{0}outside" : step == .systemLibraries ? "\u{0}system" : trace.callPathText(step, view: view).name
    }

    /// A's child of `aNode` named as B's node `bNode` (the heaviest of that name).
    func child(of aNode: Int, named bNode: Int) -> Int? {
        if childCache.byNode[aNode] == nil {
            var byName: [String: Int] = [:]
            for child in aTree.children(of: aNode) {
                let key = name(aTree.step(child), in: a, view: view.a)
                if let known = byName[key], aTree.total(known) >= aTree.total(child) { continue }
                byName[key] = child
            }
            childCache.byNode[aNode] = byName
        }
        return childCache.byNode[aNode]![name(bTree.step(bNode), in: b, view: view.b)]
    }

    /// Functions (by name) on some stack of A's subtree at `aRoot` and nowhere in B's at `bRoot`,
    /// heaviest first. A function's weight counts each sample once, at its outermost call.
    func removedFunctions(aRoot: Int?, aTotal: Nanoseconds, bRoot: Int?) -> [RemovedFunction] {
        guard let aRoot else { return [] }
        // B's function names: its string references first, as text once each.
        var bRefs = Set<StringRef>()
        var pending = bRoot.map { [$0] } ?? []
        while let node = pending.popLast() {
            if case .frame(let row) = bTree.step(node), node != 0 { bRefs.insert(b.cpu.frames.name[Int(row)]) }
            pending.append(contentsOf: bTree.children(of: node))
        }
        let bNames = Set(bRefs.map { b.string($0) })
        struct Found { var total: Nanoseconds = 0, heaviest: Int = -1 }
        var gone: [StringRef: Bool] = [:]
        var found: [StringRef: Found] = [:]
        // Depth first with enter/leave events, counting the names on the current path.
        var onPath: [StringRef: Int] = [:]
        var walk: [(node: Int, leaving: Bool)] = aTree.children(of: aRoot).map { ($0, false) }
        while let (node, leaving) = walk.popLast() {
            guard case .frame(let row) = aTree.step(node) else {
                if !leaving { walk.append(contentsOf: aTree.children(of: node).map { ($0, false) }) }
                continue
            }
            let ref = a.cpu.frames.name[Int(row)]
            if leaving {
                onPath[ref]! -= 1
                continue
            }
            if gone[ref] == nil { gone[ref] = !bNames.contains(a.string(ref)) }
            if gone[ref]!, onPath[ref, default: 0] == 0 {
                var entry = found[ref] ?? Found()
                entry.total += aTree.total(node)
                if entry.heaviest < 0 || aTree.total(node) > aTree.total(entry.heaviest) { entry.heaviest = node }
                found[ref] = entry
            }
            onPath[ref, default: 0] += 1
            walk.append((node, true))
            walk.append(contentsOf: aTree.children(of: node).map { ($0, false) })
        }
        return found.map { ref, entry in
            let step = aTree.step(entry.heaviest)
            let (name, binary, isAppCode) = a.callPathText(step, view: view.a)
            let parent = Int(aTree.trie.parent[entry.heaviest])
            let caller = parent == aRoot || parent <= 0 ? "" : a.callPathText(aTree.step(parent), view: view.a).name
            return RemovedFunction(
                name: name, binary: binary, kind: FlameLayout.kind(of: step, binary: binary, isAppCode: isAppCode),
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
        out.raw("],\"selfTimeDelta\":[")
        for (i, delta) in selfTimeDelta.enumerated() {
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
        out.raw("]")
        if beforeRuns > 1 || afterRuns > 1 {
            out.raw(",\"runs\":{\"a\":"); out.int(Int64(beforeRuns)); out.raw(",\"b\":"); out.int(Int64(afterRuns)); out.raw("}")
        }
        out.raw("}")
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
