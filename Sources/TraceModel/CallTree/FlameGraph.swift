// The flame graph of a call tree query: each node a frame as wide as its weight, callees above
// their callers, siblings heaviest first from the left. The answer is at most what a screen of
// `width` pixels can draw: frames outside the window are left out, and siblings narrower than a
// pixel are merged into one block per run, so its size is bounded whatever the trace.

public struct FlameGraphQuery: Sendable, Equatable {
    /// The samples and transforms, as the call tree's (its `minPercent` is not used).
    public var tree: CallTreeQuery
    /// The frame zoomed into (a path from the graph's roots, below any focus): the window
    /// becomes its extent, and its ancestors are the breadcrumb. Empty: not zoomed.
    public var zoom: [CallPathStep]
    /// The part of the graph drawn, in weight from the graph's left edge; nil: the zoomed frame,
    /// or the whole graph.
    public var window: WeightWindow?
    /// Pixels the window is drawn on: frames narrower than one are merged.
    public var width: Int

    /// Whatever the width, an answer holds at most this many frames: past it, the narrowest
    /// frame drawn doubles until it fits.
    public var maxFrames = FlameGraphQuery.defaultMaxFrames
    public static let defaultMaxFrames = 40_000

    public init(tree: CallTreeQuery, zoom: [CallPathStep] = [], window: WeightWindow? = nil, width: Int = 1200) {
        self.tree = tree
        self.zoom = zoom
        self.window = window
        self.width = width
    }
}

/// A span of a flame graph's horizontal axis, in weight from its left edge.
public struct WeightWindow: Sendable, Equatable {
    public var from: Int64
    public var to: Int64
    public init(from: Int64, to: Int64) {
        self.from = from
        self.to = to
    }
}

/// What a frame of the graph is: its colour in the browser and the SVG.
public enum FlameFrameKind: String, Sendable, CaseIterable {
    /// The app's own code.
    case app
    /// SwiftUI, SwiftUICore and AttributeGraph.
    case swiftUI = "swiftui"
    /// Any other library.
    case system
    /// A thread root.
    case thread
    /// "System libraries" and "Outside V.body": rows that are not frames.
    case other
    /// Siblings each narrower than a pixel, drawn as one block.
    case merged

    static let swiftUIBinaries: Set<String> = ["SwiftUI", "SwiftUICore", "AttributeGraph"]
}

/// The frames of a flame graph, one column per field, in depth-first order (a parent before its
/// children).
public struct FlameFrames: Sendable, Equatable {
    /// Index of the parent frame, -1 for a root.
    public var parent: [Int] = []
    public var depth: [Int] = []
    /// Left edge, in weight from the graph's left edge.
    public var x: [Int64] = []
    public var total: [Int64] = []
    public var selfWeight: [Int64] = []
    public var samples: [Int] = []
    /// Index into `FlameGraph.names` and `.binaries`.
    public var name: [Int] = []
    public var binary: [Int] = []
    public var kind: [FlameFrameKind] = []
    /// The frame's step of a path (nil for a merged block); a frame's path is its ancestors' steps and its own.
    public var step: [CallPathStep?] = []
    /// For a merged block, how many frames it stands for; 0 otherwise.
    public var merged: [Int] = []
    /// True where frames deeper than `CallTreeQuery.maxDepth` were charged to this one.
    public var foldedDepth: [Bool] = []
    /// Index into `FlameGraph.sources`, -1 for a frame without a file and line.
    public var source: [Int] = []
    public var count: Int { parent.count }
}

public struct FlameGraph: Sendable, Equatable {
    public var start: Nanoseconds
    public var end: Nanoseconds
    public var mode: String
    public var unit: CPUWeightUnit
    /// Weight of the whole graph (of the focused subtree with a focus) and its samples.
    public var totalWeight: Nanoseconds
    public var sampleCount: Int
    public var updateCount: Int?
    public var focusFound: Bool
    /// The zoomed frame's path as frame indices (root first), empty when not zoomed; false when
    /// the zoom path has no frame here (the graph is then shown whole).
    public var zoom: [Int]
    public var zoomFound: Bool
    public var window: WeightWindow
    public var width: Int
    /// The narrowest weight drawn as a frame of its own.
    public var minWeight: Int64
    /// Frames merged into blocks, or left out as narrower than a pixel even together.
    public var mergedFrames: Int
    public var names: [String]
    public var binaries: [String]
    public var frames: FlameFrames
    /// Asked with a search text: its matches the transforms hide.
    public var hiddenMatches: HiddenMatches? = nil
    /// The frames' files and lines, each once (empty when the recording has none).
    public var sources: [CodeLocation] = []
}

