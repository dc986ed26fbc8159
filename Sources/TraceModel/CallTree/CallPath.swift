// A path in a call tree (the steps from a root to a node: how the API and links name a node),
// the samples of one (thread, stack), and the search matches the transforms hide.

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

/// The samples a query keeps, summed per (thread, stack) pair of the trace (`CPUSampleKeys`):
/// by thread (in thread order) or all under `nil`, and their totals.
struct CPUSampleSet: Sendable {
    /// A pair's weight and sample count.
    static let bytesPerKey = 12

    /// One thread's samples (all under `nil`): the pairs `keys`.
    struct Slice: Sendable {
        var thread: Int32?
        var keys: Range<Int>
        var weight: Nanoseconds
        var sampleCount: Int

        static let empty = Slice(thread: nil, keys: 0..<0, weight: 0, sampleCount: 0)
    }

    var slices: [Slice]
    /// Per pair: the weight of the set's samples of it, and how many there are.
    var keyWeight: [Nanoseconds]
    var keyCount: [Int32]
    var total: Nanoseconds
    var sampleCount: Int
    var updateCount: Int?

    var bytes: Int { keyWeight.capacity * 8 + keyCount.capacity * 4 }
}

/// The samples whose stacks end at one trie node: where a bottom-up tree starts.
struct LeafWeight {
    var node: Int32
    var weight: Nanoseconds
    var count: Int
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
        (plain.mode, plain.hideSystemLibraries, plain.chargedToCaller, plain.flattenRecursion, plain.focus) = (.topDown, false, [], false, [])
        var transformed = query
        transformed.mode = .topDown
        // Names in the transformed tree (under the focus, with one), and in the untouched one.
        func names(_ query: CallTreeQuery, under focus: [CallPathStep]) -> Set<StringRef> {
            guard case .topDown(var tree, let threads) = cpuTrees(query).trees else { return [] }
            var found = Set<StringRef>()
            for slice in threads {
                tree.load(slice, of: self)
                var start = Int(CPUPathTrie.root)
                if !focus.isEmpty {
                    var steps = focus[...]
                    if case .thread(let index) = steps.first {
                        guard slice.thread == Int32(truncatingIfNeeded: index) else { continue }
                        steps = steps.dropFirst()
                    }
                    guard let node = steps.reduce(Optional(start), { node, step in node.flatMap { tree.trie.child(of: $0, step) } }) else { continue }
                    start = node
                }
                var pending = [start]
                while let node = pending.popLast() {
                    if case .frame(let row) = tree.step(node), node != 0 { found.insert(cpu.frames.name[Int(row)]) }
                    pending.append(contentsOf: tree.trie.children(of: node).lazy.map(Int.init).filter { tree.total($0) > 0 })
                }
            }
            return found
        }
        // Focus paths are in the tree's direction: a bottom-up focus hides nothing a search could name here.
        let shown = names(transformed, under: query.mode == .topDown ? query.focus : [])
        var hidden = HiddenMatches()
        for name in names(plain, under: []) where !shown.contains(name) && string(name).lowercased().contains(needle) {
            hidden.functions += 1
            let rows = (0..<cpu.frames.count).filter { cpu.frames.name[$0] == name }
            let system = query.hideSystemLibraries && rows.allSatisfy { !cpu.frames.isAppCode[$0] }
            let charged = query.chargedToCaller.contains(string(name))
            if system { hidden.hideSystemLibraries += 1 }
            if charged { hidden.chargedToCaller += 1 }
            if !system && !charged && !query.focus.isEmpty { hidden.focus += 1 }
        }
        return hidden
    }
}
