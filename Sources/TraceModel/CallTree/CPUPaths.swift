import Synchronization

// Every stack of the profile through one set of transforms (the view's body cut, hide system
// libraries, charge to caller, flatten recursion): a trie of the paths the call tree, the flame
// graph and the stack chart are drawn from, one node per distinct path, and the node each stack
// row's path ends at. It depends on the transforms, not on the range, thread, direction or focus,
// so it is built once per set of transforms (linear in the stack rows: a row's path follows from
// its parent's, and a stack's parent row is below it) and kept with the trace (`CPUPathCache`).

struct CPUPathTrie: Sendable {
    /// What the paths depend on.
    struct Transforms: Hashable, Sendable {
        var view: String?
        var hideSystemLibraries: Bool
        var chargedToCaller: Set<String>
        var flattenRecursion: Bool

        init(_ query: CallTreeQuery) {
            view = query.view?.name
            hideSystemLibraries = query.hideSystemLibraries
            chargedToCaller = query.chargedToCaller
            flattenRecursion = query.flattenRecursion
        }
    }

    static let root: Int32 = 0
    static let flattenWalkLimit = 1024
    /// Step codes of the nodes that are not frames.
    private static let systemCode: Int32 = -1, outsideCode: Int32 = -2

    /// Per node (0 is the root): its parent, its step (a frame row, or a code above), and how many
    /// steps from the root it is. A child's index is above its parent's.
    private(set) var parent: [Int32] = [-1]
    private(set) var code: [Int32] = [-3]
    private(set) var depth: [Int32] = [0]
    /// The node each stack row's path ends at; a stack whose every frame the transforms took
    /// ends at "System libraries" (a child of the root).
    private(set) var nodeOfStack: [Int32] = []
    /// Children of each node, compressed sparse rows.
    private(set) var childStart: [Int32] = []
    private(set) var childList: [Int32] = []
    /// Each node's place in a depth-first walk, and the place after its last descendant's:
    /// `b` is below `a` (or is `a`) when `preorder[a] <= preorder[b] < subtreeEnd[a]`.
    private(set) var preorder: [Int32] = []
    private(set) var subtreeEnd: [Int32] = []

    var count: Int { parent.count }

    func step(_ node: Int) -> CallPathStep { Self.step(code: code[node]) }

    static func step(code: Int32) -> CallPathStep {
        switch code {
        case systemCode: .systemLibraries
        case outsideCode: .outsideBody
        case let frame: .frame(UInt32(bitPattern: frame))
        }
    }

    func children(of node: Int) -> ArraySlice<Int32> {
        childList[Int(childStart[node])..<Int(childStart[node + 1])]
    }

    /// The child of `node` at `step`, or nil.
    func child(of node: Int, _ step: CallPathStep) -> Int? {
        let wanted: Int32
        switch step {
        case .frame(let row): wanted = Int32(truncatingIfNeeded: row)
        case .systemLibraries: wanted = Self.systemCode
        case .outsideBody: wanted = Self.outsideCode
        case .thread: return nil
        }
        return children(of: node).first { code[Int($0)] == wanted }.map(Int.init)
    }

    /// The steps from the root to `node`.
    func path(to node: Int) -> [CallPathStep] {
        var steps: [CallPathStep] = []
        var current = node
        while current > 0 {
            steps.append(step(current))
            current = Int(parent[current])
        }
        return steps.reversed()
    }

    var memoryFootprint: Int {
        (parent.capacity + code.capacity + depth.capacity + nodeOfStack.capacity + childStart.capacity + childList.capacity
            + preorder.capacity + subtreeEnd.capacity) * 4
    }

    /// At most one node per stack row: eight 4-byte columns, and one entry of `nodeOfStack`.
    static let bytesPerNode = 9 * 4