extension Trace {
    public func flameGraph(_ query: FlameGraphQuery) -> FlameGraph {
        flameGraphAndNodes(query).graph
    }

    /// The flame graph and the tree node each frame is of (-1 for a merged block; trie nodes for a
    /// top-down graph). `byThread` nil: thread roots when top-down and not of a view.
    func flameGraphAndNodes(_ query: FlameGraphQuery, byThread: Bool? = nil) -> (graph: FlameGraph, nodes: [Int]) {
        let view = query.tree.view?.name ?? ""
        let (trees, weights) = cpuTrees(query.tree, byThread: byThread)
        switch trees {
        case .topDown(var tree, let threads):
            var source = ThreadedTopDown(tree: tree, slices: threads, of: self)
            var roots: [Int]
            var (total, sampleCount, focusFound) = (weights.total, weights.sampleCount, true)
            if !query.tree.focus.isEmpty {
                if let (thread, node) = focusNode(query.tree.focus, threads: threads, in: &tree) {
                    source = ThreadedTopDown(tree: tree, slices: threads, of: self, loaded: threads.firstIndex { $0.thread == thread })
                    (roots, total, sampleCount) = ([node], tree.total(node), tree.samples(node))
                } else {
                    (roots, total, sampleCount, focusFound) = ([], 0, 0, false)
                }
            } else {
                source.willExpand(ThreadedTopDown.virtualRoot)
                roots = source.childOrder(of: ThreadedTopDown.virtualRoot) ?? sortedChildren(of: ThreadedTopDown.virtualRoot, in: source, view: view)
            }
            return flameLayout(query, source: &source, roots: roots, total: total, sampleCount: sampleCount, updateCount: weights.updateCount, focusFound: focusFound)
        case .bottomUp(let trie):
            var (total, sampleCount) = (weights.total, weights.sampleCount)
            let leaves = leafWeights(weights, trie: trie)
            if !query.tree.focus.isEmpty { (total, sampleCount) = bottomUpWeight(of: query.tree.focus, trie: trie, leaves: leaves) }
            let zoomTotal = query.zoom.isEmpty ? total : bottomUpWeight(of: query.tree.focus + query.zoom, trie: trie, leaves: leaves).0
            let span = query.window.map { $0.to - $0.from } ?? zoomTotal
            let threshold = max(1, span / Int64(max(1, query.width)))
            var tree = bottomUpArena(
                trie: trie, leaves: leaves, threshold: threshold, window: query.window, focus: query.tree.focus, zoom: query.zoom, view: view
            )
            let roots = query.tree.focus.isEmpty ? sortedChildren(of: NodeArena.root, in: tree, view: view) : tree.node(at: query.tree.focus).map { [$0] } ?? []
            return flameLayout(
                query, source: &tree, roots: roots, total: total, sampleCount: sampleCount, updateCount: weights.updateCount,
                focusFound: query.tree.focus.isEmpty || !roots.isEmpty
            )
        }
    }

