// The stack chart of one thread: its samples in time order, each stack a column of frames
// (callers below callees), consecutive samples sharing a frame drawn as one box. Boxes are the
// call tree's paths (same transforms). The answer is at most what `width` pixels can draw:
// boxes narrower than a pixel merge with their narrow neighbours at the same depth.

public struct StackChartQuery: Sendable, Equatable {
    /// The thread, window (`range`), view (only the samples inside its updates) and transforms; its mode, focus and minPercent are not used.
    public var tree: CallTreeQuery
    public var width: Int
    /// Whatever the width, an answer holds at most this many boxes: past it, the pixel the
    /// boxes are merged at doubles until it fits.
    public var maxBoxes = StackChartQuery.defaultMaxBoxes
    public static let defaultMaxBoxes = 60_000

    public init(tree: CallTreeQuery, width: Int = 1200) {
        self.tree = tree
        self.width = width
    }
}

public struct StackChart: Sendable, Equatable {
    public var start: Nanoseconds
    public var end: Nanoseconds
    public var thread: Int?
    public var unit: CPUWeightUnit
    public var sampleCount: Int
    /// How long one sample stands for when the next one is later (the median gap between samples).
    public var sampleInterval: Nanoseconds
    /// The shortest box drawn on its own (the window over the width).
    public var minDuration: Nanoseconds
    public var names: [String]
    public var binaries: [String]
    public var boxes: StackBoxes
    /// The boxes' files and lines, each once (empty when the recording has none).
    public var sources: [CodeLocation] = []
}

/// Boxes as columns, ordered by depth then start.
public struct StackBoxes: Sendable, Equatable {
    public var depth: [Int] = []
    public var start: [Nanoseconds] = []
    public var end: [Nanoseconds] = []
    public var samples: [Int] = []
    public var name: [Int] = []
    public var binary: [Int] = []
    public var kind: [FlameFrameKind] = []
    /// For a merged box, how many boxes it stands for (a pixel holding more than
    /// `StackChartBuilder.busyColumnSamples` samples counts as one); 0 otherwise.
    public var merged: [Int] = []
    /// Index into `StackChart.sources`, -1 for a box without a file and line.
    public var source: [Int] = []
    public var count: Int { depth.count }
}

extension Trace {
    public func stackChart(_ query: StackChartQuery) -> StackChart {
        var treeQuery = query.tree
        // Time-ordered samples of one thread: no direction or focus; a view keeps the samples
        // inside its updates (a finding's scope: the CPU of a view's long bodies), whole stacks.
        let view = treeQuery.view
        (treeQuery.mode, treeQuery.focus, treeQuery.view) = (.topDown, [], nil)
        let range = treeQuery.range ?? TimeRange(start: metadata.start, end: metadata.end)
        let thread = treeQuery.thread.map { Int32(truncatingIfNeeded: $0) } ?? threads.indices.first { threads[$0].isMain }.map(Int32.init)
        // The samples of the thread in the window, in time order.
        let samples = cpu.samples
        var rows: [Int] = []
        let spans = view.map { updateIntervals(of: $0, in: range).merged } ?? [(range.start, range.end, noRow)]
        for span in spans {
            let (start, end) = (max(span.start, range.start), min(span.end, range.end))
            guard start < end else { continue }
            for i in indexOfFirst(atLeast: start, in: samples.time)..<indexOfFirst(atLeast: end, in: samples.time)
            where (thread == nil || samples.thread[i] == thread!) && (span.thread == noRow || samples.thread[i] == span.thread) {
                rows.append(i)
            }
        }
        // Spans of several threads may interleave: time order, each sample once.
        if spans.count > 1 {
            rows.sort()
            rows = rows.enumerated().compactMap { $0.offset > 0 && rows[$0.offset - 1] == $0.element ? nil : $0.element }
        }
        let interval = Self.medianGap(rows.lazy.map { samples.time[$0] })
        let trie = cpuPathTrie(treeQuery)
        // Each sample's node, deeper stacks charged to their frame at the depth limit.
        let cappedNode = trie.nodesAtDepthLimit()
        let leaves = rows.map { row in Int(cappedNode[Int(trie.nodeOfStack[Int(samples.stack[row])])]) }
        var minDuration = max(1, (range.duration + Int64(max(1, query.width)) - 1) / Int64(max(1, query.width)))
        var chart = StackChartBuilder(trace: self, trie: trie)
        while true {
            chart.run(rows: rows, leaves: leaves, interval: interval, minDuration: minDuration, origin: range.start)
            if chart.boxes.count <= max(1, query.maxBoxes) || minDuration == Int64.max { break }
            minDuration = minDuration.multipliedReportingOverflow(by: 2).overflow ? Int64.max : minDuration * 2
        }
        return StackChart(
            start: range.start, end: range.end, thread: thread.map(Int.init), unit: metadata.cpuWeightUnit, sampleCount: rows.count,
            sampleInterval: interval, minDuration: minDuration, names: chart.names.values, binaries: chart.binaries.values, boxes: chart.boxes,
            sources: chart.sources.values
        )
    }

