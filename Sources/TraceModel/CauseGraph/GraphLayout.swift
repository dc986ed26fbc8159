/// Layered left-to-right layout of a directed graph (Sugiyama style), deterministic:
/// the same nodes and edges always give the same picture.
///
/// 1. Layers: longest path from the sources (causes), so every edge points right.
/// 2. Edges spanning several layers get a placeholder in each layer they cross, so they
///    route around nodes instead of through them.
/// 3. Order within a layer: barycenter sweeps (down and up), keeping the order with the
///    fewest crossings; ties keep the previous order, which starts as the input order.
/// 4. Vertical positions: each node is pulled towards its neighbours' centres, subject to
///    keeping its order and spacing (solved exactly per layer by isotonic regression).
/// 5. Edge routes: from the source's right side through the placeholders to the target's left.
public struct GraphLayout: Sendable, Equatable {
    public struct Size: Sendable, Equatable {
        public var width: Double
        public var height: Double
    }

    public struct Rect: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double
        public var maxX: Double { x + width }
        public var maxY: Double { y + height }
        public func intersects(_ other: Rect) -> Bool {
            x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
        }
    }

    public struct Point: Sendable, Equatable {
        public var x: Double
        public var y: Double
    }

    public struct Options: Sendable {
        public var columnGap: Double = 90
        public var rowGap: Double = 18
        public var margin: Double = 24
        public var sweeps: Int = 12
        public init() {}
    }

    /// One rectangle per input node.
    public var frames: [Rect]
    /// One polyline per input edge, first point on the source, last on the target.
    public var routes: [[Point]]
    /// Layer (column) of each input node.
    public var layers: [Int]
    public var width: Double
    public var height: Double
    /// Pairs of edge segments that cross between adjacent columns in the chosen order.
    public var crossings: Int

    /// Lays out `sizes.count` nodes; `edges` are (from, to) indexes into `sizes`. The input order
    /// breaks ties, so callers should pass nodes in a meaningful, stable order. `laidBackward`:
    /// indexes of edges the caller wants drawn right to left where a cycle must turn one round
    /// (a focus's edge back to a cause that is also its effect: the cause stays on the left).
    public init(sizes: [Size], edges: [(from: Int, to: Int)], laidBackward: Set<Int> = [], options: Options = Options()) {
        var builder = LayeredGraph(sizes: sizes, edges: edges, laidBackward: laidBackward)
        builder.assignLayers()
        builder.insertPlaceholders()
        builder.orderLayers(sweeps: options.sweeps)
        self = builder.place(options: options)
    }
}

/// Working state of the layout: real nodes first, then placeholders for long edges.
private struct LayeredGraph {
    let sizes: [GraphLayout.Size]
    let edges: [(from: Int, to: Int)]
    let realCount: Int
    /// Edges that close a cycle are laid out reversed (causes graphs are acyclic; this keeps bad input safe).
    var reversed: [Bool] = []
    var layer: [Int] = []
    /// Per vertex (real or placeholder): vertices in the next and the previous layer.
    var successors: [[Int]] = []
    var predecessors: [[Int]] = []
    /// For each input edge, the chain of vertices it runs through, source to target.
    var chains: [[Int]] = []
    var layers: [[Int]] = []

    /// Edges laid out reversed from the start (the caller's choice, `GraphLayout.init`).
    let laidBackward: Set<Int>

    init(sizes: [GraphLayout.Size], edges: [(from: Int, to: Int)], laidBackward: Set<Int>) {
        self.sizes = sizes
        self.edges = edges
        self.realCount = sizes.count
        self.laidBackward = laidBackward
    }

    var vertexCount: Int { layer.count }

