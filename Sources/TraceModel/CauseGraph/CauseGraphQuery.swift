/// The cause & effect graph the browser draws, extracted from `Trace.graph` and laid out.
///
/// - For one update: the update's nodes, every cause reached by walking edges backwards, and the
///   direct effects of all of those (so a shared cause shows everything else it updated: the
///   Gesture -> @Observable -> every list item story).
/// - For a view in a time range: the same for each of the view's updates, merged by node identity
///   (kind + name + owner + app/system), edges merged by (source, target, label) with counts.
/// Large fan-outs of look-alike leaves are folded into one "+ N more" node unless expanded.
public struct CauseGraphDocument: Sendable, Equatable, Encodable {
    public var nodes: [Node]
    public var edges: [Edge]
    public var width: Double
    public var height: Double
    /// Merged edges left out to keep the drawing readable (weakest first); 0 normally.
    public var omittedEdges = 0
    /// Nodes left out past `CauseGraphMetrics.maxNodes` (the farthest from the focus); 0 normally.
    public var omittedNodes = 0

    public struct Node: Sendable, Equatable, Encodable {
        /// "n<row>" (the first merged row of the trace's node table), or the group key of a folded
        /// fan-out ("gn<row>-<k>"). Stable across `expand` requests and across graphs of one trace.
        public var id: String
        public var kind: String
        public var title: String
        public var subtitle: String
        public var isAppCode: Bool
        /// A view body that was notified but never ran (in none of the merged appearances).
        public var dimmed: Bool
        /// The node stands for the update (or view) the graph was opened for.
        public var focus: Bool
        /// Appearances merged into this node.
        public var count: Int
        /// Updates (rows of the update table) this node stands for, ascending: the first
        /// `CauseGraphMetrics.maxNodeUpdates` of `updateCount`.
        public var updates: [Int]
        public var updateCount: Int
        /// Nodes with the same key stand for the same update or event; null when unique in this graph.
        @NullWhenAbsent public var sameUpdateKey: String?
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double
        @NullWhenAbsent public var collapsed: Collapsed?
        /// Where a State / @Observable value was written, leaf frame first (see `CappedBacktrace`;
        /// a graph carries at most `CauseGraphMetrics.maxBacktraceFrames` frames in all).
        @NullWhenAbsent public var backtrace: [BacktraceFrame]?
        /// The write's stack held more frames than `backtrace` lists.
        public var backtraceTruncated = false
        /// A `swift-task` node: the Swift task it stands for, to open its details.
        @NullWhenAbsent public var task: TaskLink?
        /// The node's weight: what its updates made run after them, summed (Instruments 27's
        /// `downstream-cost`, the count of `downstream-events`). Null when the recording has no
        /// such measure, so an older recording never reads as zero.
        @NullWhenAbsent public var downstreamNs: Nanoseconds? = nil
        @NullWhenAbsent public var downstreamEvents: Int? = nil
    }

    /// A Swift task in the cause chain of a state change (docs/cause-graph.md, "Swift tasks").
    public struct TaskLink: Sendable, Equatable, Encodable {
        /// Row of `Trace.taskStates` to open (`…/task-states/{row}`): the run that wrote the
        /// state, the creator's first state, or the wait.
        public var taskState: Int
        /// Row of `Trace.tasks`.
        public var task: Int
        /// "ran": ran on the Main Actor and wrote the state; "created": created that task;
        /// "waited": waited for the Main Actor while that task ran.
        public var role: String
        /// How the state change was tied to the run ("thread", "backtrace", "time"); null for the other roles.
        @NullWhenAbsent public var basis: TaskWriteBasis?
        /// The run's, or the wait's time behind it.
        public var durationNs: Nanoseconds
    }

    public struct Collapsed: Sendable, Equatable, Encodable {
        /// Pass as `expand=<key>` to show the members as nodes.
        public var key: String
        /// How many members the node stands for; `members` lists the first `CauseGraphMetrics.maxMembers`.
        public var more: Int
        public var members: [Member]
    }

    public struct Member: Sendable, Equatable, Encodable {
        public var id: String
        public var title: String
        /// The member's first `CauseGraphMetrics.maxMemberUpdates` updates.
        public var updates: [Int]
        public var dimmed: Bool
    }

    public struct Edge: Sendable, Equatable, Encodable {
        public var from: String
        public var to: String
        public var label: String
        public var count: Int
        /// Changed properties that travelled along the edge, comma separated, or "": the first
        /// `CauseGraphMetrics.maxEdgeProperties`, then "and N more".
        public var property: String
        /// Polyline [[x, y], ...] from the source's right side to the target's left side.
        public var points: [[Double]]
    }
}

/// Folding thresholds: more than `limit` look-alike leaves under one parent keep `visible` of them.
public struct FanOutPolicy: Sendable {
    public var limit: Int
    public var visible: Int
    public init(limit: Int = 12, visible: Int = 5) {
        self.limit = limit
        self.visible = visible
    }
}

extension Trace {
    /// The graph for one update; nil when `update` is not a row of the update table.
    public func causeGraph(ofUpdate update: Int, expand: Set<String> = [], fanOut: FanOutPolicy = FanOutPolicy()) -> CauseGraphDocument? {
        guard update >= 0 && update < updates.count else { return nil }
        let focus = Array(indexes.nodes(ofUpdate: update))
        let selection = causeGraphSelection(from: focus)
        return causeGraphDocument(
            selection: selection, focus: Set(focus), identity: { $0 }, expand: expand, fanOut: fanOut, taskChains: true
        )
    }

