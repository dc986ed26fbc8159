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

    public init(
        range: TimeRange? = nil, mode: Mode = .topDown, thread: Int? = nil, minPercent: Double = 0.1,
        view: ViewSelector? = nil, hideSystemLibraries: Bool = false, chargedToCaller: Set<String> = []
    ) {
        self.range = range
        self.mode = mode
        self.thread = thread
        self.minPercent = minPercent
        self.view = view
        self.hideSystemLibraries = hideSystemLibraries
        self.chargedToCaller = chargedToCaller
    }

    public struct ViewSelector: Sendable, Equatable {
        public var name: String
        /// nil: the view's updates in every module.
        public var module: String?
        public init(name: String, module: String?) {
            self.name = name
            self.module = module
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
    /// Nodes heavier than `minPercent` left out past `CallTreeQuery.maxNodes`; 0 normally.
    public var omittedNodes = 0
    public var roots: [CallTreeNode]
}

extension Trace {
    public func callTree(_ query: CallTreeQuery) -> CallTree {
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
        // A view's tree is rooted at its body frame, not at threads.
        let byThread = query.mode == .topDown && query.view == nil

        // Samples share stacks: add weights per (thread, stack) first, walk each stack once.
        struct Key: Hashable { var thread: Int32, stack: UInt32 }
        var weights: [Key: Nanoseconds] = [:]
        var total: Nanoseconds = 0
        var sampleCount = 0
        for span in spans {
            for i in span.first..<max(span.first, span.last) {
                if QueryCancellation.requested(at: i) { break }
                let thread = samples.thread[i]
                if let wanted = query.thread, Int(thread) != wanted { continue }
                if let wanted = span.thread, thread != wanted { continue }
                weights[Key(thread: byThread ? thread : noRow, stack: samples.stack[i]), default: 0].addSaturating(samples.weight[i])
                total.addSaturating(samples.weight[i])
                sampleCount += 1
            }
        }

        var tree = NodeArena()
        var paths = StackPaths(query: query, trace: self)
        // Deterministic insertion order, so ties sort the same way on every run; keys of one
        // thread are together, so a thread's stack rows map to its nodes until the next thread.
        var lastThread: Int32?
        for (key, weight) in weights.sorted(by: { ($0.key.thread, $0.key.stack) < ($1.key.thread, $1.key.stack) }) {
            let root = byThread ? tree.child(of: NodeArena.root, .thread(Int(key.thread))) : NodeArena.root
            if key.thread != lastThread {
                paths.forgetNodes()
                lastThread = key.thread
            }
            if query.mode == .topDown {
                let (node, folded) = paths.topDownNode(of: key.stack, under: root, in: &tree)
                tree.nodes[node].selfWeight.addSaturating(weight)
                if folded { tree.nodes[node].foldedDepth = true }
            } else {
                paths.addBottomUp(key.stack, weight: weight, in: &tree)
            }
        }
        if query.mode == .topDown {
            // Totals from the self weights, children before parents (a child's index is larger).
            for index in stride(from: tree.nodes.count - 1, to: 0, by: -1) {
                tree.nodes[index].total.addSaturating(tree.nodes[index].selfWeight)
                tree.nodes[tree.nodes[index].parent].total.addSaturating(tree.nodes[index].total)
            }
        } else {
            tree.nodes[NodeArena.root].total = total
            // Bottom-up roots are the functions on CPU: their self weight is their whole weight.
            for child in tree.nodes[NodeArena.root].children.values { tree.nodes[child].selfWeight = tree.nodes[child].total }
        }

        let threshold = Double(total) * query.minPercent / 100
        var (roots, omittedNodes) = freeze(tree, threshold: threshold, view: query.view?.name ?? "")
        if byThread {
            // Main thread first, then threads in table order.
            roots.sort { a, b in (isMainThread(a.thread) ? 0 : 1, a.thread) < (isMainThread(b.thread) ? 0 : 1, b.thread) }
        } else {
            roots.sort { ($0.node.total, $1.node.name) > ($1.node.total, $0.node.name) }
        }
        return CallTree(
            start: range.start, end: range.end, mode: query.mode.rawValue, totalWeight: total, sampleCount: sampleCount,
            unit: metadata.cpuWeightUnit, updateCount: updateCount, omittedNodes: omittedNodes, roots: roots.map(\.node)
        )
    }

    /// The spans of `view`'s updates overlapping `range`, merged per thread where they overlap
    /// (so no sample counts twice), and how many updates they came from.
    private func updateIntervals(of view: CallTreeQuery.ViewSelector, in range: TimeRange?) -> (merged: [(start: Nanoseconds, end: Nanoseconds, thread: Int32)], updates: Int) {
        var merged: [(start: Nanoseconds, end: Nanoseconds, thread: Int32)] = []
        var lastOfThread: [Int32: Int] = [:]
        var count = 0
        // Strings are interned: compare references per row, not text.
        guard let viewRef = ref(of: view.name) else { return (merged, 0) }
        let moduleRef = view.module.map { module in ref(of: module) ?? StringRef.max }
        // Rows are sorted by start, so an update overlaps only the latest span of its thread.
        for row in indexes.lists.viewLists(self).updates(ofView: viewRef, byDuration: false).lazy.map(Int.init)
        where (moduleRef.map { updates.module[row] == $0 } ?? true) && (range?.overlaps(start: updates.start[row], end: updates.end(row)) ?? true) {
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
    /// folded into their parent's self weight, and at most `CallTreeQuery.maxNodes` of them: the
    /// heaviest (a child never outweighs its parent, so they form a tree), the others folded
    /// too and counted. Post-order with an explicit stack.
    private func freeze(_ tree: NodeArena, threshold: Double, view: String) -> (roots: [(thread: Int, node: CallTreeNode)], omitted: Int) {
        // Threads are never folded by the threshold: the roots of a top-down tree add up to the total.
        func passes(_ index: Int) -> Bool {
            if tree.nodes[index].parent == NodeArena.root, case .thread = tree.nodes[index].key { return tree.nodes[index].total > 0 }
            return Double(tree.nodes[index].total) >= threshold && tree.nodes[index].total > 0
        }
        // Parents come before their children in the arena.
        var kept = [Bool](repeating: false, count: tree.nodes.count)
        var candidates: [Int] = []
        for index in 1..<tree.nodes.count {
            let parent = tree.nodes[index].parent
            guard parent == NodeArena.root || kept[parent], passes(index) else { continue }
            kept[index] = true
            candidates.append(index)
        }
        var omitted = 0
        if candidates.count > CallTreeQuery.maxNodes {
            candidates.sort { (tree.nodes[$0].total, $1) > (tree.nodes[$1].total, $0) }
            for index in candidates[CallTreeQuery.maxNodes...] { kept[index] = false }
            omitted = candidates.count - CallTreeQuery.maxNodes
        }

        var frozen = [CallTreeNode?](repeating: nil, count: tree.nodes.count)
        let roots = tree.nodes[NodeArena.root].children.values.filter { kept[$0] }
        var pending: [(index: Int, childrenDone: Bool)] = roots.map { ($0, false) }
        while let (index, childrenDone) = pending.popLast() {
            let node = tree.nodes[index]
            if !childrenDone {
                pending.append((index, true))
                pending.append(contentsOf: node.children.values.filter { kept[$0] }.map { ($0, false) })
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
            let (name, binary, isAppCode): (String, String, Bool)
            switch node.key {
            case .thread(let thread):
                name = thread >= 0 && thread < threads.count ? threads[thread].name : "Unknown thread"
                (binary, isAppCode) = ("", false)
            case .systemLibraries:
                (name, binary, isAppCode) = ("System libraries", "", false)
            case .outsideBody:
                (name, binary, isAppCode) = ("Outside \(view).body", "", false)
            case .frame(let frame):
                name = string(cpu.frames.name[Int(frame)])
                binary = string(cpu.frames.binary[Int(frame)])
                isAppCode = cpu.frames.isAppCode[Int(frame)]
            }
            frozen[index] = CallTreeNode(
                name: name, binary: binary, isAppCode: isAppCode, total: node.total, selfWeight: selfWeight,
                foldedDepth: node.foldedDepth, children: children
            )
        }
        let frozenRoots = roots.compactMap { index -> (thread: Int, node: CallTreeNode)? in
            guard let node = frozen[index] else { return nil }
            if case .thread(let thread) = tree.nodes[index].key { return (thread, node) }
            return (-1, node)
        }
        return (frozenRoots, omitted)
    }
}

/// Where each stack of the profile goes in the tree the query asks for, worked out once per
/// stack row (the stack table is a prefix tree: a row's answer follows from its parent's), so
/// building a tree is linear in the stacks and samples, however deep the stacks.
///
/// A stack's path is its frames root first: cut at the view's body frame (the outermost one), or
/// after an "Outside V.body" row when the stack has none; without system libraries or the
/// frames charged to their callers; "System libraries" alone when nothing is left. Paths longer
/// than `CallTreeQuery.maxDepth` stop there (`foldedDepth`).
private struct StackPaths {
    let query: CallTreeQuery
    let trace: Trace
    private let stacks: StackTable
    /// Per stack row, filled on first use (0 = not yet): 1 + the number of frames the path of
    /// the stack holds (the outside placeholder counts as one)...
    private var depth: [Int32]
    /// ...the row whose frame ends the path (the row itself when its frame is kept, else the
    /// nearest ancestor kept on the path; -1 for none)...
    private var last: [Int32]
    /// ...for a kept row, the path's row before it (-1 for none) and the row the path is cut at
    /// when deeper than `CallTreeQuery.maxDepth` (the row itself when not)...
    private var previous: [Int32]
    private var limitRow: [Int32]
    /// ...and whether the path holds the view's body (view queries).
    private var underBody: [Bool]
    /// The arena node of a row's path under the current thread's root, -1 when not made yet;
    /// `touched` lists the rows set, to clear them for the next thread.
    private var node: [Int32]
    private var touched: [Int32] = []
    private var keptFrame: [UInt32: Bool] = [:]
    private var bodyName: [StringRef: Bool] = [:]
    private let viewName: BytePattern?

    init(query: CallTreeQuery, trace: Trace) {
        self.query = query
        self.trace = trace
        stacks = trace.cpu.stacks
        depth = [Int32](repeating: 0, count: stacks.count)
        last = [Int32](repeating: -1, count: stacks.count)
        previous = [Int32](repeating: -1, count: stacks.count)
        limitRow = [Int32](repeating: -1, count: stacks.count)
        underBody = [Bool](repeating: false, count: stacks.count)
        node = [Int32](repeating: -1, count: stacks.count)
        viewName = query.view.map { BytePattern($0.name) }
    }

    /// The node of top-down tree that `stack`'s samples charge their self weight to (made when
    /// missing, with the path to it), and whether frames below it were folded.
    mutating func topDownNode(of stack: UInt32, under root: Int, in tree: inout NodeArena) -> (node: Int, folded: Bool) {
        prepare(Int(stack))
        let frames = Int(depth[Int(stack)]) - 1
        if frames == 0 { return (tree.child(of: root, .systemLibraries), false) }
        // A path deeper than the limit is charged to its row at the limit.
        let end = last[Int(stack)]
        let target = end == -1 ? -1 : limitRow[Int(end)]
        return (node(ofRow: target, under: root, in: &tree, outside: Int(stack)), frames > CallTreeQuery.maxDepth)
    }

    /// Adds `weight` along `stack`'s path leaf first (the functions on CPU are the roots).
    mutating func addBottomUp(_ stack: UInt32, weight: Nanoseconds, in tree: inout NodeArena) {
        prepare(Int(stack))
        let frames = Int(depth[Int(stack)]) - 1
        var current = NodeArena.root
        func step(_ key: NodeArena.Key) {
            current = tree.child(of: current, key)
            tree.nodes[current].total.addSaturating(weight)
        }
        if frames == 0 { return step(.systemLibraries) }
        var row = last[Int(stack)]
        var steps = 0
        while row != -1, steps < CallTreeQuery.maxDepth {
            step(.frame(stacks.frame[Int(row)]))
            row = previous[Int(row)]
            steps += 1
        }
        if outsidePlaceholder(Int(stack)) == 1, steps < CallTreeQuery.maxDepth {
            step(.outsideBody)
            steps += 1
        }
        if frames > steps { tree.nodes[current].foldedDepth = true }
    }

    /// Arena nodes belong to one thread's root: call when the thread changes.
    mutating func forgetNodes() {
        for row in touched { node[Int(row)] = -1 }
        touched.removeAll(keepingCapacity: true)
    }


    /// 1 when `stack`'s path starts with the "Outside V.body" row.
    private func outsidePlaceholder(_ stack: Int) -> Int { query.view != nil && !underBody[stack] ? 1 : 0 }

    /// The node for the path ending at kept row `row` (-1: the path's start), made with its
    /// missing ancestors; `outside` is the stack the path belongs to (for its first row).
    private mutating func node(ofRow row: Int32, under root: Int, in tree: inout NodeArena, outside stack: Int) -> Int {
        var missing: [Int32] = []
        var current = row
        while current != -1, node[Int(current)] == -1 {
            missing.append(current)
            current = previous[Int(current)]
        }
        var parent: Int
        if current != -1 {
            parent = Int(node[Int(current)])
        } else {
            parent = outsidePlaceholder(stack) == 1 ? tree.child(of: root, .outsideBody) : root
        }
        for row in missing.reversed() {
            parent = tree.child(of: parent, .frame(stacks.frame[Int(row)]))
            node[Int(row)] = Int32(parent)
            touched.append(row)
        }
        return parent
    }

    /// Fills the tables for `stack` and the ancestors not done yet, root first (no recursion:
    /// the walk up stops at the first row already done).
    private mutating func prepare(_ stack: Int) {
        guard depth[stack] == 0 else { return }
        var pending: [Int] = []
        var current = Int32(stack)
        while current != noRow, depth[Int(current)] == 0 {
            pending.append(Int(current))
            current = stacks.parent[Int(current)]
        }
        for row in pending.reversed() {
            let parent = Int(stacks.parent[row])
            let frame = stacks.frame[row]
            let isBody = viewName.map { isBodyFrame(frame, of: $0) } ?? false
            let parentUnderBody = parent == Int(noRow) ? false : underBody[parent]
            underBody[row] = parentUnderBody || isBody
            let opensBody = isBody && !parentUnderBody
            // The path of the parent, unless this row is the outermost body frame: its path starts here.
            let (inheritedLast, inheritedDepth): (Int32, Int32) = parent == Int(noRow) || opensBody
                ? (-1, query.view != nil && !underBody[row] ? 2 : 1)
                : (last[parent], depth[parent])
            if isKept(frame) {
                last[row] = Int32(row)
                previous[row] = inheritedLast
                depth[row] = inheritedDepth + 1
                let frames = Int(depth[row]) - 1
                limitRow[row] = frames <= CallTreeQuery.maxDepth || inheritedLast == -1 ? Int32(row)
                    : frames == CallTreeQuery.maxDepth + 1 ? inheritedLast : limitRow[Int(inheritedLast)]
            } else {
                last[row] = inheritedLast
                depth[row] = inheritedDepth
            }
        }
    }

    private mutating func isKept(_ frame: UInt32) -> Bool {
        if let known = keptFrame[frame] { return known }
        let keep = (!query.hideSystemLibraries || trace.cpu.frames.isAppCode[Int(frame)])
            && (query.chargedToCaller.isEmpty || !query.chargedToCaller.contains(trace.string(trace.cpu.frames.name[Int(frame)])))
        keptFrame[frame] = keep
        return keep
    }

    /// Decided once per name: frames of many binaries can share one (long) name.
    private mutating func isBodyFrame(_ frame: UInt32, of view: BytePattern) -> Bool {
        let name = trace.cpu.frames.name[Int(frame)]
        if let known = bodyName[name] { return known }
        let answer = BodyFrameName.matches(trace.string(name), view: view)
        bodyName[name] = answer
        return answer
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
/// releasing it never recurses however deep the stacks are.
private struct NodeArena {
    enum Key: Hashable {
        case thread(Int)
        case frame(UInt32)
        /// Rows that are not frames: system-only stacks, work outside the view's body.
        case systemLibraries
        case outsideBody
    }

    struct Node {
        var key: Key
        var parent: Int
        var total: Nanoseconds = 0
        var selfWeight: Nanoseconds = 0
        var foldedDepth = false
        var children: [Key: Int] = [:]
    }

    static let root = 0
    var nodes = [Node(key: .thread(-1), parent: -1)]

    mutating func child(of parent: Int, _ key: Key) -> Int {
        if let index = nodes[parent].children[key] { return index }
        nodes.append(Node(key: key, parent: parent))
        nodes[parent].children[key] = nodes.count - 1
        return nodes.count - 1
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
            if node.foldedDepth { out.raw(",\"foldedDepth\":true") }
            out.raw(",\"children\":[")
            stack.append((node.children, 0))
        }
    }
}
