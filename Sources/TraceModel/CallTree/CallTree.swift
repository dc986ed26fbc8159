// CPU call tree of the Time Profiler samples in a range: top-down (threads, then callers before
// callees) or bottom-up (the functions that were on CPU, then who called them).
//
// Stack depth is input-controlled (a file may hold a stack thousands of frames deep), so every
// walk here is iterative, and the tree is folded below `CallTreeQuery.maxDepth` frames.

public struct CallTreeQuery: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable {
        case topDown = "top-down"
        case bottomUp = "bottom-up"
    }

    /// Frames deeper than this below a root are charged to the frame at this depth (whose
    /// `foldedDepth` says so). The tree's JSON nests two levels per frame, and common parsers
    /// stop at 512 levels (Foundation) or about 1000 (Python): 200 frames keeps every client
    /// able to read it, while SwiftUI stacks rarely pass 150. A hostile stack cannot go deeper.
    public static let maxDepth = 200
    /// A tree holds at most this many nodes, the heaviest: the others are folded into their
    /// parents' self weight like light nodes, and counted (`CallTree.omittedNodes`).
    public static let maxNodes = 20_000

    public var range: TimeRange?
    public var mode: Mode
    /// Thread row, or nil for all threads.
    public var thread: Int?
    /// Nodes lighter than this share of the total are folded into their parent's self weight.
    public var minPercent: Double

    /// Only the samples inside the updates of this view (overlapping `range`), each stack cut to
    /// start at the view's body frame: where the time of all its bodies went.
    public var view: ViewSelector?
    /// Leaves out frames of system libraries, charging their time to the app frame that called them.
    public var hideSystemLibraries: Bool
    /// Frames with these names are left out, their time charged to their callers.
    public var chargedToCaller: Set<String>
    /// A frame already on its stack's path (recursion, direct or not) is left out, its time
    /// charged to the outermost call (Instruments' "Flatten recursion").
    public var flattenRecursion: Bool
    /// Only the samples under this node (a path from a root, in the tree's direction), which
    /// becomes the tree's one root and its total ("Focus on subtree"). Empty: the whole tree.
    public var focus: [CallPathStep]

    public init(
        range: TimeRange? = nil, mode: Mode = .topDown, thread: Int? = nil, minPercent: Double = 0.1,
        view: ViewSelector? = nil, hideSystemLibraries: Bool = false, chargedToCaller: Set<String> = [],
        flattenRecursion: Bool = false, focus: [CallPathStep] = []
    ) {
        self.range = range
        self.mode = mode
        self.thread = thread
        self.minPercent = minPercent
        self.view = view
        self.hideSystemLibraries = hideSystemLibraries
        self.chargedToCaller = chargedToCaller
        self.flattenRecursion = flattenRecursion
        self.focus = focus
    }

    public struct ViewSelector: Sendable, Equatable {
        public var name: String
        /// nil: the view's updates in every module.
        public var module: String?
        /// Which of its updates: all, or the long ones of a lane...
        public var filter: SummaryFilter
        /// ...and only those longer than this (a long-body finding's threshold), when given.
        public var longerThan: Nanoseconds?
        public init(name: String, module: String?, filter: SummaryFilter = .all, longerThan: Nanoseconds? = nil) {
            self.name = name
            self.module = module
            self.filter = filter
            self.longerThan = longerThan
        }
    }
}

public struct CallTreeNode: Sendable, Equatable {
    public var name: String
    public var binary: String
    public var isAppCode: Bool
    /// Weight (ns of CPU, or cycles: `CallTree.unit`) of samples in this node and below.
    public var total: Nanoseconds
    /// Weight of samples that stopped here, plus folded light children (JSON key "self").
    public var selfWeight: Nanoseconds
    /// Samples in this node and below (JSON key "samples").
    public var sampleCount = 0
    /// Its step in a focus path (`CallTreeQuery.focus`, JSON key "step").
    public var step: CallPathStep = .systemLibraries
    /// True when frames below `CallTreeQuery.maxDepth` were charged to this node.
    public var foldedDepth = false
    public var children: [CallTreeNode]
    /// The frame's file and line, when the recording has them (JSON key "source", omitted otherwise).
    public var source: CodeLocation? = nil
}

