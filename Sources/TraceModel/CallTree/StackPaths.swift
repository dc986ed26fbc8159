// Where the samples of each stack go in a call tree: a stack's path through the query's
// transforms (the view's body cut, hide system libraries, charge to caller, flatten recursion),
// one implementation for the call tree, the flame graph and the stack chart.

/// One step of a path in a call tree (a node is the path from a root to it).
public enum CallPathStep: Hashable, Sendable {
    /// A thread's row (top-down trees of every thread have one root per thread).
    case thread(Int)
    /// A row of the frame table.
    case frame(UInt32)
    /// Stacks with no frame left once the query's transforms took theirs.
    case systemLibraries
    /// Work inside a view's update but outside its body (view queries).
    case outsideBody

    /// "t3", "f120", "sys", "out": how paths are written in the API and in share links.
    public var wireName: String {
        switch self {
        case .thread(let index): "t\(index)"
        case .frame(let row): "f\(row)"
        case .systemLibraries: "sys"
        case .outsideBody: "out"
        }
    }

    public init?(wireName text: some StringProtocol) {
        switch text {
        case "sys": self = .systemLibraries
        case "out": self = .outsideBody
        default:
            guard text.count >= 2, text.count <= 11, let kind = text.first,
                  text.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            switch kind {
            case "t": guard let index = Int(text.dropFirst()), index <= Int(Int32.max) else { return nil }
                self = .thread(index)
            case "f": guard let row = UInt32(text.dropFirst()) else { return nil }
                self = .frame(row)
            default: return nil
            }
        }
    }

    /// A path as the API writes it: steps joined by ".".
    public static func wirePath(_ path: [CallPathStep]) -> String { path.map(\.wireName).joined(separator: ".") }

    /// A path read back; nil when a step does not parse.
    public static func path(wire text: some StringProtocol) -> [CallPathStep]? {
        if text.isEmpty { return [] }
        var steps: [CallPathStep] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard let step = CallPathStep(wireName: part) else { return nil }
            steps.append(step)
        }
        return steps
    }
}

/// The samples of one (thread, stack): their weight and how many there were.
struct CPUSampleKey {
    struct ID: Hashable {
        var thread: Int32
        var stack: UInt32
    }
    var id: ID
    var weight: Nanoseconds
    var count: Int
}

/// The arena node of each stack's path in a top-down tree, worked out once per stack row: the
/// stack table is a prefix tree whose parents come before their children, so a row's path follows
/// from its parent's, and building a tree is linear in the stack rows used, however deep they are.
/// A path of more than `depthLimit` steps stops there (`foldedDepth`).
struct StackPaths {
    private let query: CallTreeQuery
    private let trace: Trace
    private let depthLimit: Int
    /// Per stack row, for the current root (`startTree`): the node its path ends at (-1: not yet).
    private var node: [Int32]
    /// ...how many steps the path has, and whether the row is inside the view's body.
    private var depth: [Int]
    private var underBody: [Bool]
    private var touched: [Int32] = []
    private var root = NodeArena.root
    private var outsideNode = -1
    private var keptFrame: [UInt32: Bool] = [:]
    private var bodyName: [StringRef: Bool] = [:]

    init(query: CallTreeQuery, trace: Trace, depthLimit: Int = CallTreeQuery.maxDepth) {
        self.query = query
        self.trace = trace
        self.depthLimit = depthLimit
        node = [Int32](repeating: -1, count: trace.cpu.stacks.count)
        depth = [Int](repeating: 0, count: trace.cpu.stacks.count)
        underBody = [Bool](repeating: false, count: trace.cpu.stacks.count)
    }

    /// Paths from here on hang under `root` (a thread's node, or the arena's root).
    mutating func startTree(at root: Int) {
        for row in touched { node[Int(row)] = -1 }
        touched.removeAll(keepingCapacity: true)
        self.root = root
        outsideNode = -1
    }

    /// The node `stack`'s samples stop at, made with the path to it when missing. A stack whose
    /// every frame the transforms took stops at "System libraries".
    mutating func node(of stack: UInt32, in tree: inout NodeArena) -> Int {
        prepare(Int(stack), in: &tree)
        let end = Int(node[Int(stack)])
        return end == root ? tree.child(of: root, .systemLibraries) : end
    }