    init(trace: Trace, transforms: Transforms) {
        let stacks = trace.cpu.stacks
        nodeOfStack = [Int32](repeating: 0, count: stacks.count)
        var underBody = [Bool](repeating: false, count: transforms.view == nil ? 0 : stacks.count)
        // (parent node, step code) → node: one table for the whole trie.
        var nodeIndex: [UInt64: Int32] = [:]
        nodeIndex.reserveCapacity(stacks.count + 2)
        var kept: [UInt32: Bool] = [:]
        var bodyName: [StringRef: Bool] = [:]
        let viewPattern = transforms.view.map { BytePattern($0) }
        // Flatten recursion: a 64-bit summary of the frames on each node's path, so most "is this
        // frame on the path already?" answers cost one test and the rest a short walk.
        var pathFrames: [UInt64] = transforms.flattenRecursion ? [0] : []
        func frameBit(_ code: Int32) -> UInt64 { 1 << (UInt64(UInt32(bitPattern: code)) &* 0x9E37_79B9 >> 26 & 63) }
        func child(_ parent: Int32, _ code: Int32) -> Int32 {
            let key = UInt64(UInt32(bitPattern: parent)) << 32 | UInt64(UInt32(bitPattern: code))
            if let known = nodeIndex[key] { return known }
            let node = Int32(self.parent.count)
            self.parent.append(parent)
            self.code.append(code)
            depth.append(depth[Int(parent)] &+ 1)
            if transforms.flattenRecursion { pathFrames.append(pathFrames[Int(parent)] | frameBit(code)) }
            nodeIndex[key] = node
            return node
        }
        func isKept(_ frame: UInt32) -> Bool {
            if let known = kept[frame] { return known }
            let keep = (!transforms.hideSystemLibraries || trace.cpu.frames.isAppCode[Int(frame)])
                && (transforms.chargedToCaller.isEmpty || !transforms.chargedToCaller.contains(trace.string(trace.cpu.frames.name[Int(frame)])))
            kept[frame] = keep
            return keep
        }
        /// Decided once per name: frames of many binaries can share one (long) name.
        func isBody(_ frame: UInt32, _ view: BytePattern) -> Bool {
            let name = trace.cpu.frames.name[Int(frame)]
            if let known = bodyName[name] { return known }
            let answer = BodyFrameName.matches(trace.string(name), view: view)
            bodyName[name] = answer
            return answer
        }
        // The walk stops after `flattenWalkLimit` steps: a flattened path holds each function once,
        // so only a stack of more distinct functions than that (none but a hostile one) goes further.
        func isOnPath(_ frame: UInt32, from node: Int32) -> Bool {
            let wanted = Int32(truncatingIfNeeded: frame)
            guard pathFrames[Int(node)] & frameBit(wanted) != 0 else { return false }
            var current = node
            var steps = 0
            while current > 0, steps < Self.flattenWalkLimit {
                if code[Int(current)] == wanted { return true }
                current = parent[Int(current)]
                steps += 1
            }
            return false
        }
        // Rows in order: a row's parent row is done before it (the stack table's order).
        for row in 0..<stacks.count {
            let parentRow = Int(stacks.parent[row])
            let frame = stacks.frame[row]
            var start = parentRow < 0 || parentRow >= row ? Self.root : nodeOfStack[parentRow]
            if let view = viewPattern {
                let parentUnderBody = parentRow >= 0 && parentRow < row && underBody[parentRow]
                underBody[row] = parentUnderBody || isBody(frame, view)
                if underBody[row] && !parentUnderBody {
                    // The outermost body frame: the path starts here.
                    start = Self.root
                } else if !underBody[row] && start == Self.root {
                    // Outside the body: the path starts with one "Outside V.body" step.
                    start = child(Self.root, Self.outsideCode)
                }
            }
            if isKept(frame) && !(transforms.flattenRecursion && isOnPath(frame, from: start)) {
                start = child(start, Int32(truncatingIfNeeded: frame))
            }
            nodeOfStack[row] = start
        }
        // Stacks with nothing left: one "System libraries" node under the root.
        var systemNode: Int32?
        for row in 0..<stacks.count where nodeOfStack[row] == Self.root {
            if systemNode == nil { systemNode = child(Self.root, Self.systemCode) }
            nodeOfStack[row] = systemNode!
        }
        // Children as compressed sparse rows, in node order.
        var counts = [Int32](repeating: 0, count: parent.count + 1)
        for node in 1..<parent.count { counts[Int(parent[node]) + 1] += 1 }
        for index in 1..<counts.count { counts[index] += counts[index - 1] }
        childStart = counts
        childList = [Int32](repeating: 0, count: max(0, parent.count - 1))
        var next = counts
        for node in 1..<parent.count {
            let p = Int(parent[node])
            childList[Int(next[p])] = Int32(node)
            next[p] += 1
        }
        // Depth-first places, with an explicit stack (a path is as deep as its input makes it).
        preorder = [Int32](repeating: 0, count: parent.count)
        subtreeEnd = preorder
        var place: Int32 = 0
        var walk: [(node: Int32, entered: Bool)] = [(Self.root, false)]
        while let (node, entered) = walk.popLast() {
            if entered { subtreeEnd[Int(node)] = place; continue }
            preorder[Int(node)] = place
            place += 1
            walk.append((node, true))
            for child in children(of: Int(node)) { walk.append((child, false)) }
        }
    }

    /// Each node, or for one deeper than `CallTreeQuery.maxDepth` its ancestor at that depth: one
    /// pass in node order (a parent's index is below its children's), so a chain of stacks each
    /// one frame deeper costs its length, not its length squared.
    func nodesAtDepthLimit() -> [Int32] {
        var capped = [Int32](repeating: 0, count: count)
        for node in 0..<count {
            capped[node] = depth[node] > CallTreeQuery.maxDepth ? capped[Int(parent[node])] : Int32(node)
        }
        return capped
    }

    /// Whether `node` is `ancestor` or below it.
    func isUnder(_ node: Int, _ ancestor: Int) -> Bool {
        preorder[ancestor] <= preorder[node] && preorder[node] < subtreeEnd[ancestor]
    }
}

/// The samples' (thread, stack) pairs, numbered when the trace loads, and the tries of the
/// transforms asked for lately, kept with a trace (a query with the same transforms, any range,
/// thread, direction or focus, reuses one). At most four.
public final class CPUPathCache: Sendable {
    let sampleKeys: CPUSampleKeys
    private let tries = Mutex<[(transforms: CPUPathTrie.Transforms, trie: CPUPathTrie)]>([])
    private static let capacity = 4