public struct CallTree: Sendable, Equatable {
    public var start: Nanoseconds
    public var end: Nanoseconds
    public var mode: String
    public var totalWeight: Nanoseconds
    public var sampleCount: Int
    /// What `total` and `self` count: CPU time ("ns") or cycles.
    public var unit: CPUWeightUnit = .nanoseconds
    /// With a view selector: how many of the view's updates the samples came from, else nil.
    public var updateCount: Int? = nil
    /// With a focus: whether its node has samples here (false: the tree is empty for that reason).
    public var focusFound = true
    /// Asked with a search text: its matches the transforms hide.
    public var hiddenMatches: HiddenMatches? = nil
    /// Nodes heavier than `minPercent` left out past `CallTreeQuery.maxNodes`; 0 normally.
    public var omittedNodes = 0
    public var roots: [CallTreeNode]
}

extension Trace {
    public func callTree(_ query: CallTreeQuery) -> CallTree {
        let range = query.range ?? TimeRange(start: metadata.start, end: metadata.end)
        let view = query.view?.name ?? ""
        let (trees, weights) = cpuTrees(query)
        var (total, sampleCount, focusFound) = (weights.total, weights.sampleCount, true)
        var roots: [CallTreeNode] = []
        // Nodes heavier than the threshold left out past `CallTreeQuery.maxNodes`.
        var omitted = 0
        switch trees {
        case .topDown(var tree, let threads):
            if !query.focus.isEmpty {
                if let (_, node) = focusNode(query.focus, threads: threads, in: &tree) {
                    (total, sampleCount) = (tree.total(node), tree.samples(node))
                    let threshold = Double(total) * query.minPercent / 100
                    let ranked = heaviest(tree, roots: [node], threshold: threshold, limit: CallTreeQuery.maxNodes)
                    omitted = ranked.passing - ranked.nodes.count
                    roots = freeze(tree, roots: [node], keeping: ranked.nodes, view: view).nodes
                } else {
                    (total, sampleCount, focusFound) = (0, 0, false)
                }
            } else {
                // The cap keeps the heaviest nodes of all threads: each thread's heaviest first,
                // then the lightest of them dropped until they fit, whichever thread they are of.
                let threshold = Double(total) * query.minPercent / 100
                var ranked: [(nodes: [Int], weights: [Int64], passing: Int)] = []
                for slice in threads {
                    tree.load(slice, of: self)
                    let found = heaviest(tree, roots: tree.children(of: 0), threshold: threshold, limit: CallTreeQuery.maxNodes)
                    ranked.append((found.nodes, found.nodes.map { tree.total($0) }, found.passing))
                }
                var allowed = ranked.map(\.nodes.count)
                if allowed.reduce(0, +) > CallTreeQuery.maxNodes {
                    var all: [(weight: Int64, slice: Int)] = []
                    for (slice, list) in ranked.enumerated() { for weight in list.weights { all.append((weight, slice)) } }
                    all.sort { ($0.weight, $1.slice) > ($1.weight, $0.slice) }
                    allowed = [Int](repeating: 0, count: ranked.count)
                    for entry in all.prefix(CallTreeQuery.maxNodes) { allowed[entry.slice] += 1 }
                }
                omitted = ranked.reduce(0) { $0 + $1.passing } - allowed.reduce(0, +)
                // The last thread loaded first: its weights are still in the tree.
                for (index, slice) in threads.enumerated().reversed() {
                    if index != threads.count - 1 { tree.load(slice, of: self) }
                    let frozen = freeze(tree, roots: tree.children(of: 0), keeping: Array(ranked[index].nodes.prefix(allowed[index])), view: view)
                    if let thread = slice.thread {
                        // Threads are never folded away: the roots of a top-down tree add up to the total.
                        roots.append(CallTreeNode(
                            name: callPathText(.thread(Int(thread)), view: view).name, binary: "", isAppCode: false,
                            total: tree.total(0), selfWeight: frozen.folded, sampleCount: tree.samples(0), step: .thread(Int(thread)),
                            children: frozen.nodes
                        ))
                    } else {
                        roots = frozen.nodes
                    }
                }
            }
        case .bottomUp(let trie):
            let leaves = leafWeights(weights, trie: trie)
            if !query.focus.isEmpty {
                (total, sampleCount) = bottomUpWeight(of: query.focus, trie: trie, leaves: leaves)
                focusFound = sampleCount > 0
            }
            let threshold = Double(total) * query.minPercent / 100
            let tree = bottomUpArena(trie: trie, leaves: leaves, threshold: Int64(threshold.rounded(.up)), focus: query.focus, view: view)
            let rootNodes = query.focus.isEmpty ? tree.children(of: NodeArena.root) : tree.node(at: query.focus).map { [$0] } ?? []
            let ranked = heaviest(tree, roots: rootNodes, threshold: threshold, limit: CallTreeQuery.maxNodes)
            omitted = ranked.passing - ranked.nodes.count
            roots = freeze(tree, roots: rootNodes, keeping: ranked.nodes, view: view).nodes
        }
        if case .topDown(_, let threads) = trees, threads.first?.thread != nil, query.focus.isEmpty {
            // Main thread first, then threads in table order.
            let order = { (node: CallTreeNode) -> (Int, Int) in
                guard case .thread(let index) = node.step else { return (2, 0) }
                return (self.isMainThread(index) ? 0 : 1, index)
            }
            roots.sort { order($0) < order($1) }
        } else {
            roots.sort { ($0.total, $1.name) > ($1.total, $0.name) }
        }
        return CallTree(
            start: range.start, end: range.end, mode: query.mode.rawValue, totalWeight: total, sampleCount: sampleCount,
            unit: metadata.cpuWeightUnit, updateCount: weights.updateCount, focusFound: focusFound,
            omittedNodes: omitted, roots: roots
        )
    }

