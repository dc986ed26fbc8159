// A call tree with its weights, as the tree's JSON (`freeze`), the flame graph's layout and the
// differential graph read it: top-down, the path trie with one thread's weights summed up it
// (`TopDownTree`, linear in the trie); bottom-up, an arena built down to the weight that can show
// (`Trace.bottomUpArena`), since inverting a profile can hold a node per frame of every stack.

/// Nodes by index, each with its step, weights and children (with weight).
protocol CallTreeSource {
    func children(of node: Int) -> [Int]
    func total(_ node: Int) -> Int64
    /// Weight of the samples that stopped here, and of the frames below the depth limit.
    func selfWeight(_ node: Int) -> Int64
    func samples(_ node: Int) -> Int
    func step(_ node: Int) -> CallPathStep
    /// Frames deeper than `CallTreeQuery.maxDepth` were charged to this node.
    func foldedDepth(_ node: Int) -> Bool
    /// Called before `node`'s children are read (a tree may load their weights then).
    mutating func willExpand(_ node: Int)
    /// `node`'s children in an order of their own, or nil: heaviest first (`sortedChildren`).
    func childOrder(of node: Int) -> [Int]?
}

extension CallTreeSource {
    mutating func willExpand(_ node: Int) {}
    func childOrder(of node: Int) -> [Int]? { nil }
}

extension Trace {
    /// `source`'s children of `node`, heaviest first, ties by name then step (the same order on every run).
    func sortedChildren(of node: Int, in source: some CallTreeSource, view: String) -> [Int] {
        sorted(source.children(of: node), in: source, view: view)
    }

    /// `nodes` of `source`, heaviest first, ties by name then step.
    func sorted(_ nodes: [Int], in source: some CallTreeSource, view: String) -> [Int] {
        nodes.sorted { precedes($0, $1, in: source, view: view) }
    }

    /// Whether sibling `a` comes before `b` (`sorted`'s order).
    func precedes(_ a: Int, _ b: Int, in source: some CallTreeSource, view: String) -> Bool {
        let (wa, wb) = (source.total(a), source.total(b))
        if wa != wb { return wa > wb }
        let (na, nb) = (callPathText(source.step(a), view: view).name, callPathText(source.step(b), view: view).name)
        return na != nb ? na < nb : source.step(a).wireName < source.step(b).wireName
    }
}

/// The top-down tree of some samples on a path trie: their weights added to the nodes their
/// stacks end at, then summed up to the root in one backward pass (a child's index is above its
/// parent's). Nodes more than `CallTreeQuery.maxDepth` steps deep are charged to their ancestor
/// at that depth. Load it again (`load`) for another thread's samples; with `weights` (the
/// trace's cache of this sample set) a slice summed once is not summed again.
struct TopDownTree: CallTreeSource {
    let trie: CPUPathTrie
    let cached: CPUWeightsEntry
    private(set) var totals: [Int64]
    private var sampleCounts: [Int32]

    /// What a slice's samples weigh at each trie node, with the nodes below it.
    struct Weights: Sendable {
        var totals: [Int64]
        var samples: [Int32]
        var bytes: Int { totals.count * Self.bytesPerNode }
        static let bytesPerNode = 12
    }

    init(trie: CPUPathTrie, weights cached: CPUWeightsEntry) {
        self.trie = trie
        self.cached = cached
        // Empty until a slice is loaded: every node weighs nothing.
        totals = []
        sampleCounts = []
    }

    /// The tree of `slice`'s samples (of the entry's sample set).
    mutating func load(_ slice: CPUSampleSet.Slice, of trace: Trace) {
        if let known = cached.weights(of: slice.thread) {
            (totals, sampleCounts) = (known.totals, known.samples)
            return
        }
        // Fresh arrays: the ones held may be the cache's.
        var totals = [Int64](repeating: 0, count: trie.count)
        var counts = [Int32](repeating: 0, count: trie.count)
        let (stackOfKey, set) = (trace.indexes.cpuPaths.sampleKeys.stack, cached.samples)
        for key in slice.keys where set.keyCount[key] > 0 {
            let node = Int(trie.nodeOfStack[Int(stackOfKey[key])])
            totals[node].addSaturating(set.keyWeight[key])
            counts[node] &+= set.keyCount[key]
        }
        for node in stride(from: totals.count - 1, through: 1, by: -1) {
            let parent = Int(trie.parent[node])
            totals[parent].addSaturating(totals[node])
            counts[parent] &+= counts[node]
        }
        (self.totals, sampleCounts) = (totals, counts)
        cached.store(Weights(totals: totals, samples: counts), of: slice.thread)
    }

    private func atLimit(_ node: Int) -> Bool { trie.depth[node] >= CallTreeQuery.maxDepth }

    func children(of node: Int) -> [Int] {
        guard !atLimit(node), !totals.isEmpty else { return [] }
        return trie.children(of: node).compactMap { totals[Int($0)] > 0 ? Int($0) : nil }
    }