    public convenience init() { self.init(sampleKeys: CPUSampleKeys()) }

    init(sampleKeys: CPUSampleKeys) { self.sampleKeys = sampleKeys }

    func trie(of trace: Trace, _ transforms: CPUPathTrie.Transforms) -> CPUPathTrie {
        if let found = tries.withLock({ list in list.firstIndex { $0.transforms == transforms }.map { list.remove(at: $0) } }) {
            tries.withLock { $0.append(found) }
            return found.trie
        }
        // Built outside the lock: two queries may build the same trie once each, never wait on each other.
        let trie = CPUPathTrie(trace: trace, transforms: transforms)
        tries.withLock { list in
            list.removeAll { $0.transforms == transforms }
            list.append((transforms, trie))
            if list.count > Self.capacity { list.removeFirst(list.count - Self.capacity) }
        }
        return trie
    }

    /// Bytes of the tries and weights kept.
    public var memoryFootprint: Int {
        tries.withLock { $0.reduce(0) { $0 + $1.trie.memoryFootprint } } + weightEntries.withLock { $0.reduce(0) { $0 + $1.entry.bytes } }
    }

    // The sample sets asked for lately and their weights on the trie: a flame graph zoomed,
    // panned or asked again at another width, or the call tree of the same samples, is laid out
    // from them without reading or summing a sample. At most two, each holding the weights of at
    // most `weightBytesLimit` (past it a slice is summed on every answer).
    private let weightEntries = Mutex<[(key: CPUWeightsKey, entry: CPUWeightsEntry)]>([])
    private static let weightCapacity = 2

    /// Bytes of the weights one entry keeps: four slices over a trie as large as the stack table,
    /// at most 128 MB.
    static func weightBytesLimit(of trace: Trace) -> Int {
        min(128 << 20, 4 * (trace.cpu.stacks.count + 1) * TopDownTree.Weights.bytesPerNode)
    }

    /// What the cache can hold for `trace` at most: a server counts it when the trace loads, so
    /// its memory budget holds however the CPU pane is used.
    public static func expectedFootprint(of trace: Trace) -> Int {
        let trieBytes = (trace.cpu.stacks.count + 1) * CPUPathTrie.bytesPerNode
        let entryBytes = trace.indexes.cpuPaths.sampleKeys.count * CPUSampleSet.bytesPerKey + weightBytesLimit(of: trace)
        return capacity * trieBytes + weightCapacity * entryBytes
    }

    /// The entry of `key`, made with `samples()` when not kept.
    func weights(_ key: CPUWeightsKey, of trace: Trace, samples: () -> CPUSampleSet) -> CPUWeightsEntry {
        if let found = weightEntries.withLock({ list in list.firstIndex { $0.key == key }.map { list.remove(at: $0) } }) {
            weightEntries.withLock { $0.append(found) }
            return found.entry
        }
        let entry = CPUWeightsEntry(samples: samples(), limit: Self.weightBytesLimit(of: trace))
        // A cancelled read is partial: not kept.
        if Task.isCancelled { return entry }
        weightEntries.withLock { list in
            list.removeAll { $0.key == key }
            list.append((key, entry))
            if list.count > Self.weightCapacity { list.removeFirst(list.count - Self.weightCapacity) }
        }
        return entry
    }

    /// Forgets the sample sets and weights kept (the benchmark's first answers).
    public func dropWeights() { weightEntries.withLock { $0.removeAll() } }
}

/// What a query's samples depend on: all but the direction, focus and layout.
struct CPUWeightsKey: Hashable {
    var transforms: CPUPathTrie.Transforms
    var range: TimeRange?
    var thread: Int?
    var view: String?, module: String?, filter: String?, longerThan: Nanoseconds?
    var perThread: Bool
}

/// One sample set (`Trace.cpuSamples`) and the weights of its slices on its trie, as summed.
final class CPUWeightsEntry: Sendable {
    let samples: CPUSampleSet
    private let limit: Int
    private let sliceWeights = Mutex<[Int32?: TopDownTree.Weights]>([:])

    init(samples: CPUSampleSet, limit: Int) {
        self.samples = samples
        self.limit = limit
    }

    func weights(of thread: Int32?) -> TopDownTree.Weights? { sliceWeights.withLock { $0[thread] } }

    func store(_ weights: TopDownTree.Weights, of thread: Int32?) {
        guard !Task.isCancelled else { return }
        sliceWeights.withLock { kept in
            guard kept[thread] == nil, kept.values.reduce(weights.bytes, { $0 + $1.bytes }) <= limit else { return }
            kept[thread] = weights
        }
    }

    var bytes: Int { samples.bytes + sliceWeights.withLock { $0.values.reduce(0) { $0 + $1.bytes } } }
}

extension Trace {
    /// The trie of `query`'s transforms, from the trace's cache.
    func cpuPathTrie(_ query: CallTreeQuery) -> CPUPathTrie {
        indexes.cpuPaths.trie(of: self, CPUPathTrie.Transforms(query))
    }
}