    /// The trees a query's samples make: top-down, one trie with each thread's samples (or all of
    /// them under `nil`: a tree of a view, or not split by thread); bottom-up, the trie.
    enum CPUTrees {
        case topDown(TopDownTree, threads: [CPUSampleSet.Slice])
        case bottomUp(CPUPathTrie)
    }

    /// The query's samples (`cpuSamples`) and its trees. `byThread` nil: thread roots when the
    /// tree is top-down and not of a view.
    func cpuTrees(_ query: CallTreeQuery, byThread: Bool? = nil) -> (trees: CPUTrees, samples: CPUSampleSet) {
        let split = byThread ?? (query.mode == .topDown && query.view == nil)
        let perThread = split && query.mode == .topDown
        let key = CPUWeightsKey(
            transforms: CPUPathTrie.Transforms(query), range: query.range, thread: query.thread, view: query.view?.name,
            module: query.view?.module, filter: query.view?.filter.rawValue, longerThan: query.view?.longerThan, perThread: perThread
        )
        let entry = indexes.cpuPaths.weights(key, of: self) { cpuSamples(query, perThread: perThread) }
        let trie = cpuPathTrie(query)
        guard query.mode == .topDown else { return (.bottomUp(trie), entry.samples) }
        return (.topDown(TopDownTree(trie: trie, weights: entry), threads: entry.samples.slices), entry.samples)
    }

    /// The node a top-down focus path ends at, with `tree` loaded with its thread's samples; nil
    /// when the trees have none there.
    func focusNode(_ focus: [CallPathStep], threads: [CPUSampleSet.Slice], in tree: inout TopDownTree) -> (thread: Int32?, node: Int)? {
        var steps = focus[...]
        let slice: CPUSampleSet.Slice?
        if threads.first?.thread != nil {
            guard case .thread(let index) = steps.first, let found = threads.first(where: { $0.thread == Int32(truncatingIfNeeded: index) }) else { return nil }
            slice = found
            steps = steps.dropFirst()
        } else {
            slice = threads.first
        }
        guard let slice else { return nil }
        tree.load(slice, of: self)
        var node = Int(CPUPathTrie.root)
        for step in steps {
            guard let next = tree.trie.child(of: node, step), tree.total(next) > 0 else { return nil }
            node = next
        }
        return tree.total(node) > 0 ? (slice.thread, node) : nil
    }