    /// Lays `roots` of `source` out for the query's zoom, window and width.
    func flameLayout<S: CallTreeSource>(
        _ query: FlameGraphQuery, source: inout S, roots: [Int], total: Int64, sampleCount: Int, updateCount: Int?, focusFound: Bool
    ) -> (graph: FlameGraph, nodes: [Int]) {
        let range = query.tree.range ?? TimeRange(start: metadata.start, end: metadata.end)
        let view = query.tree.view?.name ?? ""
        let zoomed = zoomExtent(query.zoom, roots: roots, in: &source, view: view)
        var window = query.window ?? zoomed.map { WeightWindow(from: $0.x, to: $0.x + $0.total) } ?? WeightWindow(from: 0, to: total)
        window.from = max(0, min(window.from, total))
        window.to = max(window.from + 1, min(window.to, max(total, 1)))
        let width = max(1, query.width)
        var minWeight = max(1, (window.to - window.from + Int64(width) - 1) / Int64(width))
        var layout = FlameLayout(trace: self, view: view, window: window)
        while true {
            layout.run(roots: roots, in: &source, minWeight: minWeight, zoomPath: zoomed?.nodes ?? [])
            if layout.frames.count <= max(1, query.maxFrames) || minWeight == Int64.max { break }
            minWeight = minWeight.multipliedReportingOverflow(by: 2).overflow ? Int64.max : minWeight * 2
        }
        let graph = FlameGraph(
            start: range.start, end: range.end, mode: query.tree.mode.rawValue, unit: metadata.cpuWeightUnit,
            totalWeight: total, sampleCount: sampleCount, updateCount: updateCount, focusFound: focusFound,
            zoom: layout.zoomFrames, zoomFound: query.zoom.isEmpty || zoomed != nil, window: window, width: width,
            minWeight: minWeight, mergedFrames: layout.mergedFrames, names: layout.names.values,
            binaries: layout.binaries.values, frames: layout.frames, sources: layout.sources.values
        )
        return (graph, layout.nodeOfFrame)
    }

    /// The nodes of `path` from the graph's roots and the last one's left edge and weight.
    private func zoomExtent<S: CallTreeSource>(_ path: [CallPathStep], roots: [Int], in source: inout S, view: String) -> (nodes: [Int], x: Int64, total: Int64)? {
        guard !path.isEmpty else { return nil }
        var x: Int64 = 0
        var siblings = roots
        // Siblings in their order, or not yet sorted: then the ones before the step are counted,
        // not sorted (a node can have a child per sample).
        var ordered = true
        var nodes: [Int] = []
        for step in path {
            guard let index = siblings.firstIndex(where: { source.step($0) == step }) else { return nil }
            let node = siblings[index]
            if ordered {
                for before in siblings[..<index] { x += source.total(before) }
            } else {
                for other in siblings where other != node && precedes(other, node, in: source, view: view) { x += source.total(other) }
            }
            nodes.append(node)
            source.willExpand(node)
            if let order = source.childOrder(of: node) { (siblings, ordered) = (order, true) } else { (siblings, ordered) = (source.children(of: node), false) }
        }
        return (nodes, x, source.total(nodes[nodes.count - 1]))
    }
}

/// A top-down tree with one root per thread above a path trie whose weights are one thread's
/// at a time: expanding a thread's root loads its samples (a graph lays threads out one after
/// the other, each whole before the next). Without threads, the trie's root is the top.
struct ThreadedTopDown: CallTreeSource {
    static let virtualRoot = -1
    var tree: TopDownTree
    let slices: [CPUSampleSet.Slice]
    let trace: Trace
    private let sliceTotals: [(weight: Int64, samples: Int)]
    private let mainThreads: Set<Int32>
    private(set) var loaded: Int?

    init(tree: TopDownTree, slices: [CPUSampleSet.Slice], of trace: Trace, loaded: Int? = nil) {
        self.tree = tree
        self.slices = slices
        self.trace = trace
        mainThreads = Set(trace.threads.indices.filter { trace.threads[$0].isMain }.map(Int32.init))
        self.loaded = loaded
        sliceTotals = slices.map { ($0.weight, $0.sampleCount) }
    }

    private var threaded: Bool { slices.first?.thread != nil }
    /// Thread `i`'s root is node -2 - i.
    private func slice(of node: Int) -> Int? { node <= -2 ? -2 - node : nil }

    mutating func willExpand(_ node: Int) {
        let wanted = slice(of: node) ?? (node == Self.virtualRoot && !threaded ? 0 : nil)
        guard let wanted, wanted < slices.count, loaded != wanted else { return }
        tree.load(slices[wanted], of: trace)
        loaded = wanted
    }

    func childOrder(of node: Int) -> [Int]? {
        guard node == Self.virtualRoot, threaded else { return nil }
        // Main thread first, then by thread index, as the call tree.
        return slices.indices.sorted { a, b in
            let (ta, tb) = (slices[a].thread!, slices[b].thread!)
            return (mainThreads.contains(ta) ? 0 : 1, ta) < (mainThreads.contains(tb) ? 0 : 1, tb)
        }.map { -2 - $0 }
    }