    /// The merged graph of every update of `view` (in `module`) that overlaps `range` (nil = whole
    /// trace), and of the view's bodies notified in `range` that did not run.
    public func causeGraph(
        ofView view: String, module: String, in range: TimeRange? = nil,
        expand: Set<String> = [], fanOut: FanOutPolicy = FanOutPolicy()
    ) -> CauseGraphDocument {
        var focus: [UInt32] = []
        // Interned references, not texts, in the loops (a name can be as long as its file); only the view's own updates.
        let viewRef = ref(of: view) ?? .max, moduleRef = ref(of: module)
        for (step, row) in indexes.lists.viewLists(self).updates(ofView: viewRef, byDuration: false).lazy.map(Int.init).enumerated() {
            if QueryCancellation.requested(at: step) { break }
            guard updates.module[row] == moduleRef, range?.overlaps(start: updates.start[row], end: updates.end(row)) ?? true else { continue }
            focus.append(contentsOf: indexes.nodes(ofUpdate: row))
        }
        focus.append(contentsOf: notifiedNotRun(view: viewRef, besides: focus, in: range))
        let selection = causeGraphSelection(from: focus, siblings: false)
        let nodes = graph.nodes
        return causeGraphDocument(
            selection: selection, focus: Set(focus),
            identity: { MergedIdentity(kind: nodes.kind[Int($0)], name: nodes.name[Int($0)], owner: nodes.owner[Int($0)], isAppCode: nodes.isAppCode[Int($0)]) },
            expand: expand, fanOut: fanOut, nodeLimit: CauseGraphMetrics.maxViewGraphNodes
        )
    }

    /// Body nodes of `view` that were notified but did not run (no update row stands for them), so
    /// a view's graph shows why it was checked (View2 after a color scheme change), not only its runs.
    /// When the view ran (`ran` non-empty), only nodes on the same side (app / system) count.
    private func notifiedNotRun(view: StringRef, besides ran: [UInt32], in range: TimeRange?) -> [UInt32] {
        let nodes = graph.nodes
        let side = ran.first.map { nodes.isAppCode[Int($0)] }
        var found: [UInt32] = []
        for node in 0..<nodes.count where nodes.kind[node] == .viewBody && nodes.update[node] == noRow && nodes.name[node] == view {
            guard side.map({ $0 == nodes.isAppCode[node] }) ?? true,
                  range?.overlaps(start: nodes.timestamp[node], end: nodes.timestamp[node]) ?? true else { continue }
            found.append(UInt32(node))
        }
        return found
    }

    /// Raw nodes and edges: the focus nodes, all their transitive causes, and direct effects: of
    /// every cause too when `siblings` (one update: what else its causes updated), else of the
    /// focus only (a view's merged graph, where the siblings of thousands of updates are noise).
    func causeGraphSelection(from focus: [UInt32], siblings: Bool = true) -> (nodes: [UInt32], edges: [UInt32]) {
        var ancestors = Set(focus)
        var edges = Set<UInt32>()
        var queue = focus
        while let node = queue.popLast() {
            for edge in graph.incoming(Int(node)) {
                edges.insert(edge)
                let source = graph.edges.source[Int(edge)]
                if ancestors.insert(source).inserted { queue.append(source) }
            }
        }
        var nodes = ancestors
        for node in siblings ? Array(ancestors) : focus {
            for edge in graph.outgoing(Int(node)) {
                edges.insert(edge)
                nodes.insert(graph.edges.target[Int(edge)])
            }
        }
        return (nodes.sorted(), edges.sorted())
    }