    /// The samples' weights by the trie node their stacks end at (bottom-up trees start there), by node.
    func leafWeights(_ samples: CPUSampleSet, trie: CPUPathTrie) -> [LeafWeight] {
        var weight = [Nanoseconds](repeating: 0, count: trie.count)
        var count = [Int32](repeating: 0, count: trie.count)
        let stackOfKey = indexes.cpuPaths.sampleKeys.stack
        for slice in samples.slices {
            for key in slice.keys where samples.keyCount[key] > 0 {
                let node = Int(trie.nodeOfStack[Int(stackOfKey[key])])
                weight[node].addSaturating(samples.keyWeight[key])
                count[node] &+= samples.keyCount[key]
            }
        }
        return (0..<trie.count).compactMap { count[$0] > 0 ? LeafWeight(node: Int32($0), weight: weight[$0], count: Int(count[$0])) : nil }
    }

    /// The weight and samples of the leaves whose bottom-up path starts with `path`.
    func bottomUpWeight(of path: [CallPathStep], trie: CPUPathTrie, leaves: [LeafWeight]) -> (Nanoseconds, Int) {
        var (weight, count): (Nanoseconds, Int) = (0, 0)
        for leaf in leaves {
            var node = Int(leaf.node)
            var matched = true
            for step in path {
                guard node > 0, trie.step(node) == step else { matched = false; break }
                node = Int(trie.parent[node])
            }
            if matched {
                weight.addSaturating(leaf.weight)
                count += leaf.count
            }
        }
        return (weight, count)
    }

    /// The samples a query keeps (its range, thread, and with a view the inside of its updates on
    /// their threads), by thread when `perThread` (in thread order), else all under `nil`.
    func cpuSamples(_ query: CallTreeQuery, perThread: Bool) -> CPUSampleSet {
        let samples = cpu.samples
        let range = query.range ?? TimeRange(start: metadata.start, end: metadata.end)
        // Sample index spans to read, and the thread each span is on (nil: any).
        var spans: [(first: Int, last: Int, thread: Int32?)] = []
        var updateCount: Int?
        if let view = query.view {
            let intervals = updateIntervals(of: view, in: query.range)
            updateCount = intervals.updates
            for interval in intervals.merged {
                // Only the part inside the inspection range counts, as everywhere else.
                let (start, end) = (max(interval.start, range.start), query.range == nil ? interval.end : min(interval.end, range.end))
                let first = indexOfFirst(atLeast: start, in: samples.time)
                spans.append((first, indexOfFirst(atLeast: end, in: samples.time), interval.thread == noRow ? nil : interval.thread))
            }
        } else {
            let first = indexOfFirst(atLeast: range.start, in: samples.time)
            spans.append((first, query.range == nil ? samples.count : indexOfFirst(atLeast: range.end, in: samples.time), nil))
        }
        // One pass: each kept sample's weight added to its (thread, stack) pair's.
        let keys = indexes.cpuPaths.sampleKeys
        var keyWeight = [Nanoseconds](repeating: 0, count: keys.count)
        var keyCount = [Int32](repeating: 0, count: keys.count)
        var (total, sampleCount): (Nanoseconds, Int) = (0, 0)
        let wantedThread = query.thread.map { Int32(truncatingIfNeeded: $0) }
        for span in spans {
            let filtered = wantedThread != nil || span.thread != nil
            for i in span.first..<max(span.first, span.last) {
                if QueryCancellation.requested(at: i) { break }
                if filtered {
                    let thread = samples.thread[i]
                    if let wantedThread, thread != wantedThread { continue }
                    if let wanted = span.thread, thread != wanted { continue }
                }
                let (key, weight) = (Int(keys.keyOfSample[i]), samples.weight[i])
                keyWeight[key].addSaturating(weight)
                keyCount[key] &+= 1
                total.addSaturating(weight)
                sampleCount += 1
            }
        }
        var slices: [CPUSampleSet.Slice] = []
        if perThread {
            // By thread: the pairs of each thread are consecutive.
            for (thread, range) in keys.threads {
                var (weight, count): (Nanoseconds, Int) = (0, 0)
                for key in range {
                    weight.addSaturating(keyWeight[key])
                    count += Int(keyCount[key])
                }
                if count > 0 { slices.append(.init(thread: thread, keys: range, weight: weight, sampleCount: count)) }
            }
        } else {
            slices = [.init(thread: nil, keys: 0..<keys.count, weight: total, sampleCount: sampleCount)]
        }
        return CPUSampleSet(slices: slices, keyWeight: keyWeight, keyCount: keyCount, total: total, sampleCount: sampleCount, updateCount: updateCount)
    }

