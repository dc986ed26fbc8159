// CPU call tree of the Time Profiler samples in a range: top-down (threads, then callers before
// callees) or bottom-up (the functions that were on CPU, then who called them).

public struct CallTreeQuery: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable {
        case topDown = "top-down"
        case bottomUp = "bottom-up"
    }

    public var range: TimeRange?
    public var mode: Mode
    /// Thread row, or nil for all threads.
    public var thread: Int?
    /// Nodes lighter than this share of the total are folded into their parent's self weight.
    public var minPercent: Double

    public init(range: TimeRange? = nil, mode: Mode = .topDown, thread: Int? = nil, minPercent: Double = 0.1) {
        self.range = range
        self.mode = mode
        self.thread = thread
        self.minPercent = minPercent
    }
}

public struct CallTreeNode: Sendable, Equatable, Encodable {
    public var name: String
    public var binary: String
    public var isAppCode: Bool
    /// Weight (ns of CPU) of samples in this node and below.
    public var total: Nanoseconds
    /// Weight of samples that stopped here, plus folded light children (JSON key "self").
    public var selfWeight: Nanoseconds
    public var children: [CallTreeNode]

    enum CodingKeys: String, CodingKey {
        case name, binary, isAppCode, total, selfWeight = "self", children
    }
}

public struct CallTree: Sendable, Equatable, Encodable {
    public var start: Nanoseconds
    public var end: Nanoseconds
    public var mode: String
    public var totalWeight: Nanoseconds
    public var sampleCount: Int
    public var roots: [CallTreeNode]
}

extension Trace {
    public func callTree(_ query: CallTreeQuery) -> CallTree {
        let samples = cpu.samples
        let range = query.range ?? TimeRange(start: metadata.start, end: metadata.end)
        let first = indexOfFirst(atLeast: range.start, in: samples.time)
        let last = query.range == nil ? samples.count : indexOfFirst(atLeast: range.end, in: samples.time)

        // Samples share stacks: add weights per (thread, stack) first, walk each stack once.
        struct Key: Hashable { var thread: Int32, stack: UInt32 }
        var weights: [Key: Nanoseconds] = [:]
        var total: Nanoseconds = 0
        var sampleCount = 0
        for i in first..<max(first, last) {
            let thread = samples.thread[i]
            if let wanted = query.thread, Int(thread) != wanted { continue }
            weights[Key(thread: query.mode == .topDown ? thread : noRow, stack: samples.stack[i]), default: 0].addSaturating(samples.weight[i])
            total.addSaturating(samples.weight[i])
            sampleCount += 1
        }

        let root = MutableNode(frame: nil)
        for (key, weight) in weights {
            var frames = cpu.stacks.frames(of: Int(key.stack))
            if query.mode == .bottomUp { frames.reverse() }
            var node = root
            if query.mode == .topDown { node = node.child(threadKey: key.thread) }
            node.total += weight
            for frame in frames {
                node = node.child(frame: frame)
                node.total += weight
            }
            // Bottom-up roots are the functions on CPU: their self weight is their whole weight.
            if query.mode == .topDown { node.selfWeight += weight }
        }
        if query.mode == .bottomUp {
            for child in root.children.values { child.selfWeight = child.total }
        }

        let threshold = Double(total) * query.minPercent / 100
        let roots: [CallTreeNode]
        if query.mode == .topDown {
            // Main thread first, then threads in table order.
            let threadOrder = root.children.values.filter { Double($0.total) >= threshold && $0.total > 0 }
                .map(\.key.threadIndex)
                .sorted { (isMainThread($0) ? 0 : 1, $0) < (isMainThread($1) ? 0 : 1, $1) }
            roots = threadOrder.compactMap { root.children[.thread($0)].flatMap { freeze($0, threshold: threshold) } }
        } else {
            roots = root.children.values.compactMap { freeze($0, threshold: threshold) }
                .sorted { ($0.total, $1.name) > ($1.total, $0.name) }
        }
        return CallTree(start: range.start, end: range.end, mode: query.mode.rawValue, totalWeight: total, sampleCount: sampleCount, roots: roots)
    }

    private func isMainThread(_ index: Int) -> Bool { index >= 0 && index < threads.count && threads[index].isMain }

    private func freeze(_ node: MutableNode, threshold: Double) -> CallTreeNode? {
        guard Double(node.total) >= threshold, node.total > 0 else { return nil }
        var selfWeight = node.selfWeight
        var children: [CallTreeNode] = []
        for child in node.children.values {
            if let frozen = freeze(child, threshold: threshold) {
                children.append(frozen)
            } else {
                selfWeight += child.total
            }
        }
        children.sort { ($0.total, $1.name) > ($1.total, $0.name) }
        switch node.key {
        case .thread(let index):
            let name = index >= 0 && index < threads.count ? threads[index].name : "Unknown thread"
            return CallTreeNode(name: name, binary: "", isAppCode: false, total: node.total, selfWeight: selfWeight, children: children)
        case .frame(let frame):
            let frames = cpu.frames
            return CallTreeNode(
                name: string(frames.name[Int(frame)]), binary: string(frames.binary[Int(frame)]),
                isAppCode: frames.isAppCode[Int(frame)], total: node.total, selfWeight: selfWeight, children: children
            )
        case .root:
            return nil
        }
    }
}

/// Tree under construction; a class so that a walk down a stack can add to each node in place.
private final class MutableNode {
    enum Key: Hashable {
        case root
        case thread(Int)
        case frame(UInt32)
        var threadIndex: Int { if case .thread(let index) = self { index } else { -1 } }
    }

    let key: Key
    var total: Nanoseconds = 0
    var selfWeight: Nanoseconds = 0
    var children: [Key: MutableNode] = [:]

    init(frame: UInt32?) { key = frame.map(Key.frame) ?? .root }
    init(key: Key) { self.key = key }

    func child(frame: UInt32) -> MutableNode { child(.frame(frame)) }
    func child(threadKey thread: Int32) -> MutableNode { child(.thread(Int(thread))) }

    private func child(_ key: Key) -> MutableNode {
        if let node = children[key] { return node }
        let node = MutableNode(key: key)
        children[key] = node
        return node
    }
}