    mutating func assignLayers() {
        let n = realCount
        // An edge the caller lays backward runs from its target; the search below turns round
        // whatever still closes a cycle.
        reversed = edges.indices.map(laidBackward.contains)
        var out = [[Int]](repeating: [], count: n)
        for (index, edge) in edges.enumerated() where edge.from != edge.to {
            out[reversed[index] ? edge.to : edge.from].append(index)
        }
        // Depth-first search in input order marks the edges that close cycles.
        var state = [UInt8](repeating: 0, count: n)  // 0 new, 1 on stack, 2 done
        for root in 0..<n where state[root] == 0 {
            var stack: [(node: Int, next: Int)] = [(root, 0)]
            state[root] = 1
            while let top = stack.last {
                if top.next < out[top.node].count {
                    stack[stack.count - 1].next += 1
                    let edge = out[top.node][top.next]
                    let target = reversed[edge] ? edges[edge].from : edges[edge].to
                    if state[target] == 1 {
                        reversed[edge].toggle()
                    } else if state[target] == 0 {
                        state[target] = 1
                        stack.append((target, 0))
                    }
                } else {
                    state[top.node] = 2
                    stack.removeLast()
                }
            }
        }
        // Longest path from the sources, in topological order (Kahn, smallest index first).
        var forward = [[Int]](repeating: [], count: n)
        var indegree = [Int](repeating: 0, count: n)
        for (index, edge) in edges.enumerated() where edge.from != edge.to {
            let (a, b) = reversed[index] ? (edge.to, edge.from) : (edge.from, edge.to)
            forward[a].append(b)
            indegree[b] += 1
        }
        layer = [Int](repeating: 0, count: n)
        var ready = MinHeap((0..<n).filter { indegree[$0] == 0 })
        while let node = ready.pop() {
            for next in forward[node] {
                layer[next] = max(layer[next], layer[node] + 1)
                indegree[next] -= 1
                if indegree[next] == 0 { ready.push(next) }
            }
        }
    }

    mutating func insertPlaceholders() {
        successors = [[Int]](repeating: [], count: realCount)
        predecessors = [[Int]](repeating: [], count: realCount)
        var seenPairs = Set<Int64>()
        chains = []
        for (index, edge) in edges.enumerated() {
            if edge.from == edge.to {
                chains.append([edge.from])
                continue
            }
            let (a, b) = reversed[index] ? (edge.to, edge.from) : (edge.from, edge.to)
            var chain = [a]
            var previous = a
            for l in (layer[a] + 1)..<max(layer[a] + 1, layer[b]) {
                let placeholder = layer.count
                layer.append(l)
                successors.append([])
                predecessors.append([])
                link(previous, placeholder, &seenPairs)
                chain.append(placeholder)
                previous = placeholder
            }
            link(previous, b, &seenPairs)
            chain.append(b)
            chains.append(reversed[index] ? chain.reversed() : chain)
        }
    }

    private mutating func link(_ a: Int, _ b: Int, _ seen: inout Set<Int64>) {
        // Parallel edges between the same pair count once for ordering.
        guard seen.insert(Int64(a) << 32 | Int64(b)).inserted else { return }
        successors[a].append(b)
        predecessors[b].append(a)
    }

