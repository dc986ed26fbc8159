// The differential flame graph of several recordings a side: each side's CPU trees merged by
// the names of their call paths (every recording numbers its frames its own way), weights per
// run (the mean over the side's recordings), B's pooled tree drawn with A's pooled weights at the
// same names. Zoom is by names too: a pooled graph has no rows of any one recording.

extension Trace {
    /// The differential flame graph of one or several recordings a side (at most
    /// `maxPooledRecordings` each, the caller's limit). One a side: as `differentialFlameGraph`,
    /// zoomed by `query.zoom` (B's rows). More: pooled, zoomed by `query.zoomNames`, with no
    /// focus and no thread (both name rows of one recording).
    public static func differentialFlameGraph(before a: [Trace], after b: [Trace], _ query: DifferentialFlameGraphQuery) -> DifferentialFlameGraph {
        precondition(!a.isEmpty && !b.isEmpty, "a recording a side")
        if a.count == 1, b.count == 1 { return differentialFlameGraph(before: a[0], after: b[0], query) }
        let aSide = PooledCallTree(a, query.before), bSide = PooledCallTree(b, query.after)
        let view = query.after.view?.name ?? ""
        var source = bSide.tree
        let zoom = bSide.steps(named: query.zoomNames)
        var flameQuery = FlameGraphQuery(tree: query.after, zoom: zoom ?? [], window: query.window, width: query.width)
        flameQuery.tree.focus = []
        let root = source.nodes[NodeArena.root]
        var (graph, nodeOfFrame) = bSide.names.flameLayout(
            flameQuery, source: &source, roots: bSide.names.sortedChildren(of: NodeArena.root, in: source, view: view),
            total: root.total, sampleCount: root.samples, updateCount: nil, focusFound: true
        )
        if zoom == nil { graph.zoomFound = false }
        // Steps of the pooled names mean nothing to a client: frames are addressed by names.
        graph.frames.step = graph.frames.step.map { _ in nil }
        let aRoot = aSide.tree.nodes[NodeArena.root]
        let bNodes = source.nodes
        let sameUnit = a[0].metadata.cpuWeightUnit == b[0].metadata.cpuWeightUnit
        let (beforeSelf, beforeTotals, deltas, timeDeltas) = Self.beforeWeights(
            of: graph, nodeOfFrame: nodeOfFrame, beforeTotal: aRoot.total, sameUnit: sameUnit,
            match: { node, aParent in aSide.child(of: aParent ?? NodeArena.root, matching: bNodes[node].key, in: bSide) },
            weights: { (aSide.tree.nodes[$0].selfWeight, aSide.tree.nodes[$0].total) }
        )
        let removed = aSide.removedFunctions(notIn: bSide, view: query.before.view?.name ?? "")
        return DifferentialFlameGraph(
            graph: graph, beforeTotal: aRoot.total, beforeSamples: aRoot.samples, beforeUnit: a[0].metadata.cpuWeightUnit,
            beforeTotalOfFrame: beforeTotals, beforeSelfOfFrame: beforeSelf, selfDelta: deltas,
            selfTimeDelta: timeDeltas, removed: Array(removed.prefix(max(0, query.removedLimit))), removedCount: removed.count,
            beforeRuns: a.count, afterRuns: b.count
        )
    }
}

/// One side's recordings, their top-down trees (every thread together, after the query's
/// transforms) merged by the names of their steps: a frame's step is `.frame(i)`, the `i`th
/// frame of `names`; rows that are not frames keep their step ("System libraries", "Outside V.body").
struct PooledCallTree {
    /// Weights per run: each node's self weight the mean over the recordings (rounded), totals
    /// the sums of those; samples are all the recordings' together.
    private(set) var tree = NodeArena()
    /// A trace of the pooled frames only (no samples): what the flame graph's layout and order read names from.
    let names: Trace
    private var frameNames: [String] = []
    private var rowOfName: [String: UInt32] = [:]