    /// Fills `stack` and its ancestors not done yet, root first (no recursion: the walk up
    /// stops at the first row done).
    private mutating func prepare(_ stack: Int, in tree: inout NodeArena) {
        guard node[stack] == -1 else { return }
        var pending: [Int] = []
        var current = Int32(stack)
        while current != noRow, node[Int(current)] == -1 {
            pending.append(Int(current))
            current = trace.cpu.stacks.parent[Int(current)]
        }
        for row in pending.reversed() {
            touched.append(Int32(row))
            let parent = Int(trace.cpu.stacks.parent[row])
            let frame = trace.cpu.stacks.frame[row]
            var (start, steps) = parent == Int(noRow) ? (root, 0) : (Int(node[parent]), depth[parent])
            if let view = query.view {
                let parentUnderBody = parent != Int(noRow) && underBody[parent]
                underBody[row] = parentUnderBody || isBodyFrame(frame, of: view.name)
                if underBody[row] && !parentUnderBody {
                    // The outermost body frame: the path starts here.
                    (start, steps) = (root, 0)
                } else if !underBody[row] && start == root {
                    // Outside the body: the path starts with one "Outside V.body" step.
                    if outsideNode == -1 { outsideNode = tree.child(of: root, .outsideBody) }
                    (start, steps) = (outsideNode, 1)
                }
            }
            if isKept(frame) && !(query.flattenRecursion && isOnPath(frame, from: start, in: tree)) {
                if steps < depthLimit {
                    start = tree.child(of: start, .frame(frame))
                    steps += 1
                } else {
                    tree.nodes[start].foldedDepth = true
                }
            }
            node[row] = Int32(start)
            depth[row] = steps
        }
    }

    /// Whether `frame` is a step of the path ending at `node` (a walk up: flatten recursion only).
    private func isOnPath(_ frame: UInt32, from node: Int, in tree: NodeArena) -> Bool {
        var current = node
        while current != root && current != NodeArena.root {
            if tree.nodes[current].key == .frame(frame) { return true }
            current = tree.nodes[current].parent
        }
        return false
    }

    private mutating func isKept(_ frame: UInt32) -> Bool {
        if let known = keptFrame[frame] { return known }
        let keep = (!query.hideSystemLibraries || trace.cpu.frames.isAppCode[Int(frame)])
            && (query.chargedToCaller.isEmpty || !query.chargedToCaller.contains(trace.string(trace.cpu.frames.name[Int(frame)])))
        keptFrame[frame] = keep
        return keep
    }

    /// Decided once per name: frames of many binaries can share one (long) name.
    private mutating func isBodyFrame(_ frame: UInt32, of view: String) -> Bool {
        let name = trace.cpu.frames.name[Int(frame)]
        if let known = bodyName[name] { return known }
        let answer = BodyFrameName.matches(trace.string(name), view: view)
        bodyName[name] = answer
        return answer
    }
}

/// Functions whose name holds a search text that the samples ran but a transform took out of
/// the tree (the search box says so, and offers to show them).
public struct HiddenMatches: Sendable, Equatable {
    /// Distinct function names hidden, and how many of them each transform hides (a name hidden by
    /// two counts for both).
    public var functions = 0
    public var hideSystemLibraries = 0
    public var chargedToCaller = 0
    /// Outside the focused subtree.
    public var focus = 0
}

extension Trace {
    /// The matches of `text` (case-insensitive, in function names) that the query's samples ran and its
    /// transforms hide: names on the samples' stacks that no node of the transformed tree has.
    public func hiddenMatches(_ query: CallTreeQuery, text: String) -> HiddenMatches {
        let needle = text.lowercased()
        guard !needle.isEmpty else { return HiddenMatches() }
        var plain = query
        (plain.hideSystemLibraries, plain.chargedToCaller, plain.flattenRecursion, plain.focus) = (false, [], false, [])
        let built = callTreeArena(query), untouched = callTreeArena(plain)
        // Names in the transformed tree (under the focus, with one).
        var shown = Set<StringRef>()
        var pending = query.focus.isEmpty ? [NodeArena.root] : built.arena.node(at: query.focus).map { [$0] } ?? []
        while let node = pending.popLast() {
            if case .frame(let row) = built.arena.nodes[node].key { shown.insert(cpu.frames.name[Int(row)]) }
            pending.append(contentsOf: built.arena.nodes[node].children.values)
        }
        var verdict: [StringRef: Bool] = [:]
        var hidden = HiddenMatches()
        for node in untouched.arena.nodes {
            guard case .frame(let row) = node.key else { continue }
            let name = cpu.frames.name[Int(row)]
            guard verdict[name] == nil else { continue }
            let matches = string(name).lowercased().contains(needle)
            verdict[name] = matches
            guard matches, !shown.contains(name) else { continue }
            hidden.functions += 1
            let system = query.hideSystemLibraries && !cpu.frames.isAppCode[Int(row)]
            let charged = query.chargedToCaller.contains(string(name))
            if system { hidden.hideSystemLibraries += 1 }
            if charged { hidden.chargedToCaller += 1 }
            if !system && !charged && !query.focus.isEmpty { hidden.focus += 1 }
        }
        return hidden
    }
}