    func children(of node: Int) -> [Int] {
        if node == Self.virtualRoot { return threaded ? childOrder(of: node)! : tree.children(of: 0) }
        return tree.children(of: slice(of: node) != nil ? 0 : node)
    }

    func total(_ node: Int) -> Int64 { slice(of: node).map { sliceTotals[$0].weight } ?? tree.total(node) }
    func selfWeight(_ node: Int) -> Int64 { slice(of: node) != nil ? 0 : tree.selfWeight(node) }
    func samples(_ node: Int) -> Int { slice(of: node).map { sliceTotals[$0].samples } ?? tree.samples(node) }
    func step(_ node: Int) -> CallPathStep { slice(of: node).map { .thread(Int(slices[$0].thread!)) } ?? tree.step(node) }
    func foldedDepth(_ node: Int) -> Bool { slice(of: node) != nil ? false : tree.foldedDepth(node) }
}

/// Strings of an answer, each once.
struct StringTable {
    private(set) var values: [String] = []
    private var index: [String: Int] = [:]
    mutating func add(_ text: String) -> Int {
        if let known = index[text] { return known }
        values.append(text)
        index[text] = values.count - 1
        return values.count - 1
    }
}

/// Files and lines of an answer, each once: -1 for none.
struct SourceTable {
    private(set) var values: [CodeLocation] = []
    private var index: [CodeLocation: Int] = [:]
    mutating func add(_ location: CodeLocation?) -> Int {
        guard let location else { return -1 }
        if let known = index[location] { return known }
        values.append(location)
        index[location] = values.count - 1
        return values.count - 1
    }
}

/// One pass over a tree from the graph's roots: frames inside the window and at least
/// `minWeight` wide, narrower siblings merged, depth first with an explicit stack (a subtree is
/// laid out whole before its next sibling's: `willExpand` may load a thread's weights).
struct FlameLayout {
    let trace: Trace
    let view: String
    let window: WeightWindow
    var frames = FlameFrames()
    var names = StringTable()
    var binaries = StringTable()
    var mergedFrames = 0
    var zoomFrames: [Int] = []
    /// The tree node of each frame (-1 for a merged block), for the differential graph.
    var nodeOfFrame: [Int] = []
    /// Each frame row's name and binary in the tables and its kind, once looked up: a row is
    /// drawn at many paths, and its text is hashed once, not per frame.
    private var textOfFrameRow: [UInt32: FrameText] = [:]
    var sources = SourceTable()

    typealias FrameText = (name: Int, binary: Int, kind: FlameFrameKind, source: Int)

    init(trace: Trace, view: String, window: WeightWindow) {
        self.trace = trace
        self.view = view
        self.window = window
    }