    /// The spans of `view`'s updates overlapping `range`, merged per thread where they overlap
    /// (so no sample counts twice), and how many updates they came from.
    func updateIntervals(of view: CallTreeQuery.ViewSelector, in range: TimeRange?) -> (merged: [(start: Nanoseconds, end: Nanoseconds, thread: Int32)], updates: Int) {
        var merged: [(start: Nanoseconds, end: Nanoseconds, thread: Int32)] = []
        var lastOfThread: [Int32: Int] = [:]
        var count = 0
        // Strings are interned: compare references per row, not text.
        guard let viewRef = ref(of: view.name) else { return (merged, 0) }
        let moduleRef = view.module.map { module in ref(of: module) ?? StringRef.max }
        // Rows are sorted by start, so an update overlaps only the latest span of its thread.
        for row in indexes.lists.viewLists(self).updates(ofView: viewRef, byDuration: false).lazy.map(Int.init)
        where (moduleRef.map { updates.module[row] == $0 } ?? true)
            && (range?.overlaps(start: updates.start[row], end: updates.end(row)) ?? true)
            && (view.filter == .all || view.filter.includes(kind: updates.kind[row], duration: updates.duration[row]))
            && (view.longerThan.map { updates.duration[row] > $0 } ?? true) {
            count += 1
            let thread = updates.thread[row]
            if let last = lastOfThread[thread], merged[last].end >= updates.start[row] {
                merged[last].end = max(merged[last].end, updates.end(row))
            } else {
                lastOfThread[thread] = merged.count
                merged.append((updates.start[row], updates.end(row), thread))
            }
        }
        return (merged, count)
    }

    func isMainThread(_ index: Int) -> Bool { index >= 0 && index < threads.count && threads[index].isMain }

    /// The nodes from `roots` at least `threshold` heavy (reached through such nodes), at most
    /// `limit` of them: the heaviest, heaviest first, and how many passed. A walk by weight from
    /// the roots with a heap: a child never outweighs its parent, so the nodes come out heaviest
    /// first and form a tree, and the walk stops at the limit (then only counts the rest).
    func heaviest(_ source: some CallTreeSource, roots: [Int], threshold: Double, limit: Int) -> (nodes: [Int], passing: Int) {
        func passes(_ index: Int) -> Bool { Double(source.total(index)) >= threshold && source.total(index) > 0 }
        var heap = NodeHeap { (source.total($0), $1) > (source.total($1), $0) }
        for root in roots where passes(root) { heap.push(root) }
        var nodes: [Int] = []
        while nodes.count < limit, let index = heap.pop() {
            nodes.append(index)
            for child in source.children(of: index) where passes(child) { heap.push(child) }
        }
        // Past the limit: count what is left, without ordering it.
        var passing = nodes.count
        var walk = heap.items
        while let index = walk.popLast() {
            passing += 1
            walk.append(contentsOf: source.children(of: index).filter(passes))
        }
        return (nodes, passing)
    }

    /// `source`'s nodes from `roots` as nested values, children heaviest first, only the nodes
    /// `kept` (`heaviest`): the others are folded into their parent's self weight (roots: `folded`).
    /// Post-order with an explicit stack.
    func freeze(_ source: some CallTreeSource, roots rootNodes: [Int], keeping keptNodes: [Int], view: String) -> (nodes: [CallTreeNode], folded: Int64) {
        let keptSet = Set(keptNodes)
        func kept(_ index: Int) -> Bool { keptSet.contains(index) }
        var frozen: [Int: CallTreeNode] = [:]
        var folded: Int64 = 0
        for root in rootNodes where !kept(root) { folded.addSaturating(source.total(root)) }
        let roots = rootNodes.filter(kept)
        var pending: [(index: Int, childrenDone: Bool)] = roots.map { ($0, false) }
        while let (index, childrenDone) = pending.popLast() {
            let childNodes = source.children(of: index)
            if !childrenDone {
                pending.append((index, true))
                pending.append(contentsOf: childNodes.filter(kept).map { ($0, false) })
                continue
            }
            var selfWeight = source.selfWeight(index)
            var children: [CallTreeNode] = []
            for child in childNodes {
                if let value = frozen.removeValue(forKey: child) {
                    children.append(value)
                } else {
                    selfWeight.addSaturating(source.total(child))
                }
            }
            children.sort { ($0.total, $1.name) > ($1.total, $0.name) }
            let step = source.step(index)
            let (name, binary, isAppCode) = callPathText(step, view: view)
            frozen[index] = CallTreeNode(
                name: name, binary: binary, isAppCode: isAppCode, total: source.total(index), selfWeight: selfWeight,
                sampleCount: source.samples(index), step: step, foldedDepth: source.foldedDepth(index), children: children,
                source: sourceLocation(of: step)
            )
        }
        return (roots.compactMap { frozen[$0] }, folded)
    }

