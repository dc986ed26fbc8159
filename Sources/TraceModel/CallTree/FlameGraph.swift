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
}

extension Trace {
    public func flameGraph(_ query: FlameGraphQuery) -> FlameGraph {
        let built = callTreeArena(query.tree)
        return flameGraphAndNodes(query, arena: built.arena, total: built.total, sampleCount: built.sampleCount,
                                  updateCount: built.updateCount, byThread: built.byThread).graph
    }

    /// The flame graph of an arena already built (the differential graph builds its own), and
    /// the arena node of each frame (-1 for a merged block).
    func flameGraphAndNodes(
        _ query: FlameGraphQuery, arena tree: NodeArena, total wholeTotal: Nanoseconds, sampleCount wholeSamples: Int,
        updateCount: Int?, byThread: Bool
    ) -> (graph: FlameGraph, nodes: [Int]) {
        let range = query.tree.range ?? TimeRange(start: metadata.start, end: metadata.end)
        let viewName = query.tree.view?.name ?? ""
        // The graph's roots: the focused node alone, or the arena's roots.
        var roots: [Int]
        var (total, sampleCount) = (wholeTotal, wholeSamples)
        var focusFound = true
        if query.tree.focus.isEmpty {
            roots = byThread ? threadOrder(tree.nodes[NodeArena.root].children.values, in: tree) : sortedChildren(of: NodeArena.root, in: tree, view: viewName)
        } else if let focused = tree.node(at: query.tree.focus) {
            roots = [focused]
            (total, sampleCount) = (tree.nodes[focused].total, tree.nodes[focused].samples)
        } else {
            (roots, total, sampleCount, focusFound) = ([], 0, 0, false)
        }
        let zoomed = zoomExtent(query.zoom, roots: roots, in: tree, view: viewName)
        var window = query.window ?? zoomed.map { WeightWindow(from: $0.x, to: $0.x + $0.total) } ?? WeightWindow(from: 0, to: total)
        window.from = max(0, min(window.from, total))
        window.to = max(window.from + 1, min(window.to, max(total, 1)))
        let width = max(1, query.width)
        var minWeight = max(1, (window.to - window.from + Int64(width) - 1) / Int64(width))
        var layout = FlameLayout(trace: self, tree: tree, view: viewName, window: window)
        while true {
            layout.run(roots: roots, minWeight: minWeight, zoomPath: zoomed?.nodes ?? [])
            if layout.frames.count <= max(1, query.maxFrames) || minWeight == Int64.max { break }
            minWeight = minWeight.multipliedReportingOverflow(by: 2).overflow ? Int64.max : minWeight * 2
        }
        let graph = FlameGraph(
            start: range.start, end: range.end, mode: query.tree.mode.rawValue, unit: metadata.cpuWeightUnit,
            totalWeight: total, sampleCount: sampleCount, updateCount: updateCount, focusFound: focusFound,
            zoom: layout.zoomFrames, zoomFound: query.zoom.isEmpty || zoomed != nil, window: window, width: width,
            minWeight: minWeight, mergedFrames: layout.mergedFrames, names: layout.names.values,
            binaries: layout.binaries.values, frames: layout.frames
        )
        return (graph, layout.nodeOfFrame)
    }

    /// Threads in the tree's order: main threads first, then by thread index.
    func threadOrder(_ nodes: some Collection<Int>, in tree: NodeArena) -> [Int] {
        func order(_ node: Int) -> (Int, Int) {
            guard case .thread(let thread) = tree.nodes[node].key else { return (2, 0) }
            return (thread >= 0 && thread < threads.count && threads[thread].isMain ? 0 : 1, thread)
        }
        return nodes.sorted { order($0) < order($1) }
    }

    /// The children of `node`, heaviest first, ties by name (the call tree's order).
    func sortedChildren(of node: Int, in tree: NodeArena, view: String) -> [Int] {
        tree.nodes[node].children.values.sorted { a, b in
            let (wa, wb) = (tree.nodes[a].total, tree.nodes[b].total)
            if wa != wb { return wa > wb }
            let (na, nb) = (callPathText(tree.nodes[a].key, view: view).name, callPathText(tree.nodes[b].key, view: view).name)
            return na != nb ? na < nb : tree.nodes[a].key.wireName < tree.nodes[b].key.wireName
        }
    }

    /// The nodes of `path` from the graph's roots and the last one's left edge and weight.
    private func zoomExtent(_ path: [CallPathStep], roots: [Int], in tree: NodeArena, view: String) -> (nodes: [Int], x: Int64, total: Int64)? {
        guard !path.isEmpty else { return nil }
        var x: Int64 = 0
        var siblings = roots
        var nodes: [Int] = []
        for step in path {
            guard let index = siblings.firstIndex(where: { tree.nodes[$0].key == step }) else { return nil }
            for before in siblings[..<index] { x += tree.nodes[before].total }
            nodes.append(siblings[index])
            siblings = sortedChildren(of: siblings[index], in: tree, view: view)
        }
        return (nodes, x, tree.nodes[nodes[nodes.count - 1]].total)
    }
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

/// One pass over an arena from the graph's roots: frames inside the window and at least
/// `minWeight` wide, narrower siblings merged, depth first with an explicit stack.
struct FlameLayout {
    let trace: Trace
    let tree: NodeArena
    let view: String
    let window: WeightWindow
    var frames = FlameFrames()
    var names = StringTable()
    var binaries = StringTable()
    var mergedFrames = 0
    var zoomFrames: [Int] = []
    /// The arena node of each frame (-1 for a merged block), for the differential graph.
    var nodeOfFrame: [Int] = []