    private func causeGraphDocument<Key: Hashable>(
        selection: (nodes: [UInt32], edges: [UInt32]), focus: Set<UInt32>, identity: (UInt32) -> Key,
        expand: Set<String>, fanOut: FanOutPolicy, nodeLimit: Int? = nil, taskChains: Bool = false
    ) -> CauseGraphDocument {
        // Merge raw nodes by identity, in order of first appearance (raw rows keep the source's order).
        var merged: [MergedNode] = []
        var indexOfKey: [Key: Int] = [:]
        var mergedOfRaw: [UInt32: Int] = [:]
        for raw in selection.nodes {
            let key = identity(raw)
            let index: Int
            if let existing = indexOfKey[key] {
                index = existing
            } else {
                index = merged.count
                indexOfKey[key] = index
                merged.append(MergedNode(first: Int(raw)))
            }
            merged[index].raw.append(raw)
            mergedOfRaw[raw] = index
        }
        let nodes = graph.nodes
        for i in merged.indices {
            var ids = Set<Int>()
            for raw in merged[i].raw {
                let update = nodes.update[Int(raw)]
                if update != noRow { ids.insert(Int(update)) }
                if nodes.didRun(Int(raw)) { merged[i].ran += 1 }
                if focus.contains(raw) { merged[i].focus = true }
            }
            merged[i].updates = ids.sorted()
        }

        // Merge edges by (source, target, label); self-loops left by merging say nothing.
        var edges: [MergedEdge] = []
        var edgeIndex: [MergedEdgeKey: Int] = [:]
        for raw in selection.edges {
            let e = Int(raw)
            guard let from = mergedOfRaw[graph.edges.source[e]], let to = mergedOfRaw[graph.edges.target[e]], from != to else { continue }
            let key = MergedEdgeKey(from: from, to: to, label: graph.edges.label[e])
            let index: Int
            if let existing = edgeIndex[key] {
                index = existing
            } else {
                index = edges.count
                edgeIndex[key] = index
                edges.append(MergedEdge(from: from, to: to, label: key.label))
            }
            edges[index].count += 1
            let property = graph.edges.changedProperty[e]
            if property != 0 { edges[index].properties.insert(property) }
        }

        var folds: [NeighbourFold] = []
        var omittedEdges = 0
        if let nodeLimit, merged.count > nodeLimit {
            (folds, omittedEdges) = Self.keepClosestNodes(&merged, &edges, limit: nodeLimit, expand: expand)
        }
        omittedEdges += Self.keepStrongestEdges(&edges, limit: CauseGraphMetrics.maxEdges)
        if omittedEdges > 0 {
            // Nodes whose every edge was thinned away would float unconnected: leave them out too.
            var linked = Set(edges.flatMap { [$0.from, $0.to] })
            linked.formUnion(merged.indices.filter { merged[$0].focus })
            let kept = merged.indices.filter(linked.contains)
            var newIndex = [Int: Int]()
            for (new, old) in kept.enumerated() { newIndex[old] = new }
            merged = kept.map { merged[$0] }
            for i in edges.indices {
                edges[i].from = newIndex[edges[i].from]!
                edges[i].to = newIndex[edges[i].to]!
            }
            for i in folds.indices { folds[i].node = newIndex[folds[i].node] ?? -1 }
            folds.removeAll { $0.node < 0 }
        }

        // Ids name the first raw node, so they hold across expansions and across graphs of one trace.
        var drawn = merged.map { drawnNode(for: $0, id: "n\($0.first)") }
        var drawnEdges = edges.map { edge in
            DrawnEdge(
                from: edge.from, to: edge.to, label: edge.label.wireName, count: edge.count,
                property: edge.properties.text(string)
            )
        }
        for fold in folds { appendFold(fold, to: &drawn, edges: &drawnEdges) }
        (drawn, drawnEdges) = foldFanOuts(nodes: drawn, edges: drawnEdges, expand: expand, policy: fanOut)
        // Task chains only for the nodes kept; what they add is farthest from the focus, cut last.
        var left = Self.keepNearestNodes(&drawn, &drawnEdges, limit: CauseGraphMetrics.maxNodes)
        if taskChains {
            appendTaskChains(to: &drawn, edges: &drawnEdges)
            let chainsLeft = Self.keepNearestNodes(&drawn, &drawnEdges, limit: CauseGraphMetrics.maxNodes)
            left = (left.nodes + chainsLeft.nodes, left.edges + chainsLeft.edges)
        }
        assignSameUpdateKeys(&drawn)
        var document = laidOut(nodes: drawn, edges: drawnEdges, expand: expand)
        document.omittedEdges = omittedEdges + left.edges
        document.omittedNodes = left.nodes
        return document
    }

    /// The last bound on a graph's size, whatever the trace (300 causes of one update, a fold
    /// opened on 100,000 members): keeps the focus, then the nodes nearest to it, breadth first
    /// along edges either way, heaviest edge first. Kept nodes keep their order. Returns how many
    /// nodes and edges were left out.
    private static func keepNearestNodes(_ nodes: inout [DrawnNode], _ edges: inout [DrawnEdge], limit: Int) -> (nodes: Int, edges: Int) {
        guard nodes.count > limit else { return (0, 0) }
        var neighbours = [[Int]](repeating: [], count: nodes.count)  // edge indexes
        for (i, edge) in edges.enumerated() {
            neighbours[edge.from].append(i)
            neighbours[edge.to].append(i)
        }
        var kept = [Bool](repeating: false, count: nodes.count)
        var queue: [Int] = []
        for i in nodes.indices where nodes[i].focus && queue.count < limit {
            kept[i] = true
            queue.append(i)
        }
        var next = 0
        while next < queue.count, queue.count < limit {
            let node = queue[next]
            next += 1
            let heaviestFirst = neighbours[node].sorted { (edges[$0].count, $1) > (edges[$1].count, $0) }
            for e in heaviestFirst where queue.count < limit {
                let other = edges[e].from == node ? edges[e].to : edges[e].from
                guard !kept[other] else { continue }
                kept[other] = true
                queue.append(other)
            }
        }
        // Nodes not connected to the focus (none in a graph grown from it) fill what is left.
        for i in nodes.indices where !kept[i] && queue.count < limit {
            kept[i] = true
            queue.append(i)
        }
        var newIndex = [Int](repeating: -1, count: nodes.count)
        var keptNodes: [DrawnNode] = []
        for i in nodes.indices where kept[i] {
            newIndex[i] = keptNodes.count
            keptNodes.append(nodes[i])
        }
        let keptEdges = edges.compactMap { edge -> DrawnEdge? in
            guard newIndex[edge.from] >= 0, newIndex[edge.to] >= 0 else { return nil }
            var moved = edge
            (moved.from, moved.to) = (newIndex[edge.from], newIndex[edge.to])
            return moved
        }
        defer { (nodes, edges) = (keptNodes, keptEdges) }
        return (nodes.count - keptNodes.count, edges.count - keptEdges.count)
    }