    /// Initial order: depth-first from the sources in input order, so related nodes start close.
    mutating func orderLayers(sweeps: Int) {
        let layerCount = (layer.max() ?? -1) + 1
        layers = [[Int]](repeating: [], count: layerCount)
        var visited = [Bool](repeating: false, count: vertexCount)
        func visit(_ start: Int) {
            var stack = [start]
            while let v = stack.popLast() {
                if visited[v] { continue }
                visited[v] = true
                layers[layer[v]].append(v)
                for next in successors[v].reversed() where !visited[next] { stack.append(next) }
            }
        }
        for v in 0..<realCount where predecessors[v].isEmpty { visit(v) }
        for v in 0..<vertexCount where !visited[v] { visit(v) }

        var best = layers
        var bestCrossings = Self.crossings(layers: layers, successors: successors)
        var sweep = 0
        while sweep < sweeps && bestCrossings > 0 {
            let downward = sweep % 2 == 0
            let range: [Int] = downward ? Array(stride(from: 1, to: layerCount, by: 1)) : Array(stride(from: layerCount - 2, through: 0, by: -1))
            for l in range {
                let neighbourLayer = downward ? l - 1 : l + 1
                var position = [Int: Int]()
                for (i, v) in layers[neighbourLayer].enumerated() { position[v] = i }
                let current = layers[l]
                let keyed: [(key: Double, index: Int, vertex: Int)] = current.enumerated().map { i, v in
                    let neighbours = downward ? predecessors[v] : successors[v]
                    let placed = neighbours.compactMap { position[$0] }
                    // A vertex without neighbours on that side stays where it is.
                    let key = placed.isEmpty
                        ? Double(i) * Double(layers[neighbourLayer].count) / Double(max(current.count, 1))
                        : Double(placed.reduce(0, +)) / Double(placed.count)
                    return (key, i, v)
                }
                layers[l] = keyed.sorted { ($0.key, $0.index) < ($1.key, $1.index) }.map(\.vertex)
            }
            let count = Self.crossings(layers: layers, successors: successors)
            if count < bestCrossings {
                bestCrossings = count
                best = layers
            }
            sweep += 1
        }
        layers = best
    }

    static func crossings(layers: [[Int]], successors: [[Int]]) -> Int {
        var total = 0
        for l in 0..<max(layers.count - 1, 0) {
            var lowerPosition = [Int: Int]()
            for (i, v) in layers[l + 1].enumerated() { lowerPosition[v] = i }
            // Edges sorted by upper position then lower position; crossings are inversions of lower positions.
            var targets: [Int] = []
            for v in layers[l] {
                targets.append(contentsOf: successors[v].compactMap { lowerPosition[$0] }.sorted())
            }
            total += countInversions(targets, size: layers[l + 1].count)
        }
        return total
    }

    /// Pairs i < j with values[i] > values[j], with a Fenwick tree.
    static func countInversions(_ values: [Int], size: Int) -> Int {
        var tree = [Int](repeating: 0, count: size + 1)
        var inversions = 0
        for (seen, value) in values.enumerated() {
            var atMost = 0
            var i = value + 1
            while i > 0 {
                atMost += tree[i]
                i -= i & -i
            }
            inversions += seen - atMost
            i = value + 1
            while i <= size {
                tree[i] += 1
                i += i & -i
            }
        }
        return inversions
    }

    func size(_ v: Int) -> GraphLayout.Size {
        v < realCount ? sizes[v] : GraphLayout.Size(width: 0, height: 6)
    }

