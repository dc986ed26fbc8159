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
        /// Which of its updates: all, or the long ones of a lane (a long-body finding's).
        public var filter: SummaryFilter
        public init(name: String, module: String?, filter: SummaryFilter = .all) {
            self.name = name
            self.module = module
            self.filter = filter
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
    public var roots: [CallTreeNode]
}

extension Trace {
    public func callTree(_ query: CallTreeQuery) -> CallTree {
        let built = callTreeArena(query)
        let tree = built.arena
        let range = query.range ?? TimeRange(start: metadata.start, end: metadata.end)
        var (total, sampleCount) = (built.total, built.sampleCount)
        var rootNodes = tree.nodes[NodeArena.root].children.values.map { $0 }
        if !query.focus.isEmpty {
            let focused = tree.node(at: query.focus)
            rootNodes = focused.map { [$0] } ?? []
            total = focused.map { tree.nodes[$0].total } ?? 0
            sampleCount = focused.map { tree.nodes[$0].samples } ?? 0
        }
        let threshold = Double(total) * query.minPercent / 100
        var roots = freeze(tree, roots: rootNodes, threshold: threshold, view: query.view?.name ?? "")
        if built.byThread && query.focus.isEmpty {
            // Main thread first, then threads in table order.
            roots.sort { a, b in (isMainThread(a.thread) ? 0 : 1, a.thread) < (isMainThread(b.thread) ? 0 : 1, b.thread) }
        } else {
            roots.sort { ($0.node.total, $1.node.name) > ($1.node.total, $0.node.name) }
        }
        return CallTree(
            start: range.start, end: range.end, mode: query.mode.rawValue, totalWeight: total, sampleCount: sampleCount,
            unit: metadata.cpuWeightUnit, updateCount: built.updateCount, focusFound: query.focus.isEmpty || !rootNodes.isEmpty,
            roots: roots.map(\.node)
        )
    }

    /// The samples a query keeps, as (thread, stack) keys with their weight and count, in a
    /// deterministic order (thread, then stack), and the totals. `perThread` false puts every
    /// sample under `noRow` (a tree not split by thread).
    func cpuSampleWeights(_ query: CallTreeQuery, perThread: Bool) -> (keys: [CPUSampleKey], total: Nanoseconds, sampleCount: Int, updateCount: Int?) {
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
        // Samples share stacks: weights add up per (thread, stack) in arrays indexed by stack (a
        // stack seen on a second thread goes to a dictionary), so a million samples cost no hashing.
        let unseen = Int32.min
        var owner = [Int32](repeating: unseen, count: cpu.stacks.count)
        var weight = [Nanoseconds](repeating: 0, count: cpu.stacks.count)
        var count = [Int32](repeating: 0, count: cpu.stacks.count)
        var others: [CPUSampleKey.ID: (weight: Nanoseconds, count: Int)] = [:]
        var total: Nanoseconds = 0
        var sampleCount = 0
        let wantedThread = query.thread.map { Int32(truncatingIfNeeded: $0) }
        for span in spans {
            for i in span.first..<max(span.first, span.last) {
                let thread = samples.thread[i]
                if let wantedThread, thread != wantedThread { continue }
                if let wanted = span.thread, thread != wanted { continue }
                let key = perThread ? thread : noRow
                let stack = Int(samples.stack[i])
                let sampleWeight = samples.weight[i]
                total.addSaturating(sampleWeight)
                sampleCount += 1
                if owner[stack] == unseen { owner[stack] = key }
                if owner[stack] == key {
                    weight[stack].addSaturating(sampleWeight)
                    count[stack] &+= 1
                } else {
                    others[CPUSampleKey.ID(thread: key, stack: UInt32(stack)), default: (0, 0)].weight.addSaturating(sampleWeight)
                    others[CPUSampleKey.ID(thread: key, stack: UInt32(stack))]!.count += 1
                }
            }
        }
        var keys: [CPUSampleKey] = []
        for stack in 0..<owner.count where owner[stack] != unseen {
            keys.append(CPUSampleKey(id: .init(thread: owner[stack], stack: UInt32(stack)), weight: weight[stack], count: Int(count[stack])))
        }
        for (id, value) in others { keys.append(CPUSampleKey(id: id, weight: value.weight, count: value.count)) }
        // Deterministic order, so ties sort the same way on every run; keys of a thread are together.
        if !others.isEmpty || perThread { keys.sort { ($0.id.thread, $0.id.stack) < ($1.id.thread, $1.id.stack) } }
        return (keys, total, sampleCount, updateCount)
    }