    /// A view's merged graph can hold hundreds of causes (every view that ever ran just before it):
    /// keeps the `limit` nodes most strongly tied to the focus, growing from it along the heaviest
    /// edge each time (causes transitively, effects of the focus one step), and folds the focus
    /// nodes' other causes and effects into one "+ N other causes / effects" node each, which
    /// `expand` (its key) opens. Returns the folds and how many edges were left out without one.
    private static func keepClosestNodes(
        _ merged: inout [MergedNode], _ edges: inout [MergedEdge], limit: Int, expand: Set<String>
    ) -> (folds: [NeighbourFold], omitted: Int) {
        var incoming = [[Int]](repeating: [], count: merged.count)
        var outgoing = [[Int]](repeating: [], count: merged.count)
        for (i, edge) in edges.enumerated() {
            incoming[edge.to].append(i)
            outgoing[edge.from].append(i)
        }
        let focus = merged.indices.filter { merged[$0].focus }
        var kept = Set(focus)
        let isFocus = Set(focus)
        var candidates: [Int] = []  // edge indexes reaching out of the kept set
        var attaching = Set<Int>()  // the edge each kept node came in by: the picture stays a tree around the focus
        func keep(_ node: Int, asCause: Bool) {
            kept.insert(node)
            if asCause { candidates += incoming[node] }
        }
        for node in focus {
            candidates += incoming[node] + outgoing[node]
            // An opened fold shows every neighbour on its side, over the limit.
            if expand.contains(NeighbourFold.key(node: merged[node].first, causes: true)) {
                for e in incoming[node] where !kept.contains(edges[e].from) { keep(edges[e].from, asCause: true) }
            }
            if expand.contains(NeighbourFold.key(node: merged[node].first, causes: false)) {
                for e in outgoing[node] { kept.insert(edges[e].to) }
            }
        }
        while kept.count < limit {
            // The heaviest edge to a node not kept yet (ties: the earlier edge); limit x edges steps at most.
            var best: Int?
            for e in candidates {
                let other = kept.contains(edges[e].to) ? edges[e].from : edges[e].to
                guard !kept.contains(other) else { continue }
                if best.map({ edges[e].count > edges[$0].count || (edges[e].count == edges[$0].count && e < $0) }) ?? true { best = e }
            }
            guard let e = best else { break }
            attaching.insert(e)
            let isCause = kept.contains(edges[e].to)
            keep(isCause ? edges[e].from : edges[e].to, asCause: isCause)
        }

        var folds: [NeighbourFold] = []
        var foldedEdges = 0
        for node in focus {
            for causes in [true, false] {
                let dropped = (causes ? incoming[node] : outgoing[node]).filter { !kept.contains(causes ? edges[$0].from : edges[$0].to) }
                guard !dropped.isEmpty else { continue }
                foldedEdges += dropped.count
                var fold = NeighbourFold(node: node, causes: causes, members: [], count: 0, label: edges[dropped[0]].label, memberOf: merged[node].first)
                var seen = Set<Int>()
                var countByLabel: [EdgeLabel: Int] = [:]
                for e in dropped {
                    fold.count += edges[e].count
                    countByLabel[edges[e].label, default: 0] += edges[e].count
                    let member = causes ? edges[e].from : edges[e].to
                    if seen.insert(member).inserted { fold.members.append(merged[member]) }
                }
                fold.label = countByLabel.max { ($0.value, $1.key.wireName) < ($1.value, $0.key.wireName) }!.key
                folds.append(fold)
            }
        }
        let order = merged.indices.filter(kept.contains)
        var newIndex = [Int: Int]()
        for (new, old) in order.enumerated() { newIndex[old] = new }
        let before = edges.count
        edges = edges.enumerated().compactMap { index, edge in
            guard let from = newIndex[edge.from], let to = newIndex[edge.to],
                  isFocus.contains(edge.from) || isFocus.contains(edge.to) || attaching.contains(index) else { return nil }
            var moved = edge
            (moved.from, moved.to) = (from, to)
            return moved
        }
        merged = order.map { merged[$0] }
        for i in folds.indices { folds[i].node = newIndex[folds[i].node]! }
        return (folds, max(0, before - edges.count - foldedEdges))
    }

    /// One "+ N other causes" (or effects) node next to `fold.node`, with its edge.
    private func appendFold(_ fold: NeighbourFold, to nodes: inout [DrawnNode], edges: inout [DrawnEdge]) {
        let nodeTable = graph.nodes
        let kinds = Set(fold.members.map { nodeTable.kind[$0.first] })
        let kind = kinds.count == 1 ? kinds.first! : .other
        let appCount = fold.members.filter { nodeTable.isAppCode[$0.first] }.count
        let noun = fold.causes ? "cause" : "effect"
        let key = NeighbourFold.key(node: fold.memberOf, causes: fold.causes)
        // Members list the first updates only: a member can stand for thousands.
        let members = fold.members.prefix(CauseGraphMetrics.maxMembers).map { member in
            CauseGraphDocument.Member(
                id: "n\(member.first)", title: string(nodeTable.name[member.first]).isEmpty ? nodeTable.kind[member.first].displayName : string(nodeTable.name[member.first]),
                updates: Array(member.updates.prefix(CauseGraphMetrics.maxMemberUpdates)), dimmed: nodeTable.kind[member.first] == .viewBody && member.ran == 0
            )
        }
        nodes.append(DrawnNode(
            id: key, kind: kind, title: "+ \(fold.members.count) other \(noun)\(fold.members.count == 1 ? "" : "s")",
            subtitle: kinds.count == 1 ? kind.displayName : "\(appCount) app, \(fold.members.count - appCount) system",
            isAppCode: appCount * 2 > fold.members.count, dimmed: false, focus: false, count: fold.count, updates: [], eventIDs: [],
            identity: MergedIdentity(kind: kind, name: 0, owner: 0, isAppCode: false), writeStack: nil,
            collapsed: CauseGraphDocument.Collapsed(key: key, more: fold.members.count, members: members)
        ))
        let group = nodes.count - 1
        edges.append(DrawnEdge(
            from: fold.causes ? group : fold.node, to: fold.causes ? fold.node : group, label: fold.label.wireName, count: fold.count, property: ""
        ))
    }