    func place(options: GraphLayout.Options) -> GraphLayout {
        // Columns: each as wide as its widest node.
        var columnX: [Double] = []
        var columnWidth: [Double] = []
        var x = options.margin
        for members in layers {
            let width = members.map { size($0).width }.max() ?? 0
            columnX.append(x)
            columnWidth.append(width)
            x += width + options.columnGap
        }

        // Rows: start stacked, then pull each vertex towards its neighbours' centres.
        var top = [Double](repeating: 0, count: vertexCount)
        for members in layers {
            var y = 0.0
            for v in members {
                top[v] = y
                y += size(v).height + options.rowGap
            }
        }
        func center(_ v: Int) -> Double { top[v] + size(v).height / 2 }
        for pass in 0..<8 {
            let downward = pass % 2 == 0
            let order = downward ? Array(layers.indices) : Array(layers.indices.reversed())
            for l in order {
                let members = layers[l]
                let desired = members.map { v -> Double in
                    let neighbours = downward ? predecessors[v] : successors[v]
                    let both = neighbours.isEmpty ? (predecessors[v] + successors[v]) : neighbours
                    guard !both.isEmpty else { return top[v] }
                    return both.map(center).reduce(0, +) / Double(both.count) - size(v).height / 2
                }
                let placed = Self.closestOrderedTops(desired: desired, heights: members.map { size($0).height }, gap: options.rowGap)
                for (v, y) in zip(members, placed) { top[v] = y }
            }
        }
        let minTop = top.min() ?? 0
        for v in 0..<vertexCount { top[v] += options.margin - minTop }

        var frames: [GraphLayout.Rect] = []
        var height = 0.0
        for v in 0..<realCount {
            let s = sizes[v]
            let frame = GraphLayout.Rect(x: columnX[layer[v]], y: top[v], width: s.width, height: s.height)
            frames.append(frame)
            height = max(height, frame.maxY)
        }
        for v in realCount..<vertexCount { height = max(height, top[v] + size(v).height) }

        let routes: [[GraphLayout.Point]] = chains.map { chain in
            guard chain.count > 1 else {
                let f = frames[chain[0]]
                return [GraphLayout.Point(x: f.maxX, y: f.y + f.height / 2), GraphLayout.Point(x: f.x, y: f.y + f.height / 2)]
            }
            var points: [GraphLayout.Point] = []
            let first = chain[0], last = chain[chain.count - 1]
            let forward = layer[first] <= layer[last]
            let sourceFrame = frames[first], targetFrame = frames[last]
            points.append(GraphLayout.Point(x: forward ? sourceFrame.maxX : sourceFrame.x, y: center(first)))
            for v in chain.dropFirst().dropLast() {
                // A placeholder crosses its whole column horizontally, clear of the nodes in it.
                let l = layer[v]
                let left = GraphLayout.Point(x: columnX[l], y: center(v))
                let right = GraphLayout.Point(x: columnX[l] + columnWidth[l], y: center(v))
                points.append(contentsOf: forward ? [left, right] : [right, left])
            }
            points.append(GraphLayout.Point(x: forward ? targetFrame.x : targetFrame.maxX, y: center(last)))
            return points
        }
        let width = max(x - options.columnGap + options.margin, options.margin * 2)
        return GraphLayout(
            frames: frames, routes: routes, layers: Array(layer.prefix(realCount)), width: width, height: height + options.margin,
            crossings: Self.crossings(layers: layers, successors: successors)
        )
    }

    /// Tops as close as possible (least squares) to `desired`, keeping order and `gap` between
    /// neighbours: isotonic regression on tops shifted by the space the preceding vertices need.
    static func closestOrderedTops(desired: [Double], heights: [Double], gap: Double) -> [Double] {
        var offsets: [Double] = []
        var offset = 0.0
        for h in heights {
            offsets.append(offset)
            offset += h + gap
        }
        // Pool adjacent violators: blocks of (mean, weight, count).
        var blocks: [(mean: Double, count: Int)] = []
        for (i, d) in desired.enumerated() {
            blocks.append((d - offsets[i], 1))
            while blocks.count > 1 && blocks[blocks.count - 2].mean > blocks[blocks.count - 1].mean {
                let b = blocks.removeLast()
                let a = blocks.removeLast()
                let count = a.count + b.count
                blocks.append(((a.mean * Double(a.count) + b.mean * Double(b.count)) / Double(count), count))
            }
        }
        var result: [Double] = []
        for block in blocks {
            for _ in 0..<block.count { result.append(block.mean + offsets[result.count]) }
        }
        return result
    }
}

extension GraphLayout {
    fileprivate init(frames: [Rect], routes: [[Point]], layers: [Int], width: Double, height: Double, crossings: Int) {
        self.crossings = crossings
        self.frames = frames
        self.routes = routes
        self.layers = layers
        self.width = width
        self.height = height
    }
}

/// A binary min-heap of Ints: the topological order picks the smallest ready index first.
private struct MinHeap {
    private var items: [Int] = []
    init(_ values: [Int]) {
        for value in values { push(value) }
    }
    mutating func push(_ value: Int) {
        items.append(value)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if items[parent] <= items[child] { break }
            items.swapAt(parent, child)
            child = parent
        }
    }
    mutating func pop() -> Int? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < items.count && items[left] < items[smallest] { smallest = left }
                if right < items.count && items[right] < items[smallest] { smallest = right }
                if smallest == parent { break }
                items.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }
}