    /// The query's tree as an arena: nodes for the paths of its samples (through the query's
    /// transforms), with their weights. Top-down trees of every thread have thread roots.
    /// `byThread` nil: thread roots when the tree is top-down and not of a view.
    func callTreeArena(_ query: CallTreeQuery, byThread: Bool? = nil) -> (arena: NodeArena, total: Nanoseconds, sampleCount: Int, updateCount: Int?, byThread: Bool) {
        // A view's tree is rooted at its body frame, not at threads.
        let byThread = byThread ?? (query.mode == .topDown && query.view == nil)
        let weights = cpuSampleWeights(query, perThread: byThread)
        var tree = NodeArena()
        if query.mode == .topDown {
            var paths = StackPaths(query: query, trace: self)
            var lastThread: Int32?
            for key in weights.keys {
                if key.id.thread != lastThread {
                    lastThread = key.id.thread
                    paths.startTree(at: byThread ? tree.child(of: NodeArena.root, .thread(Int(key.id.thread))) : NodeArena.root)
                }
                let node = paths.node(of: key.id.stack, in: &tree)
                tree.nodes[node].selfWeight.addSaturating(key.weight)
                tree.nodes[node].selfSamples += key.count
            }
            // Totals from the self weights, children before parents (a child's index is larger).
            for index in stride(from: tree.nodes.count - 1, through: 0, by: -1) {
                tree.nodes[index].total.addSaturating(tree.nodes[index].selfWeight)
                tree.nodes[index].samples += tree.nodes[index].selfSamples
                if index > 0 {
                    let parent = tree.nodes[index].parent
                    tree.nodes[parent].total.addSaturating(tree.nodes[index].total)
                    tree.nodes[parent].samples += tree.nodes[index].samples
                }
            }
        } else {
            // Bottom-up: each stack's path walked leaf first, from the top-down paths (unfolded:
            // the leaves of a stack deeper than the limit are the roots here).
            var paths = StackPaths(query: query, trace: self, depthLimit: Int.max)
            var pathTree = NodeArena()
            paths.startTree(at: NodeArena.root)
            for key in weights.keys {
                var pathNode = paths.node(of: key.id.stack, in: &pathTree)
                var node = NodeArena.root
                var depth = 0
                while pathNode != NodeArena.root {
                    if depth == CallTreeQuery.maxDepth {
                        tree.nodes[node].foldedDepth = true
                        break
                    }
                    node = tree.child(of: node, pathTree.nodes[pathNode].key)
                    tree.nodes[node].total.addSaturating(key.weight)
                    tree.nodes[node].samples += key.count
                    pathNode = pathTree.nodes[pathNode].parent
                    depth += 1
                }
            }
            tree.nodes[NodeArena.root].total = weights.total
            tree.nodes[NodeArena.root].samples = weights.sampleCount
            // Bottom-up roots are the functions on CPU: their self weight is their whole weight.
            for child in tree.nodes[NodeArena.root].children.values { tree.nodes[child].selfWeight = tree.nodes[child].total }
        }
        return (tree, weights.total, weights.sampleCount, weights.updateCount, byThread)
    }