    /// Keeps at most about `limit` merged edges so a graph stays drawable: every node's strongest
    /// cause, then the highest counts. Returns how many were left out.
    private static func keepStrongestEdges(_ edges: inout [MergedEdge], limit: Int) -> Int {
        guard edges.count > limit else { return 0 }
        var strongestInto: [Int: Int] = [:]
        for (i, edge) in edges.enumerated() {
            if let best = strongestInto[edge.to], edges[best].count >= edge.count { continue }
            strongestInto[edge.to] = i
        }
        var keep = Set(strongestInto.values)
        let byCount = edges.indices.sorted { (edges[$0].count, $1) > (edges[$1].count, $0) }
        for i in byCount where keep.count < limit { keep.insert(i) }
        let before = edges.count
        edges = edges.indices.filter(keep.contains).map { edges[$0] }
        return before - edges.count
    }

    private func drawnNode(for node: MergedNode, id: String) -> DrawnNode {
        let nodes = graph.nodes
        let kind = nodes.kind[node.first]
        let name = string(nodes.name[node.first])
        let owner = string(nodes.owner[node.first])
        let dimmed = kind == .viewBody && node.ran == 0
        var title = name.isEmpty ? kind.displayName : name
        // The second line adds what the title does not say: the owner, else the kind, else app/system.
        var subtitle = !owner.isEmpty ? owner : title.hasPrefix(kind.displayName) ? (nodes.isAppCode[node.first] ? "App" : "System") : kind.displayName
        if let pass = layoutPass(of: node.updates) {
            // An Instruments 27 layout pass: "TripCard · layout (sizeThatFits)" over its layout type.
            title = pass.title(of: title)
            subtitle = pass.layoutType ?? subtitle
        }
        if kind == .viewBody {
            if dimmed {
                subtitle = "body not run"
            } else if node.ran < node.raw.count {
                subtitle = "body ran \(node.ran) of \(node.raw.count)"
            }
        }
        return DrawnNode(
            id: id, kind: kind, title: title, subtitle: subtitle,
            isAppCode: nodes.isAppCode[node.first], dimmed: dimmed, focus: node.focus, count: node.raw.count,
            updates: node.updates, eventIDs: Set(node.raw.map { nodes.eventID[Int($0)] }),
            identity: MergedIdentity(kind: kind, name: nodes.name[node.first], owner: nodes.owner[node.first], isAppCode: nodes.isAppCode[node.first]),
            writeStack: (kind == .state || kind == .observable) ? writeStack(ofAny: node.raw) : nil, raw: node.raw
        )
    }

    /// What `rows` (updates) made run after them, summed; rows without the measure add nothing.
    private func downstream(of rows: [Int]) -> (cost: Nanoseconds, events: Int) {
        var total: (cost: Nanoseconds, events: Int) = (0, 0)
        for row in rows {
            guard let cost = updates.downstreamCost(row) else { continue }
            total.cost = total.cost.addingSaturating(cost)
            total.events += updates.downstreamEvents(row) ?? 0
        }
        return total
    }

    /// The stack of the first recorded write (with a backtrace) to any of `rawNodes`, or `noRow`.
    private func writeStack(ofAny rawNodes: [UInt32]) -> Int32 {
        let first = rawNodes.lazy.compactMap(indexes.firstBacktracedWrite(ofNode:)).min()
        return first.map { stateChanges.backtrace[$0] } ?? noRow
    }