    /// The median of the gaps between consecutive times (1 ms when there are fewer than two).
    static func medianGap(_ times: some Collection<Nanoseconds>) -> Nanoseconds {
        var gaps: [Nanoseconds] = []
        gaps.reserveCapacity(max(0, times.count - 1))
        var previous: Nanoseconds?
        for time in times {
            if let previous, time > previous { gaps.append(time - previous) }
            previous = time
        }
        guard !gaps.isEmpty else { return 1_000_000 }
        // Past a few thousand gaps, the median of evenly spaced ones: sorting a million costs
        // more than the rest of the chart.
        let stride = max(1, gaps.count / 4096)
        var sorted = stride == 1 ? gaps : Swift.stride(from: 0, to: gaps.count, by: stride).map { gaps[$0] }
        sorted.sort()
        return sorted[sorted.count / 2]
    }
}

/// Turns samples (their leaf node, in time order) into boxes: one open box per depth of the
/// current stack, closed when a sample leaves it; closed boxes narrower than `minDuration` join a
/// merged run at their depth. Work per sample is the depth where its stack parts from the last
/// one, except in a busy pixel (a `minDuration` column holding more than `busyColumnSamples`
/// samples): there only the stack all its samples share opens and closes boxes, and what is
/// below it is one merged box per depth (its samples counted exactly), so the work is linear in
/// the samples plus pixels times depth, whatever the stacks.
struct StackChartBuilder {
    let trace: Trace
    let trie: CPUPathTrie
    var boxes = StackBoxes()
    var names = StringTable()
    var binaries = StringTable()
    var sources = SourceTable()
    static let busyColumnSamples = 8

    /// An open box: its node, start, and the index of its first sample.
    private struct Box { var node: Int, start: Nanoseconds, first: Int }
    /// Narrow boxes waiting at a depth; `node` -1: it stands for part of a busy pixel, never drawn as a frame.
    private struct Run { var start: Nanoseconds, end: Nanoseconds, samples: Int, count: Int, node: Int }

    init(trace: Trace, trie: CPUPathTrie) {
        self.trace = trace
        self.trie = trie
    }

    /// A box's depth: the trie's root (no frame) is above the top row.
    private func depthOf(_ node: Int) -> Int { Int(trie.depth[node]) - 1 }