    init(_ recordings: [Trace], _ query: CallTreeQuery) {
        var builder = TraceBuilder(metadata: recordings[0].metadata)
        for trace in recordings {
            var query = query
            (query.mode, query.focus, query.thread) = (.topDown, [], nil)
            guard case .topDown(var recorded, let slices) = trace.cpuTrees(query, byThread: false).trees else { preconditionFailure("top-down trees") }
            recorded.load(slices.first ?? .empty, of: trace)
            // This recording's rows as pooled frames, each row's name hashed once.
            var pooledRow: [UInt32: UInt32] = [:]
            var pending = [(recorded: Int(CPUPathTrie.root), pooled: NodeArena.root)]
            while let (node, into) = pending.popLast() {
                for child in recorded.children(of: node) {
                    var step = recorded.step(child)
                    if case .frame(let row) = step {
                        if let known = pooledRow[row] {
                            step = .frame(known)
                        } else {
                            let name = trace.string(trace.cpu.frames.name[Int(row)])
                            var pooled: UInt32
                            if let known = rowOfName[name] {
                                pooled = known
                            } else {
                                pooled = builder.addFrame(
                                    name: builder.intern(name), binary: builder.intern(trace.string(trace.cpu.frames.binary[Int(row)])),
                                    isAppCode: trace.cpu.frames.isAppCode[Int(row)]
                                )
                                rowOfName[name] = pooled
                                frameNames.append(name)
                            }
                            pooledRow[row] = pooled
                            step = .frame(pooled)
                        }
                    }
                    let target = tree.child(of: into, step)
                    tree.nodes[target].selfWeight.addSaturating(recorded.selfWeight(child))
                    tree.nodes[target].samples += recorded.samples(child)
                    if recorded.foldedDepth(child) { tree.nodes[target].foldedDepth = true }
                    pending.append((child, target))
                }
            }
        }
        // Children come after their parents: one backward pass sums the means up.
        let runs = Int64(recordings.count)
        for index in stride(from: tree.nodes.count - 1, through: 1, by: -1) {
            let selfWeight = tree.nodes[index].selfWeight / runs + (tree.nodes[index].selfWeight % runs * 2 >= runs ? 1 : 0)
            tree.nodes[index].selfWeight = selfWeight
            tree.nodes[index].total.addSaturating(selfWeight)
            let parent = tree.nodes[index].parent
            tree.nodes[parent].total.addSaturating(tree.nodes[index].total)
            if parent == NodeArena.root { tree.nodes[parent].samples += tree.nodes[index].samples }
        }
        guard let names = try? builder.build() else { preconditionFailure("frames alone make a valid trace") }
        self.names = names
    }

    private func name(_ step: CallPathStep) -> String? {
        if case .frame(let row) = step { return frameNames[Int(row)] }
        return nil
    }

    /// This side's step for `other`'s, matched by name.
    private func step(matching step: CallPathStep, in other: PooledCallTree) -> CallPathStep? {
        guard let name = other.name(step) else { return step }
        return rowOfName[name].map { .frame($0) }
    }

    /// The child of `node` at `other`'s step (by name), nil when there is none.
    func child(of node: Int, matching otherStep: CallPathStep, in other: PooledCallTree) -> Int? {
        step(matching: otherStep, in: other).flatMap { tree.nodes[node].children[$0] }
    }

    /// The steps of a path of names (a frame's name, or "System libraries" / "Outside V.body" as
    /// drawn), nil when a name is no frame of this side.
    func steps(named path: [String]) -> [CallPathStep]? {
        var steps: [CallPathStep] = []
        for name in path {
            if let row = rowOfName[name] { steps.append(.frame(row)) }
            else if name == "System libraries" { steps.append(.systemLibraries) }
            else if name.hasPrefix("Outside "), name.hasSuffix(".body") { steps.append(.outsideBody) }
            else { return nil }
        }
        return steps
    }

    /// Functions (by name) on some stack of this side and on none of `other`'s, heaviest first.
    /// A function's weight counts each sample once, at its outermost call.
    func removedFunctions(notIn other: PooledCallTree, view: String) -> [RemovedFunction] {
        var otherNames = Set<String>()
        for node in other.tree.nodes.dropFirst() { if let name = other.name(node.key) { otherNames.insert(name) } }
        let total = tree.nodes[NodeArena.root].total
        var found: [UInt32: (total: Nanoseconds, heaviest: Int)] = [:]
        // Depth first with enter/leave events, counting the names on the current path.
        var onPath: [UInt32: Int] = [:]
        var walk: [(node: Int, leaving: Bool)] = tree.nodes[NodeArena.root].children.values.map { ($0, false) }
        while let (node, leaving) = walk.popLast() {
            guard case .frame(let row) = tree.nodes[node].key else {
                if !leaving { walk.append(contentsOf: tree.nodes[node].children.values.map { ($0, false) }) }
                continue
            }
            if leaving {
                onPath[row]! -= 1
                continue
            }
            if !otherNames.contains(frameNames[Int(row)]), onPath[row, default: 0] == 0 {
                var entry = found[row] ?? (0, node)
                entry.total.addSaturating(tree.nodes[node].total)
                if tree.nodes[node].total > tree.nodes[entry.heaviest].total { entry.heaviest = node }
                found[row] = entry
            }
            onPath[row, default: 0] += 1
            walk.append((node, true))
            walk.append(contentsOf: tree.nodes[node].children.values.map { ($0, false) })
        }
        return found.map { row, entry in
            let step = CallPathStep.frame(row)
            let (name, binary, isAppCode) = names.callPathText(step, view: view)
            let parent = tree.nodes[entry.heaviest].parent
            let caller = parent == NodeArena.root ? "" : names.callPathText(tree.nodes[parent].key, view: view).name
            return RemovedFunction(
                name: name, binary: binary, kind: FlameLayout.kind(of: step, binary: binary, isAppCode: isAppCode),
                total: entry.total, share: total > 0 ? Double(entry.total) / Double(total) : 0, caller: caller
            )
        }
        .sorted { ($0.total, $1.name) > ($1.total, $0.name) }
    }
}