    /// Before each State / @Observable node whose change a Swift task wrote on the Main Actor:
    /// the task's run (→ "wrote" the state), the task that created it (→ "creation"), and up to
    /// three tasks that waited for the Main Actor meanwhile (run → "waited"). Rule and limits in
    /// docs/cause-graph.md.
    private func appendTaskChains(to nodes: inout [DrawnNode], edges: inout [DrawnEdge]) {
        guard taskStates.count > 0 else { return }
        var drawnOfRaw: [UInt32: Int] = [:]
        for (index, node) in nodes.enumerated() where node.collapsed == nil && (node.kind == .state || node.kind == .observable) {
            for raw in node.raw { drawnOfRaw[raw] = index }
        }
        guard !drawnOfRaw.isEmpty else { return }
        // The first change of each drawn state node that a main-actor run wrote.
        var writer: [Int: (row: Int, basis: TaskWriteBasis)] = [:]
        for change in 0..<stateChanges.count {
            guard let state = drawnOfRaw[stateChanges.node[change]], writer[state] == nil,
                  let run = mainActorRun(writing: change) else { continue }
            writer[state] = run
        }
        let states = taskStates
        var nodeOfID: [String: Int] = [:]
        func add(_ node: DrawnNode) -> Int {
            if let known = nodeOfID[node.id] { return known }
            nodes.append(node)
            nodeOfID[node.id] = nodes.count - 1
            return nodes.count - 1
        }
        func taskNode(id: String, task: Int, subtitle: String, link: CauseGraphDocument.TaskLink) -> DrawnNode {
            DrawnNode(
                id: id, kind: .other, title: taskTitle(task), subtitle: subtitle, isAppCode: true, dimmed: false, focus: false,
                count: 1, updates: [], eventIDs: [], identity: MergedIdentity(kind: .other, name: 0, owner: 0, isAppCode: true),
                writeStack: nil, task: link
            )
        }
        for state in writer.keys.sorted() {
            let (run, basis) = writer[state]!
            let task = Int(states.task[run])
            let ran = DurationText.format(states.duration[run])
            let runID = "t\(run)"
            let isNew = nodeOfID[runID] == nil
            let runNode = add(taskNode(
                id: runID, task: task,
                subtitle: basis == .time ? "ran \(ran) on the Main Actor (same time only)" : "ran \(ran) on the Main Actor",
                link: .init(taskState: run, task: task, role: "ran", basis: basis, durationNs: states.duration[run])
            ))
            edges.append(DrawnEdge(from: runNode, to: state, label: "wrote", count: 1, property: resumeFunctionTitle(run)))
            guard isNew else { continue }
            if let creator = creator(ofTask: task), let first = indexes.states(ofTask: creator).first {
                let creatorNode = add(taskNode(
                    id: "tc\(creator)", task: creator, subtitle: "created \(taskTitle(task))",
                    link: .init(taskState: Int(first), task: creator, role: "created", basis: nil, durationNs: 0)
                ))
                edges.append(DrawnEdge(from: creatorNode, to: runNode, label: "creation", count: 1, property: ""))
            }
            let waits = mainActorWaits(overlapping: TimeRange(start: states.start[run], end: states.end(run)))
                .filter { states.task[$0.row] != states.task[run] && $0.overlap > 0 }
            for wait in waits.prefix(Self.maxWaitersDrawn) {
                let waiter = add(taskNode(
                    id: "tw\(wait.row)", task: Int(states.task[wait.row]), subtitle: "waited \(DurationText.format(wait.overlap)) for the Main Actor",
                    link: .init(taskState: wait.row, task: Int(states.task[wait.row]), role: "waited", basis: nil, durationNs: wait.overlap)
                ))
                edges.append(DrawnEdge(from: runNode, to: waiter, label: "waited", count: 1, property: ""))
            }
        }
    }

    /// Tasks drawn hanging off a run as having waited for it (the longest waits).
    static let maxWaitersDrawn = 3

    /// Replaces more than `policy.limit` look-alike leaf children of one parent by `policy.visible`
    /// of them plus one group node, unless the group's key is in `expand`. Focus nodes stay visible.
    private func foldFanOuts(
        nodes: [DrawnNode], edges: [DrawnEdge], expand: Set<String>, policy: FanOutPolicy
    ) -> ([DrawnNode], [DrawnEdge]) {
        var outDegree = [Int](repeating: 0, count: nodes.count)
        var inDegree = [Int](repeating: 0, count: nodes.count)
        var children = [[Int]](repeating: [], count: nodes.count)  // edge indexes
        for (i, edge) in edges.enumerated() {
            outDegree[edge.from] += 1
            inDegree[edge.to] += 1
            children[edge.from].append(i)
        }
        var removedNodes = Set<Int>()
        var removedEdges = Set<Int>()
        var newNodes = nodes
        var newEdges = edges
        for parent in nodes.indices {
            var groups: [MergedIdentity: [Int]] = [:]  // edge indexes to foldable children
            var groupOrder: [MergedIdentity] = []
            for e in children[parent] {
                let child = edges[e].to
                guard outDegree[child] == 0 && inDegree[child] == 1 else { continue }
                let key = nodes[child].identity
                if groups[key] == nil { groupOrder.append(key) }
                groups[key, default: []].append(e)
            }
            for (groupIndex, key) in groupOrder.enumerated() {
                let members = groups[key]!
                let groupKey = "g\(nodes[parent].id)-\(groupIndex)"
                guard members.count > policy.limit && !expand.contains(groupKey) else { continue }
                let focused = members.filter { nodes[edges[$0].to].focus }
                let others = members.filter { !nodes[edges[$0].to].focus }
                let folded = Array(others.dropFirst(max(policy.visible - focused.count, 0)))
                guard folded.count > 1 else { continue }
                let sample = nodes[edges[folded[0]].to]
                var updates = Set<Int>()
                var count = 0
                var edgeCount = 0
                var properties = CappedNames<String>()
                var memberList: [CauseGraphDocument.Member] = []
                var notRun = 0
                for e in folded {
                    let child = nodes[edges[e].to]
                    updates.formUnion(child.updates)
                    count += child.count
                    edgeCount += edges[e].count
                    if !edges[e].property.isEmpty { properties.insert(edges[e].property) }
                    if child.dimmed { notRun += 1 }
                    if memberList.count < CauseGraphMetrics.maxMembers {
                        memberList.append(CauseGraphDocument.Member(
                            id: child.id, title: child.title, updates: Array(child.updates.prefix(CauseGraphMetrics.maxMemberUpdates)), dimmed: child.dimmed
                        ))
                    }
                    removedNodes.insert(edges[e].to)
                    removedEdges.insert(e)
                }
                var group = sample
                group.id = groupKey
                group.title = "+ \(folded.count) more \(sample.title)"
                group.subtitle = notRun == 0 ? sample.subtitle : "\(notRun) of \(folded.count) body not run"
                group.dimmed = notRun == folded.count
                group.count = count
                group.updates = updates.sorted()
                group.eventIDs = []
                group.writeStack = nil
                group.collapsed = CauseGraphDocument.Collapsed(key: groupKey, more: folded.count, members: memberList)
                newNodes.append(group)
                newEdges.append(DrawnEdge(
                    from: parent, to: newNodes.count - 1, label: edges[folded[0]].label, count: edgeCount,
                    property: properties.text { $0 }
                ))
            }
        }
        guard !removedNodes.isEmpty else { return (nodes, edges) }
        var newIndex = [Int](repeating: -1, count: newNodes.count)
        var keptNodes: [DrawnNode] = []
        for i in newNodes.indices where !removedNodes.contains(i) {
            newIndex[i] = keptNodes.count
            keptNodes.append(newNodes[i])
        }
        var keptEdges: [DrawnEdge] = []
        for i in newEdges.indices where !removedEdges.contains(i) {
            var edge = newEdges[i]
            edge.from = newIndex[edge.from]
            edge.to = newIndex[edge.to]
            keptEdges.append(edge)
        }
        return (keptNodes, keptEdges)
    }

