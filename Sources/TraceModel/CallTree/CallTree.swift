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
        var filter = FrameFilter(query: query, trace: self)
        // Deterministic insertion order, so ties sort the same way on every run.
        for (key, weight) in weights.sorted(by: { ($0.key.thread, $0.key.stack) < ($1.key.thread, $1.key.stack) }) {
            var frames = filter.keys(of: Int(key.stack))
            if query.mode == .bottomUp { frames.reverse() }
            var node = NodeArena.root
            if byThread { node = tree.child(of: node, .thread(Int(key.thread))) }
            tree.nodes[node].total.addSaturating(weight)
            for (depth, frame) in frames.enumerated() {
                if depth == CallTreeQuery.maxDepth {
                    tree.nodes[node].foldedDepth = true
                    break
                }
                node = tree.child(of: node, frame)
                tree.nodes[node].total.addSaturating(weight)
            }
            // Bottom-up roots are the functions on CPU: their self weight is their whole weight.
            if query.mode == .topDown { tree.nodes[node].selfWeight.addSaturating(weight) }
        }
        if query.mode == .bottomUp {
            for child in tree.nodes[NodeArena.root].children.values { tree.nodes[child].selfWeight = tree.nodes[child].total }
        }

        let threshold = Double(total) * query.minPercent / 100
        var roots = freeze(tree, threshold: threshold)
        if byThread {
            // Main thread first, then threads in table order.
            roots.sort { a, b in (isMainThread(a.thread) ? 0 : 1, a.thread) < (isMainThread(b.thread) ? 0 : 1, b.thread) }
        } else {
            roots.sort { ($0.node.total, $1.node.name) > ($1.node.total, $0.node.name) }
        }
        return CallTree(
            start: range.start, end: range.end, mode: query.mode.rawValue, totalWeight: total, sampleCount: sampleCount,
            unit: metadata.cpuWeightUnit, updateCount: updateCount, roots: roots.map(\.node)
        )
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
            && (range?.overlaps(start: updates.start[row], end: updates.end(row)) ?? true) {
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
    private func freeze(_ tree: NodeArena, threshold: Double) -> [(thread: Int, node: CallTreeNode)] {
        func kept(_ index: Int) -> Bool { Double(tree.nodes[index].total) >= threshold && tree.nodes[index].total > 0 }
        // Threads are never folded away: the roots of a top-down tree add up to the total.
        func keptRoot(_ index: Int) -> Bool {
            if case .thread = tree.nodes[index].key { return tree.nodes[index].total > 0 }
            return kept(index)
        }
        var frozen = [CallTreeNode?](repeating: nil, count: tree.nodes.count)
        var pending: [(index: Int, childrenDone: Bool)] = tree.nodes[NodeArena.root].children.values.filter(keptRoot).map { ($0, false) }
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
            let (name, binary, isAppCode): (String, String, Bool)
            switch node.key {
            case .thread(let thread):
                name = thread >= 0 && thread < threads.count ? threads[thread].name : "Unknown thread"
                (binary, isAppCode) = ("", false)
            case .placeholder(let text):
                (name, binary, isAppCode) = (text, "", false)
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
        return roots.compactMap { index in
            guard let node = frozen[index] else { return nil }
            if case .thread(let thread) = tree.nodes[index].key { return (thread, node) }
            return (-1, node)
        }
    }
}

/// The frames of a stack as the query wants them (root first): cut at the view's body frame,
/// without system libraries or the frames charged to their callers. Remembers each frame's verdict.
private struct FrameFilter {
    let query: CallTreeQuery
    let trace: Trace
    private var kept: [UInt32: Bool] = [:]
    private var isBody: [UInt32: Bool] = [:]

    init(query: CallTreeQuery, trace: Trace) {
        self.query = query
        self.trace = trace
    }

    mutating func keys(of stack: Int) -> [NodeArena.Key] {
        var frames = trace.cpu.stacks.frames(of: stack)[...]
        var keys: [NodeArena.Key] = []
        if let view = query.view {
            if let body = frames.firstIndex(where: { isBodyFrame($0, of: view.name) }) {
                frames = frames[body...]
            } else {
                // Work inside the update but outside the body (SwiftUI's own, layout...): kept, apart.
                keys.append(.placeholder("Outside \(view.name).body"))
            }
        }
        for frame in frames where isKept(frame) { keys.append(.frame(frame)) }
        // Nothing left (a stack of system frames only): its time still shows, under one name.
        if keys.isEmpty { keys.append(.placeholder("System libraries")) }
        return keys
    }

    private mutating func isKept(_ frame: UInt32) -> Bool {
        if let known = kept[frame] { return known }
        let keep = (!query.hideSystemLibraries || trace.cpu.frames.isAppCode[Int(frame)])
            && (query.chargedToCaller.isEmpty || !query.chargedToCaller.contains(trace.string(trace.cpu.frames.name[Int(frame)])))
        kept[frame] = keep
        return keep
    }

    private mutating func isBodyFrame(_ frame: UInt32, of view: String) -> Bool {
        if let known = isBody[frame] { return known }
        let answer = BodyFrameName.matches(trace.string(trace.cpu.frames.name[Int(frame)]), view: view)
        isBody[frame] = answer
        return answer
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
/// releasing it never recurses however deep the stacks are.
private struct NodeArena {
    enum Key: Hashable {
        case thread(Int)
        case frame(UInt32)
        /// A row that is not a frame: work outside the view's body, system-only stacks.
        case placeholder(String)
    }

    struct Node {
        var key: Key
        var total: Nanoseconds = 0
        var selfWeight: Nanoseconds = 0
        var foldedDepth = false
        var children: [Key: Int] = [:]
    }

    static let root = 0
    var nodes = [Node(key: .thread(-1))]

    mutating func child(of parent: Int, _ key: Key) -> Int {
        if let index = nodes[parent].children[key] { return index }
        nodes.append(Node(key: key))
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