    init(trace: Trace, tree: NodeArena, view: String, window: WeightWindow) {
        self.trace = trace
        self.tree = tree
        self.view = view
        self.window = window
    }

    mutating func run(roots: [Int], minWeight: Int64, zoomPath: [Int]) {
        frames = FlameFrames()
        names = StringTable()
        binaries = StringTable()
        (mergedFrames, zoomFrames, nodeOfFrame) = (0, [], [])
        let onZoomPath = Set(zoomPath)
        // Work: the siblings of one parent frame, laid out from x.
        var pending: [(siblings: [Int], parent: Int, depth: Int, x: Int64)] = [(roots, -1, 0, 0)]
        while let (siblings, parent, depth, startX) = pending.popLast() {
            var x = startX
            var run: (x: Int64, total: Int64, samples: Int, count: Int)?
            func flushRun() {
                guard let merged = run else { return }
                run = nil
                mergedFrames += merged.count
                guard merged.total >= minWeight, overlaps(merged.x, merged.total) else { return }
                append(parent: parent, depth: depth, x: merged.x, total: merged.total, selfWeight: 0, samples: merged.samples,
                       name: "\(merged.count) frames", binary: "", kind: .merged, step: nil, merged: merged.count, folded: false, node: -1)
            }
            var children: [(node: Int, frame: Int, x: Int64)] = []
            for node in siblings {
                let weight = tree.nodes[node].total
                defer { x += weight }
                guard weight > 0 else { continue }
                if weight < minWeight {
                    // A run of narrow siblings becomes one block (siblings come heaviest first).
                    if let current = run { run = (current.x, current.total + weight, current.samples + tree.nodes[node].samples, current.count + 1) }
                    else { run = (x, weight, tree.nodes[node].samples, 1) }
                    continue
                }
                flushRun()
                guard overlaps(x, weight) else { continue }
                let (name, binary, isAppCode) = trace.callPathText(tree.nodes[node].key, view: view)
                let frame = append(
                    parent: parent, depth: depth, x: x, total: weight, selfWeight: tree.nodes[node].selfWeight, samples: tree.nodes[node].samples,
                    name: name, binary: binary, kind: Self.kind(of: tree.nodes[node].key, binary: binary, isAppCode: isAppCode),
                    step: tree.nodes[node].key, merged: 0, folded: tree.nodes[node].foldedDepth, node: node
                )
                if onZoomPath.contains(node) { zoomFrames.append(frame) }
                if !tree.nodes[node].children.isEmpty { children.append((node, frame, x)) }
            }
            flushRun()
            // Reversed, so the first sibling's subtree comes out first.
            for child in children.reversed() {
                pending.append((trace.sortedChildren(of: child.node, in: tree, view: view), child.frame, depth + 1, child.x))
            }
        }
    }

    private func overlaps(_ x: Int64, _ width: Int64) -> Bool { x < window.to && x + width > window.from }

    @discardableResult
    private mutating func append(
        parent: Int, depth: Int, x: Int64, total: Int64, selfWeight: Int64, samples: Int, name: String, binary: String,
        kind: FlameFrameKind, step: CallPathStep?, merged: Int, folded: Bool, node: Int
    ) -> Int {
        frames.parent.append(parent)
        frames.depth.append(depth)
        frames.x.append(x)
        frames.total.append(total)
        frames.selfWeight.append(selfWeight)
        frames.samples.append(samples)
        frames.name.append(names.add(name))
        frames.binary.append(binaries.add(binary))
        frames.kind.append(kind)
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
        out.raw(",\"frames\":{\"parent\":"); out.ints(frames.parent.map(Int64.init))
        out.raw(",\"depth\":"); out.ints(frames.depth.map(Int64.init))
        out.raw(",\"x\":"); out.ints(frames.x)
        out.raw(",\"total\":"); out.ints(frames.total)
        out.raw(",\"self\":"); out.ints(frames.selfWeight)
        out.raw(",\"samples\":"); out.ints(frames.samples.map(Int64.init))
        out.raw(",\"name\":"); out.ints(frames.name.map(Int64.init))
        out.raw(",\"binary\":"); out.ints(frames.binary.map(Int64.init))
        out.raw(",\"kind\":"); out.strings(frames.kind.map(\.rawValue))
        out.raw(",\"step\":"); out.strings(frames.step.map { $0?.wireName ?? "" })
        out.raw(",\"merged\":"); out.ints(frames.merged.map(Int64.init))
        out.raw(",\"foldedDepth\":"); out.ints(frames.foldedDepth.indices.filter { frames.foldedDepth[$0] }.map(Int64.init))
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