    func total(_ node: Int) -> Int64 { node < totals.count ? totals[node] : 0 }
    /// The total less the children's (saturated totals aside, the samples that stopped here).
    func selfWeight(_ node: Int) -> Int64 {
        guard !atLimit(node) else { return total(node) }
        guard !totals.isEmpty else { return 0 }
        var below: Int64 = 0
        for child in trie.children(of: node) { below.addSaturating(totals[Int(child)]) }
        return max(0, totals[node] - below)
    }
    func samples(_ node: Int) -> Int { node < sampleCounts.count ? Int(sampleCounts[node]) : 0 }
    func step(_ node: Int) -> CallPathStep { trie.step(node) }
    func foldedDepth(_ node: Int) -> Bool {
        guard atLimit(node), !totals.isEmpty else { return false }
        return trie.children(of: node).contains { totals[Int($0)] > 0 }
    }
}

extension NodeArena: CallTreeSource {
    func children(of node: Int) -> [Int] { Array(nodes[node].children.values) }
    func total(_ node: Int) -> Int64 { nodes[node].total }
    func selfWeight(_ node: Int) -> Int64 { nodes[node].selfWeight }
    func samples(_ node: Int) -> Int { nodes[node].samples }
    func step(_ node: Int) -> CallPathStep { nodes[node].key }
    func foldedDepth(_ node: Int) -> Bool { nodes[node].foldedDepth }
}

extension Trace {
    /// The bottom-up tree of `leaves` on `trie`: roots are the functions on CPU (each leaf's
    /// node), children their callers (up the trie). A node lighter than `threshold`, or outside
    /// `window` (weight from the left edge of the graph the roots start), is made but not opened,
    /// so the work is what can show, not a node per frame of every stack; `focus` (a path from
    /// the roots) makes only the nodes on it until its end, then `zoom` (a path from there) opens
    /// only its nodes but makes their siblings (whose weights place it). Built level by level: each
    /// open node's keys are split by their next caller.
    func bottomUpArena(
        trie: CPUPathTrie, leaves keys: [LeafWeight], threshold: Int64, window: WeightWindow? = nil, focus: [CallPathStep] = [],
        zoom: [CallPathStep] = [], view: String
    ) -> NodeArena {
        var tree = NodeArena()
        // Work: an arena node, where it starts, its keys (indices into `keys`) and their next trie nodes.
        var pending: [(node: Int, x: Int64, keys: [Int32], cursors: [Int32])] = [
            (NodeArena.root, 0, (0..<keys.count).map(Int32.init), keys.map(\.node)),
        ]
        tree.nodes[NodeArena.root].total = keys.reduce(0) { $0 &+ $1.weight }
        tree.nodes[NodeArena.root].samples = keys.reduce(0) { $0 + $1.count }
        while let (parent, parentX, groupKeys, cursors) = pending.popLast() {
            let depth = tree.depth(of: parent)
            if depth >= CallTreeQuery.maxDepth {
                tree.nodes[parent].foldedDepth = cursors.contains { $0 > 0 }
                continue
            }
            // Split the keys by their next step (a key whose path is used up stops here).
            var groups: [Int32: (keys: [Int32], cursors: [Int32])] = [:]
            for (key, cursor) in zip(groupKeys, cursors) where cursor > 0 {
                let code = trie.code[Int(cursor)]
                groups[code, default: ([], [])].keys.append(key)
                groups[code]!.cursors.append(trie.parent[Int(cursor)])
            }
            var made: [(node: Int, keys: [Int32], cursors: [Int32])] = []
            for (code, group) in groups {
                let step = CPUPathTrie.step(code: code)
                if depth < focus.count, focus[depth] != step { continue }
                let node = tree.child(of: parent, step)
                for key in group.keys {
                    tree.nodes[node].total.addSaturating(keys[Int(key)].weight)
                    tree.nodes[node].samples += keys[Int(key)].count
                }
                made.append((node, group.keys, group.cursors))
            }
            // Bottom-up roots are the functions on CPU: their self weight is their whole weight.
            if parent == NodeArena.root { for (node, _, _) in made { tree.nodes[node].selfWeight = tree.nodes[node].total } }
            // Open the heavy ones inside the window, at the x the layout will give them (from the
            // focused node, the graph's left edge); on the zoom path, only the zoomed one.
            var x = parentX
            let madeIndex = Dictionary(uniqueKeysWithValues: made.indices.map { (made[$0].node, $0) })
            let zoomStep = depth >= focus.count && depth - focus.count < zoom.count ? zoom[depth - focus.count] : nil
            for node in sortedChildren(of: parent, in: tree, view: view) {
                let weight = tree.nodes[node].total
                defer { x += weight }
                let onFocus = depth < focus.count
                if let zoomStep, tree.nodes[node].key != zoomStep { continue }
                guard onFocus || zoomStep != nil || weight >= threshold, window.map({ x < $0.to && x + weight > $0.from }) ?? true else { continue }
                guard let index = madeIndex[node] else { continue }
                pending.append((node, onFocus ? 0 : x, made[index].keys, made[index].cursors))
            }
        }
        return tree
    }
}