    /// A focus node whose "+ N other causes" was opened: its causes stay on its left even when
    /// they are its effects too (most are, in a big view graph), so its edges back to them are
    /// laid right to left; without this, opening causes drew them among the effects.
    private static func backToCauses(_ nodes: [DrawnNode], _ edges: [DrawnEdge], expand: Set<String>) -> Set<Int> {
        // A drawn node's id is "n<first row>" (viewGraph), its causes fold's key NeighbourFold.key.
        let opened = Set(nodes.indices.filter { i in
            nodes[i].focus && Int(nodes[i].id.dropFirst()).map { expand.contains(NeighbourFold.key(node: $0, causes: true)) } == true
        })
        guard !opened.isEmpty else { return [] }
        var causes: [Int: Set<Int>] = [:]
        for edge in edges where opened.contains(edge.to) { causes[edge.to, default: []].insert(edge.from) }
        return Set(edges.indices.filter { opened.contains(edges[$0].from) && causes[edges[$0].from]?.contains(edges[$0].to) == true })
    }

    /// Nodes standing for the same update (or, without one, the same source event) share a key.
    private func assignSameUpdateKeys(_ nodes: inout [DrawnNode]) {
        var keys: [String?] = nodes.map { node in
            if node.collapsed != nil { return nil }
            if node.updates.count == 1 { return "u\(node.updates[0])" }
            if node.updates.isEmpty && node.eventIDs.count == 1 { return "e\(node.eventIDs.first!)" }
            return nil
        }
        var uses: [String: Int] = [:]
        for key in keys.compactMap({ $0 }) { uses[key, default: 0] += 1 }
        for i in keys.indices where keys[i].map({ uses[$0]! < 2 }) ?? false { keys[i] = nil }
        for i in nodes.indices { nodes[i].sameUpdateKey = keys[i] }
    }

    private func laidOut(nodes: [DrawnNode], edges: [DrawnEdge], expand: Set<String> = []) -> CauseGraphDocument {
        let sizes = nodes.map {
            GraphLayout.Size(
                width: CauseGraphMetrics.width(title: $0.title, subtitle: $0.subtitle, badgeCount: $0.collapsed == nil ? $0.count : 1),
                height: CauseGraphMetrics.nodeHeight
            )
        }
        var options = GraphLayout.Options()
        options.rowGap = CauseGraphMetrics.rowGap
        options.columnGap = CauseGraphMetrics.columnGap
        let layout = GraphLayout(sizes: sizes, edges: edges.map { ($0.from, $0.to) }, laidBackward: Self.backToCauses(nodes, edges, expand: expand), options: options)
        func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }
        var backtraceFrames = 0
        let documentNodes = nodes.enumerated().map { i, node in
            let frame = layout.frames[i]
            // Backtraces are read only for the nodes drawn, within the graph's budget of frames.
            var backtrace: CappedBacktrace?
            if let stack = node.writeStack, stack != noRow {
                let capped = self.backtrace(stack, limit: CauseGraphMetrics.maxBacktraceFrames - backtraceFrames)
                backtraceFrames += capped.frames.count
                backtrace = capped
            }
            let weight = self.updates.hasDownstream && node.collapsed == nil ? downstream(of: node.updates) : nil
            return CauseGraphDocument.Node(
                id: node.id, kind: node.task == nil ? node.kind.wireName : "swift-task", title: node.title, subtitle: node.subtitle,
                isAppCode: node.isAppCode, dimmed: node.dimmed, focus: node.focus, count: node.count,
                updates: Array(node.updates.prefix(CauseGraphMetrics.maxNodeUpdates)), updateCount: node.updates.count,
                sameUpdateKey: node.sameUpdateKey,
                x: rounded(frame.x), y: rounded(frame.y), width: rounded(frame.width), height: rounded(frame.height),
                collapsed: node.collapsed, backtrace: backtrace?.frames, backtraceTruncated: backtrace?.truncated ?? false, task: node.task,
                downstreamNs: weight?.cost, downstreamEvents: weight?.events
            )
        }
        let documentEdges = edges.enumerated().map { i, edge in
            CauseGraphDocument.Edge(
                from: nodes[edge.from].id, to: nodes[edge.to].id, label: edge.label, count: edge.count, property: edge.property,
                points: layout.routes[i].map { [rounded($0.x), rounded($0.y)] }
            )
        }
        return CauseGraphDocument(nodes: documentNodes, edges: documentEdges, width: rounded(layout.width), height: rounded(layout.height))
    }
}