    /// The spans of `view`'s updates overlapping `range`, merged per thread where they overlap
    /// (so no sample counts twice), and how many updates they came from.
    private func updateIntervals(of view: CallTreeQuery.ViewSelector, in range: TimeRange?) -> (merged: [(start: Nanoseconds, end: Nanoseconds, thread: Int32)], updates: Int) {
        var merged: [(start: Nanoseconds, end: Nanoseconds, thread: Int32)] = []
        var lastOfThread: [Int32: Int] = [:]
        var count = 0
        // Strings are interned: compare references per row, not text.
        guard let viewRef = strings.firstIndex(of: view.name).map(StringRef.init) else { return (merged, 0) }
        let moduleRef = view.module.map { module in strings.firstIndex(of: module).map(StringRef.init) ?? StringRef.max }
        // Rows are sorted by start, so an update overlaps only the latest span of its thread.
        for row in 0..<updates.count
        where updates.viewName[row] == viewRef && (moduleRef.map { updates.module[row] == $0 } ?? true)
            && (range?.overlaps(start: updates.start[row], end: updates.end(row)) ?? true)
            && (view.filter == .all || view.filter.includes(kind: updates.kind[row], duration: updates.duration[row])) {
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

    private func isMainThread(_ index: Int) -> Bool { index >= 0 && index < threads.count && threads[index].isMain }

    /// The arena's nodes as nested values, children heaviest first, nodes under `threshold`
    /// folded into their parent's self weight. Post-order with an explicit stack.
    private func freeze(_ tree: NodeArena, roots rootNodes: [Int], threshold: Double, view: String) -> [(thread: Int, node: CallTreeNode)] {
        func kept(_ index: Int) -> Bool { Double(tree.nodes[index].total) >= threshold && tree.nodes[index].total > 0 }
        // Threads are never folded away: the roots of a top-down tree add up to the total.
        func keptRoot(_ index: Int) -> Bool {
            if case .thread = tree.nodes[index].key { return tree.nodes[index].total > 0 }
            return kept(index)
        }
        var frozen = [CallTreeNode?](repeating: nil, count: tree.nodes.count)
        var pending: [(index: Int, childrenDone: Bool)] = rootNodes.filter(keptRoot).map { ($0, false) }
        let roots = pending.map(\.index)
        while let (index, childrenDone) = pending.popLast() {
            let node = tree.nodes[index]
            if !childrenDone {
                pending.append((index, true))
                pending.append(contentsOf: node.children.values.filter(kept).map { ($0, false) })
                continue
            }
            var selfWeight = node.selfWeight
            var children: [CallTreeNode] = []
            children.reserveCapacity(node.children.count)
            for child in node.children.values {
                if let value = frozen[child] {
                    children.append(value)
                    frozen[child] = nil
                } else {
                    selfWeight.addSaturating(tree.nodes[child].total)
                }
            }
            children.sort { ($0.total, $1.name) > ($1.total, $0.name) }
            let (name, binary, isAppCode) = callPathText(node.key, view: view)
            frozen[index] = CallTreeNode(
                name: name, binary: binary, isAppCode: isAppCode, total: node.total, selfWeight: selfWeight,
                sampleCount: node.samples, step: node.key, foldedDepth: node.foldedDepth, children: children
            )
        }
        return roots.compactMap { index in
            guard let node = frozen[index] else { return nil }
            if case .thread(let thread) = tree.nodes[index].key { return (thread, node) }
            return (-1, node)
        }
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
    /// whole word, optional generic arguments, then ".body". Compared as UTF-8 bytes.
    static func matches(_ symbol: String, view: String) -> Bool {
        let text = Array(symbol.utf8), name = Array(view.utf8), body = Array(".body".utf8)
        guard !name.isEmpty, text.count >= name.count + body.count else { return false }
        func isWordByte(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte >= 0x80
        }
        func hasPrefix(_ prefix: [UInt8], at index: Int) -> Bool {
            index + prefix.count <= text.count && text[index..<index + prefix.count].elementsEqual(prefix)
        }
        for start in 0...(text.count - name.count) where hasPrefix(name, at: start) {
            if start > 0 && isWordByte(text[start - 1]) { continue }
            var rest = start + name.count
            if rest < text.count && text[rest] == UInt8(ascii: "<") {
                // Skip balanced generic arguments (a loop over the symbol: bounded by its length).
                var depth = 0
                var index = rest
                while index < text.count {
                    if text[index] == UInt8(ascii: "<") { depth += 1 } else if text[index] == UInt8(ascii: ">") { depth -= 1 }
                    index += 1
                    if depth == 0 { break }
                }
                guard depth == 0 else { continue }
                rest = index
            }
            guard hasPrefix(body, at: rest) else { continue }
            let after = rest + body.count
            if after == text.count || [UInt8(ascii: "."), UInt8(ascii: " "), UInt8(ascii: "(")].contains(text[after]) { return true }
        }
        return false
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
            out.raw(",\"children\":[")
            stack.append((node.children, 0))
        }
    }
}