    /// What a node of `step` is called, its binary, and whether it is the app's code.
    func callPathText(_ step: CallPathStep, view: String) -> (name: String, binary: String, isAppCode: Bool) {
        switch step {
        case .thread(let thread):
            return (thread >= 0 && thread < threads.count ? threads[thread].name : "Unknown thread", "", false)
        case .systemLibraries: return ("System libraries", "", false)
        case .outsideBody: return ("Outside \(view).body", "", false)
        case .frame(let frame):
            return (string(cpu.frames.name[Int(frame)]), string(cpu.frames.binary[Int(frame)]), cpu.frames.isAppCode[Int(frame)])
        }
    }
}

enum BodyFrameName {
    /// "View.body.getter", "Module.View.body.getter", "View<A>.body.getter": the view's name as a
    /// whole word, optional generic arguments, then ".body". Compared as UTF-8 bytes, in time
    /// linear in the symbol's and the name's lengths (a symbol can be a 400 KB `A<A<A<…`).
    static func matches(_ symbol: String, view: String) -> Bool { matches(symbol, view: BytePattern(view)) }

    static func matches(_ symbol: String, view: BytePattern) -> Bool {
        let text = Array(symbol.utf8), nameLength = view.bytes.count, body = Array(".body".utf8)
        guard nameLength > 0, text.count >= nameLength + body.count else { return false }
        func isWordByte(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte >= 0x80
        }
        func hasPrefix(_ prefix: [UInt8], at index: Int) -> Bool {
            index + prefix.count <= text.count && text[index..<index + prefix.count].elementsEqual(prefix)
        }
        // The `>` closing each `<` (-1: never closed), found in one pass, so skipping generic
        // arguments after an occurrence of the name is one step.
        var closing = [Int32](repeating: -1, count: text.count)
        var open: [Int32] = []
        for index in text.indices {
            if text[index] == UInt8(ascii: "<") {
                open.append(Int32(index))
            } else if text[index] == UInt8(ascii: ">"), let opened = open.popLast() {
                closing[Int(opened)] = Int32(index)
            }
        }
        func isBody(nameAt start: Int) -> Bool {
            if start > 0 && isWordByte(text[start - 1]) { return false }
            var rest = start + nameLength
            if rest < text.count && text[rest] == UInt8(ascii: "<") {
                guard closing[rest] >= 0 else { return false }
                rest = Int(closing[rest]) + 1
            }
            guard hasPrefix(body, at: rest) else { return false }
            let after = rest + body.count
            return after == text.count || [UInt8(ascii: "."), UInt8(ascii: " "), UInt8(ascii: "(")].contains(text[after])
        }
        return view.contains(in: text, where: isBody(nameAt:))
    }
}

/// The tree under construction: nodes in one array, children by index, so building and
/// releasing it never recurses however deep the stacks are. A child's index is above its parent's.
struct NodeArena {
    struct Node {
        var key: CallPathStep
        var parent: Int
        var total: Nanoseconds = 0
        var selfWeight: Nanoseconds = 0
        /// Samples in the node and below, and those that stopped here.
        var samples = 0
        var selfSamples = 0
        var foldedDepth = false
        var children: [CallPathStep: Int] = [:]
    }

    static let root = 0
    var nodes = [Node(key: .thread(-1), parent: -1)]