    mutating func run<S: CallTreeSource>(roots: [Int], in source: inout S, minWeight: Int64, zoomPath: [Int]) {
        frames = FlameFrames()
        names = StringTable()
        binaries = StringTable()
        sources = SourceTable()
        textOfFrameRow = [:]
        (mergedFrames, zoomFrames, nodeOfFrame) = (0, [], [])
        // The zoom path's nodes, by depth, each the child of the last (a node id of one thread's
        // trie stands for another thread's node elsewhere).
        let zoomAt = zoomPath
        // Work: a node whose children are laid out (nil: the roots), its frame, depth and x.
        var pending: [(node: Int?, parent: Int, depth: Int, x: Int64)] = [(nil, -1, 0, 0)]
        while let (owner, parent, depth, startX) = pending.popLast() {
            var siblings = roots
            // Siblings narrower than a pixel, when the order is by weight: they come last, one
            // block, so they are added up, not sorted (a node can have a child per sample).
            var narrow: (total: Int64, samples: Int, count: Int) = (0, 0, 0)
            if let owner {
                source.willExpand(owner)
                if let ordered = source.childOrder(of: owner) {
                    siblings = ordered
                } else {
                    var wide: [Int] = []
                    for child in source.children(of: owner) {
                        let weight = source.total(child)
                        if weight >= minWeight { wide.append(child) }
                        else if weight > 0 { narrow = (narrow.total &+ weight, narrow.samples + source.samples(child), narrow.count + 1) }
                    }
                    siblings = trace.sorted(wide, in: source, view: view)
                }
            }
            var x = startX
            var run: (x: Int64, total: Int64, samples: Int, count: Int)?
            func flushRun() {
                guard let merged = run else { return }
                run = nil
                mergedFrames += merged.count
                guard merged.total >= minWeight, overlaps(merged.x, merged.total) else { return }
                append(parent: parent, depth: depth, x: merged.x, total: merged.total, selfWeight: 0, samples: merged.samples,
                       text: (names.add("\(merged.count) frames"), binaries.add(""), .merged, -1), step: nil, merged: merged.count, folded: false, node: -1)
            }
            var children: [(node: Int, frame: Int, x: Int64)] = []
            for node in siblings {
                let weight = source.total(node)
                defer { x += weight }
                guard weight > 0 else { continue }
                if weight < minWeight {
                    // A run of narrow siblings becomes one block (siblings come heaviest first).
                    if let current = run { run = (current.x, current.total + weight, current.samples + source.samples(node), current.count + 1) }
                    else { run = (x, weight, source.samples(node), 1) }
                    continue
                }
                flushRun()
                guard overlaps(x, weight) else { continue }
                let step = source.step(node)
                let frame = append(
                    parent: parent, depth: depth, x: x, total: weight, selfWeight: source.selfWeight(node), samples: source.samples(node),
                    text: text(of: step), step: step, merged: 0, folded: source.foldedDepth(node), node: node
                )
                if depth < zoomAt.count, zoomAt[depth] == node, zoomFrames.count == depth, zoomFrames.last.map({ $0 == parent }) ?? (parent == -1) {
                    zoomFrames.append(frame)
                }
                children.append((node, frame, x))
            }
            if narrow.count > 0 {
                if let current = run { run = (current.x, current.total &+ narrow.total, current.samples + narrow.samples, current.count + narrow.count) }
                else { run = (x, narrow.total, narrow.samples, narrow.count) }
            }
            flushRun()
            // Reversed, so the first sibling's subtree comes out first.
            for child in children.reversed() { pending.append((child.node, child.frame, depth + 1, child.x)) }
        }
    }

    private func overlaps(_ x: Int64, _ width: Int64) -> Bool { x < window.to && x + width > window.from }

    private mutating func text(of step: CallPathStep) -> FrameText {
        if case .frame(let row) = step, let known = textOfFrameRow[row] { return known }
        let (name, binary, isAppCode) = trace.callPathText(step, view: view)
        let text = (names.add(name), binaries.add(binary), Self.kind(of: step, binary: binary, isAppCode: isAppCode), sources.add(trace.sourceLocation(of: step)))
        if case .frame(let row) = step { textOfFrameRow[row] = text }
        return text
    }

    @discardableResult
    private mutating func append(
        parent: Int, depth: Int, x: Int64, total: Int64, selfWeight: Int64, samples: Int,
        text: FrameText, step: CallPathStep?, merged: Int, folded: Bool, node: Int
    ) -> Int {
        frames.parent.append(parent)
        frames.depth.append(depth)
        frames.x.append(x)
        frames.total.append(total)
        frames.selfWeight.append(selfWeight)
        frames.samples.append(samples)
        frames.name.append(text.name)
        frames.binary.append(text.binary)
        frames.kind.append(text.kind)
        frames.source.append(text.source)
        frames.step.append(step)
        frames.merged.append(merged)
        frames.foldedDepth.append(folded)
        nodeOfFrame.append(node)
        return frames.count - 1
    }

    static func kind(of step: CallPathStep, binary: String, isAppCode: Bool) -> FlameFrameKind {
        switch step {
        case .thread: .thread
        case .systemLibraries, .outsideBody: .other
        case .frame: isAppCode ? .app : FlameFrameKind.swiftUIBinaries.contains(binary) ? .swiftUI : .system
        }
    }
}

// MARK: JSON

extension FlameGraph {
    /// The API's JSON: the frames as columns (docs/api.md, "Flame graph").
    public func json() -> [UInt8] {
        var out = JSONWriter()
        // About 80 bytes a frame: grown once, not by doubling.
        out.bytes.reserveCapacity(1024 + frames.count * 96)
        writeHeader(to: &out)
        out.raw("}")
        return out.bytes
    }