    /// `origin`: where pixel columns start (the window's start).
    mutating func run(rows: [Int], leaves: [Int], interval: Nanoseconds, minDuration: Nanoseconds, origin: Nanoseconds) {
        var columns: [[(start: Nanoseconds, end: Nanoseconds, samples: Int, merged: Int, node: Int)]] = []
        var open: [Box] = []          // open[d]: the box at depth d of the current stack
        var runs: [Run?] = []          // the narrow boxes waiting at each depth
        var openEnd: Nanoseconds = 0   // where the open boxes end (the last sample's end)
        let times = trace.cpu.samples.time

        func emit(_ depth: Int, _ start: Nanoseconds, _ end: Nanoseconds, _ samples: Int, merged: Int, node: Int) {
            while columns.count <= depth { columns.append([]) }
            columns[depth].append((start, end, samples, merged, node))
        }
        func flushRun(_ depth: Int) {
            guard depth < runs.count, let run = runs[depth] else { return }
            runs[depth] = nil
            let isMerged = run.count > 1 || run.node < 0
            emit(depth, run.start, run.end, run.samples, merged: isMerged ? run.count : 0, node: isMerged ? -1 : run.node)
        }
        /// A box narrower than a pixel at `d`: joins the run there when it is less than a pixel after it.
        func addNarrow(_ d: Int, start: Nanoseconds, end: Nanoseconds, samples: Int, node: Int) {
            while runs.count <= d { runs.append(nil) }
            if let run = runs[d], start - run.end < minDuration {
                runs[d] = Run(start: run.start, end: end, samples: run.samples + samples, count: run.count + 1, node: run.node)
                if end - run.start >= minDuration { flushRun(d) }
            } else {
                flushRun(d)
                runs[d] = Run(start: start, end: end, samples: samples, count: 1, node: node)
            }
        }
        // Boxes close before sample `index` (the samples from their first one up to it were theirs).
        func close(downTo depth: Int, at index: Int) {
            while open.count > depth {
                let d = open.count - 1
                let opened = open.removeLast()
                if openEnd - opened.start >= minDuration {
                    flushRun(d)
                    emit(d, opened.start, openEnd, index - opened.first, merged: 0, node: opened.node)
                } else {
                    addNarrow(d, start: opened.start, end: openEnd, samples: index - opened.first, node: opened.node)
                }
            }
        }

        var chain: [Int] = []
        // Samples of a busy pixel by their stack's depth (reset after each).
        var samplesAtDepth = [Int](repeating: 0, count: CallTreeQuery.maxDepth + 2)
        var i = 0
        while i < rows.count {
            if QueryCancellation.requested(at: i) { break }
            let time = times[rows[i]]
            // The samples of this pixel column: [i, last).
            let column = (time - origin) / minDuration
            var last = i + 1
            while last < rows.count, (times[rows[last]] - origin) / minDuration == column { last += 1 }
            let busy = last - i > Self.busyColumnSamples
            if !busy { last = i + 1 }
            let lastTime = times[rows[last - 1]]
            let next = last < rows.count ? times[rows[last]] : lastTime + interval
            let end = lastTime + max(1, min(interval, next - lastTime))
            // The stack drawn: the sample's, or in a busy pixel the part all its samples share.
            var leaf = leaves[i]
            var deepest = 0
            if busy {
                for k in i..<last {
                    let node = leaves[k]
                    while !trie.isUnder(node, leaf) { leaf = Int(trie.parent[leaf]) }
                    let depth = Int(trie.depth[node])
                    samplesAtDepth[depth] += 1
                    deepest = max(deepest, depth)
                }
            }
            // A gap (the thread was not sampled) closes every box.
            if time > openEnd { close(downTo: 0, at: i) }
            // The stack's nodes root first; the common part with the open boxes stays open.
            chain.removeAll(keepingCapacity: true)
            var node = leaf
            // Walk up until the node is one the open boxes hold (or the root).
            while node > 0, !(depthOf(node) < open.count && open[depthOf(node)].node == node) {
                chain.append(node)
                node = Int(trie.parent[node])
            }
            let common = node <= 0 ? 0 : depthOf(node) + 1
            close(downTo: common, at: i)
            if busy {
                // Below the shared stack: one merged box per depth, with the samples that reach it.
                var reaching = 0
                for depth in stride(from: deepest, to: Int(trie.depth[leaf]), by: -1) {
                    reaching += samplesAtDepth[depth]
                    addNarrow(depth - 1, start: time, end: end, samples: reaching, node: -1)
                }
                for depth in 0...deepest { samplesAtDepth[depth] = 0 }
            }
            for node in chain.reversed() { open.append(Box(node: node, start: time, first: i)) }
            openEnd = end
            i = last
        }
        close(downTo: 0, at: rows.count)
        for d in runs.indices { flushRun(d) }

        boxes = StackBoxes()
        names = StringTable()
        binaries = StringTable()
        sources = SourceTable()
        for (depth, column) in columns.enumerated() {
            for box in column.sorted(by: { $0.start < $1.start }) {
                boxes.depth.append(depth)
                boxes.start.append(box.start)
                boxes.end.append(box.end)
                boxes.samples.append(box.samples)
                boxes.merged.append(box.merged)
                if box.node < 0 {
                    boxes.name.append(names.add("\(box.merged) frames"))
                    boxes.binary.append(binaries.add(""))
                    boxes.kind.append(.merged)
                    boxes.source.append(-1)
                } else {
                    let step = trie.step(box.node)
                    let (name, binary, isAppCode) = trace.callPathText(step, view: "")
                    boxes.name.append(names.add(name))
                    boxes.binary.append(binaries.add(binary))
                    boxes.kind.append(FlameLayout.kind(of: step, binary: binary, isAppCode: isAppCode))
                    boxes.source.append(sources.add(trace.sourceLocation(of: step)))
                }
            }
        }
    }
}

extension StackChart {
    /// The API's JSON: boxes as columns (docs/api.md, "Stack chart").
    public func json() -> [UInt8] {
        var out = JSONWriter()
        out.raw("{\"start\":"); out.int(start)
        out.raw(",\"end\":"); out.int(end)
        out.raw(",\"thread\":"); if let thread { out.int(Int64(thread)) } else { out.raw("null") }
        out.raw(",\"unit\":"); out.string(unit.rawValue)
        out.raw(",\"sampleCount\":"); out.int(Int64(sampleCount))
        out.raw(",\"sampleInterval\":"); out.int(sampleInterval)
        out.raw(",\"minDuration\":"); out.int(minDuration)
        out.raw(",\"names\":"); out.strings(names)
        out.raw(",\"binaries\":"); out.strings(binaries)
        if !sources.isEmpty { out.raw(",\"sources\":"); out.sourceLocations(sources) }
        out.raw(",\"boxes\":{\"depth\":"); out.ints(boxes.depth.map(Int64.init))
        out.raw(",\"start\":"); out.ints(boxes.start)
        out.raw(",\"end\":"); out.ints(boxes.end)
        out.raw(",\"samples\":"); out.ints(boxes.samples.map(Int64.init))
        out.raw(",\"name\":"); out.ints(boxes.name.map(Int64.init))
        out.raw(",\"binary\":"); out.ints(boxes.binary.map(Int64.init))
        out.raw(",\"kind\":"); out.strings(boxes.kind.map(\.rawValue))
        out.raw(",\"merged\":"); out.ints(boxes.merged.map(Int64.init))
        if !sources.isEmpty { out.raw(",\"source\":"); out.ints(boxes.source.map(Int64.init)) }
        out.raw("}}")
        return out.bytes
    }
}