    mutating func child(of parent: Int, _ key: CallPathStep) -> Int {
        if let index = nodes[parent].children[key] { return index }
        nodes.append(Node(key: key, parent: parent))
        nodes[parent].children[key] = nodes.count - 1
        return nodes.count - 1
    }

    /// The node at the end of `path` from the root, nil when the tree has none there.
    func node(at path: [CallPathStep]) -> Int? {
        var node = NodeArena.root
        for step in path {
            guard let next = nodes[node].children[step] else { return nil }
            node = next
        }
        return node
    }

    /// Steps from the root to `node`.
    func depth(of node: Int) -> Int {
        var (steps, current) = (0, node)
        while current != NodeArena.root {
            current = nodes[current].parent
            steps += 1
        }
        return steps
    }

    /// The steps from the root to `node`.
    func path(to node: Int) -> [CallPathStep] {
        var steps: [CallPathStep] = []
        var current = node
        while current != NodeArena.root {
            steps.append(nodes[current].key)
            current = nodes[current].parent
        }
        return steps.reversed()
    }
}

// MARK: JSON

extension CallTree {
    /// The API's JSON: nested `children` as before, written with an explicit stack (JSONEncoder
    /// recurses per level and refuses deep nesting).
    public func json() -> [UInt8] {
        var out = JSONWriter()
        out.raw("{\"start\":"); out.int(start)
        out.raw(",\"end\":"); out.int(end)
        out.raw(",\"mode\":"); out.string(mode)
        out.raw(",\"totalWeight\":"); out.int(totalWeight)
        out.raw(",\"sampleCount\":"); out.int(Int64(sampleCount))
        out.raw(",\"unit\":"); out.string(unit.rawValue)
        if let updateCount { out.raw(",\"updateCount\":"); out.int(Int64(updateCount)) }
        if !focusFound { out.raw(",\"focusFound\":false") }
        if let hiddenMatches { out.hiddenMatches(hiddenMatches) }
        out.raw(",\"maxDepth\":"); out.int(Int64(CallTreeQuery.maxDepth))
        out.raw(",\"omittedNodes\":"); out.int(Int64(omittedNodes))
        out.raw(",\"roots\":")
        CallTreeNode.write(roots, to: &out)
        out.raw("}")
        return out.bytes
    }
}

extension CallTreeNode {
    static func write(_ roots: [CallTreeNode], to out: inout JSONWriter) {
        // Each frame of work: a list of siblings and the index of the next one to write.
        var stack: [(siblings: [CallTreeNode], next: Int)] = [(roots, 0)]
        out.raw("[")
        while !stack.isEmpty {
            let (siblings, next) = stack[stack.count - 1]
            guard next < siblings.count else {
                stack.removeLast()
                out.raw("]")
                if !stack.isEmpty { out.raw("}") }
                continue
            }
            stack[stack.count - 1].next = next + 1
            let node = siblings[next]
            if next > 0 { out.raw(",") }
            out.raw("{\"name\":"); out.string(node.name)
            out.raw(",\"binary\":"); out.string(node.binary)
            out.raw(",\"isAppCode\":"); out.raw(node.isAppCode ? "true" : "false")
            out.raw(",\"total\":"); out.int(node.total)
            out.raw(",\"self\":"); out.int(node.selfWeight)
            out.raw(",\"samples\":"); out.int(Int64(node.sampleCount))
            out.raw(",\"step\":"); out.string(node.step.wireName)
            if node.foldedDepth { out.raw(",\"foldedDepth\":true") }
            if let location = node.source { out.raw(",\"source\":"); out.sourceLocation(location) }
            out.raw(",\"children\":[")
            stack.append((node.children, 0))
        }
    }
}

/// A binary heap of node indices, the first by `before` on top.
struct NodeHeap {
    private(set) var items: [Int] = []
    let before: (Int, Int) -> Bool

    init(before: @escaping (Int, Int) -> Bool) { self.before = before }

    mutating func push(_ item: Int) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard before(items[child], items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Int? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var parent = 0
        while true {
            let (left, right) = (2 * parent + 1, 2 * parent + 2)
            var first = parent
            if left < items.count, before(items[left], items[first]) { first = left }
            if right < items.count, before(items[right], items[first]) { first = right }
            guard first != parent else { return top }
            items.swapAt(parent, first)
            parent = first
        }
    }
}