    /// Everything but the closing brace, so the differential graph can add its own fields.
    func writeHeader(to out: inout JSONWriter) {
        out.raw("{\"start\":"); out.int(start)
        out.raw(",\"end\":"); out.int(end)
        out.raw(",\"mode\":"); out.string(mode)
        out.raw(",\"unit\":"); out.string(unit.rawValue)
        out.raw(",\"totalWeight\":"); out.int(totalWeight)
        out.raw(",\"sampleCount\":"); out.int(Int64(sampleCount))
        if let updateCount { out.raw(",\"updateCount\":"); out.int(Int64(updateCount)) }
        out.raw(",\"focusFound\":"); out.raw(focusFound ? "true" : "false")
        out.raw(",\"zoomFound\":"); out.raw(zoomFound ? "true" : "false")
        out.raw(",\"zoom\":"); out.ints(zoom.map(Int64.init))
        out.raw(",\"window\":["); out.int(window.from); out.raw(","); out.int(window.to); out.raw("]")
        out.raw(",\"width\":"); out.int(Int64(width))
        out.raw(",\"minWeight\":"); out.int(minWeight)
        out.raw(",\"mergedFrames\":"); out.int(Int64(mergedFrames))
        if let hiddenMatches { out.hiddenMatches(hiddenMatches) }
        out.raw(",\"maxDepth\":"); out.int(Int64(CallTreeQuery.maxDepth))
        out.raw(",\"names\":"); out.strings(names)
        out.raw(",\"binaries\":"); out.strings(binaries)
        if !sources.isEmpty { out.raw(",\"sources\":"); out.sourceLocations(sources) }
        out.raw(",\"frames\":{\"parent\":"); out.ints(frames.parent.map(Int64.init))
        out.raw(",\"depth\":"); out.ints(frames.depth.map(Int64.init))
        out.raw(",\"x\":"); out.ints(frames.x)
        out.raw(",\"total\":"); out.ints(frames.total)
        out.raw(",\"self\":"); out.ints(frames.selfWeight)
        out.raw(",\"samples\":"); out.ints(frames.samples.map(Int64.init))
        out.raw(",\"name\":"); out.ints(frames.name.map(Int64.init))
        out.raw(",\"binary\":"); out.ints(frames.binary.map(Int64.init))
        out.raw(",\"kind\":"); out.strings(frames.kind.map(\.rawValue))
        out.raw(",\"step\":[")
        for (i, step) in frames.step.enumerated() {
            if i > 0 { out.raw(",") }
            out.wireName(step)
        }
        out.raw("]")
        out.raw(",\"merged\":"); out.ints(frames.merged.map(Int64.init))
        out.raw(",\"foldedDepth\":"); out.ints(frames.foldedDepth.indices.filter { frames.foldedDepth[$0] }.map(Int64.init))
        if !sources.isEmpty { out.raw(",\"source\":"); out.ints(frames.source.map(Int64.init)) }
        out.raw("}")
    }
}

extension JSONWriter {
    mutating func hiddenMatches(_ hidden: HiddenMatches) {
        raw(",\"hiddenMatches\":{\"functions\":"); int(Int64(hidden.functions))
        raw(",\"hideSystem\":"); int(Int64(hidden.hideSystemLibraries))
        raw(",\"charged\":"); int(Int64(hidden.chargedToCaller))
        raw(",\"focus\":"); int(Int64(hidden.focus))
        raw("}")
    }

    /// A step's wire name ("" for none), written without making a string of it.
    mutating func wireName(_ step: CallPathStep?) {
        switch step {
        case .frame(let row)?: raw("\"f"); int(Int64(row)); raw("\"")
        case .thread(let index)?: raw("\"t"); int(Int64(index)); raw("\"")
        case let other?: string(other.wireName)
        case nil: raw("\"\"")
        }
    }

    mutating func ints(_ values: [Int64]) {
        raw("[")
        for (i, value) in values.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            int(value)
        }
        raw("]")
    }

    mutating func strings(_ values: [String]) {
        raw("[")
        for (i, value) in values.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value)
        }
        raw("]")
    }
}