/// Node boxes are sized here (the browser does not measure text before layout): an icon, a
/// 12 px semibold title and a 10.5 px subtitle in system-ui (DejaVu Sans on Linux), under 8 px per character.
public enum CauseGraphMetrics {
    /// Compact rows, so a dozen effects of one cause fit a detail pane.
    public static let nodeHeight = 38.0
    public static let rowGap = 12.0
    /// Room between columns for an edge label ("update ×4080" at 12 px) clear of both nodes.
    public static let columnGap = 140.0
    /// More merged edges than this are thinned (`CauseGraphDocument.omittedEdges`).
    public static let maxEdges = 400
    /// A view's merged graph shows this many nodes most tied to the view; the view's other causes
    /// and effects are folded into one node each (a 1M-update trace stays a picture, not a hairball).
    public static let maxViewGraphNodes = 24
    /// No graph holds more nodes than this (`CauseGraphDocument.omittedNodes` counts the rest):
    /// the bound on the layout's work and the answer's size whatever the trace.
    public static let maxNodes = 2_000
    /// A node lists this many of its updates (`updateCount` has them all); a folded member, fewer.
    public static let maxNodeUpdates = 100
    public static let maxMemberUpdates = 20
    /// A folded node lists this many of its members (`more` counts them all).
    public static let maxMembers = 50
    /// An edge names this many changed properties, then "and N more".
    public static let maxEdgeProperties = 8
    /// Backtrace frames one graph carries in all (each backtrace at most `BacktraceFrame.maxFrames`):
    /// nodes past the budget have theirs cut, `backtraceTruncated` says so.
    public static let maxBacktraceFrames = 2048
    public static let characterWidth = 7.8
    public static let chrome = 48.0  // icon, paddings, count badge
    public static let minWidth = 120.0
    public static let maxWidth = 360.0

    /// `badgeCount` > 1 leaves room for the "x12" badge at the right end.
    public static func width(title: String, subtitle: String, badgeCount: Int = 1) -> Double {
        let badge = badgeCount > 1 ? 22 + 6.5 * Double(String(badgeCount).count + 1) : 0
        let text = Double(max(title.count, subtitle.count)) * characterWidth + chrome + badge
        return min(max(text, minWidth), maxWidth)
    }
}

extension NodeKind {
    /// How the graph names a node of this kind when the source gives no name or owner.
    public var displayName: String {
        switch self {
        case .viewBody: "View body"
        case .state: "@State"
        case .observable: "@Observable"
        case .gesture: "Gesture"
        case .externalEnvironment: "External Environment"
        case .environmentWriter: "EnvironmentWriter"
        case .viewCreation: "View Creation / Reuse"
        case .other: "System"
        }
    }
}

private struct MergedIdentity: Hashable {
    var kind: NodeKind
    var name: StringRef
    var owner: StringRef
    var isAppCode: Bool
}

private struct MergedNode {
    var first: Int
    var raw: [UInt32] = []
    var updates: [Int] = []
    var ran = 0
    var focus = false
}

/// The causes (or effects) of one focus node left out of a view's graph, drawn as one node.
private struct NeighbourFold {
    /// Merged node index the fold hangs off.
    var node: Int
    var causes: Bool
    var members: [MergedNode]
    /// Edges folded, summed.
    var count: Int
    var label: EdgeLabel
    /// The first raw row of `node`, fixed when the fold is made (indexes move when nodes are dropped).
    var memberOf = 0

    static func key(node firstRow: Int, causes: Bool) -> String { "g\(causes ? "c" : "e")n\(firstRow)" }
}

private struct MergedEdgeKey: Hashable {
    var from: Int
    var to: Int
    var label: EdgeLabel
}

private struct MergedEdge {
    var from: Int
    var to: Int
    var label: EdgeLabel
    var count = 0
    var properties = CappedNames<StringRef>()
}

/// Distinct names in order of first appearance: the first `CauseGraphMetrics.maxEdgeProperties`
/// listed, the others only counted (a merged edge may carry thousands of properties).
private struct CappedNames<Name: Hashable> {
    private var listed: [Name] = []
    private var others = Set<Name>()

    mutating func insert(_ name: Name) {
        guard !listed.contains(name) else { return }
        if listed.count < CauseGraphMetrics.maxEdgeProperties { listed.append(name) } else { others.insert(name) }
    }

    /// "a, b, c", or "a, …, h and 12 more".
    func text(_ name: (Name) -> String) -> String {
        let names = listed.map(name).joined(separator: ", ")
        return others.isEmpty ? names : "\(names) and \(others.count) more"
    }
}

private struct DrawnNode {
    var id: String
    var kind: NodeKind
    var title: String
    var subtitle: String
    var isAppCode: Bool
    var dimmed: Bool
    var focus: Bool
    var count: Int
    var updates: [Int]
    var eventIDs: Set<Int64>
    var identity: MergedIdentity
    /// The stack of the value's first write (State / @Observable nodes; `noRow` without one), else nil.
    var writeStack: Int32?
    /// The merged raw node rows (state nodes: to find their writes).
    var raw: [UInt32] = []
    var collapsed: CauseGraphDocument.Collapsed? = nil
    var sameUpdateKey: String? = nil
    var task: CauseGraphDocument.TaskLink? = nil
}

private struct DrawnEdge {
    var from: Int
    var to: Int
    var label: String
    var count: Int
    var property: String
}
