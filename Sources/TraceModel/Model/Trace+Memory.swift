/// Bytes the trace's tables and indexes hold in memory (allocated capacity × element stride),
/// for benchmarks: the columnar model is meant to cost tens of bytes per update.
extension Trace {
    public var memoryFootprint: Int {
        memoryFootprintByPart.reduce(0) { $0 + $1.bytes }
    }

    /// The footprint split the way the benchmark reports it.
    public var memoryFootprintByPart: [(part: String, bytes: Int)] {
        let u = updates
        let updateBytes = bytes(u.start) + bytes(u.duration) + bytes(u.kind) + bytes(u.sourceSeverity) + bytes(u.module)
            + bytes(u.viewName) + bytes(u.description) + bytes(u.category) + bytes(u.allocations) + bytes(u.thread) + bytes(u.group)
            + bytes(u.selfDuration) + bytes(u.layoutDepth) + bytes(u.cached) + bytes(u.downstreamCost) + bytes(u.downstreamEvents)
        let g = updateGroups
        let groupBytes = bytes(g.start) + bytes(g.duration) + bytes(g.label) + bytes(g.thread)
        let laneBytes = indexes.updatesByLane.values.reduce(0) { $0 + bytes($1) }
        // The summary rows and view lists (UpdateListIndex) take 12 bytes per update once a query builds them.
        let updateIndexBytes = laneBytes + bytes(indexes.updateNodeOffsets) + bytes(indexes.updateNodes) + updates.count * 12
        let n = graph.nodes
        let nodeBytes = bytes(n.kind) + bytes(n.name) + bytes(n.owner) + bytes(n.isAppCode) + bytes(n.eventID)
            + bytes(n.timestamp) + bytes(n.update)
        let e = graph.edges
        let edgeBytes = bytes(e.source) + bytes(e.target) + bytes(e.label) + bytes(e.changedProperty) + bytes(e.timestamp) + bytes(e.group)
        let adjacencyBytes = bytes(graph.outgoingOffsets) + bytes(graph.outgoingEdges) + bytes(graph.incomingOffsets) + bytes(graph.incomingEdges)
        let c = stateChanges
        let changeBytes = bytes(c.timestamp) + bytes(c.node) + bytes(c.description) + bytes(c.backtrace) + bytes(c.thread)
            + bytes(indexes.writtenNodes) + bytes(indexes.firstWriteOfNode)
        let cpuBytes = cpu.frames.memoryFootprint
            + bytes(cpu.stacks.parent) + bytes(cpu.stacks.frame)
            + bytes(cpu.samples.time) + bytes(cpu.samples.thread) + bytes(cpu.samples.weight) + bytes(cpu.samples.stack)
            + indexes.cpuPaths.sampleKeys.memoryFootprint
        let r = hangRisks
        let intervalBytes = (hitches.capacity + hangs.capacity) * MemoryLayout<TimelineInterval>.stride
            + bytes(r.time) + bytes(r.message) + bytes(r.severity) + bytes(r.eventType) + bytes(r.backtrace) + bytes(r.thread)
            + (hitches + hangs).reduce(0) { $0 + $1.kind.utf8.count + $1.detail.utf8.count }
        let t = taskStates
        let taskBytes = bytes(tasks.taskID) + bytes(tasks.process) + bytes(tasks.name) + bytes(tasks.creationBacktrace) + bytes(tasks.start) + bytes(tasks.end)
            + bytes(t.start) + bytes(t.duration) + bytes(t.task) + bytes(t.state) + bytes(t.actor) + bytes(t.isMainActor)
            + bytes(t.priority) + bytes(t.resumeFunction) + bytes(t.waitingFor) + bytes(t.suspendBacktrace) + bytes(t.thread)
            + bytes(t.narrative) + bytes(indexes.mainActorRuns) + bytes(indexes.mainActorWaits)
            + bytes(indexes.taskStateOffsets) + bytes(indexes.taskStateRows) + bytes(indexes.awaitingOffsets) + bytes(indexes.awaitingRows)
        let s = signposts
        let signpostBytes = bytes(s.start) + bytes(s.duration) + bytes(s.kind) + bytes(s.process) + bytes(s.thread)
            + bytes(s.subsystem) + bytes(s.category) + bytes(s.name) + bytes(s.beginMessage) + bytes(s.endMessage)
            + bytes(s.signpostID) + indexes.signpostLanes.reduce(0) { $0 + bytes($1.rows) }
        let stringBytes = strings.capacity * MemoryLayout<String>.stride + strings.reduce(0) { $0 + $1.utf8.count }
        return [
            ("updates", updateBytes),
            ("update indexes", updateIndexBytes),
            ("update groups", groupBytes),
            ("graph nodes", nodeBytes),
            ("graph edges", edgeBytes),
            ("graph adjacency", adjacencyBytes),
            ("state changes", changeBytes),
            ("cpu samples", cpuBytes),
            ("hitches and hangs", intervalBytes),
            ("swift tasks", taskBytes),
            ("signposts", signpostBytes),
            ("strings", stringBytes),
        ]
    }
}

extension FrameTable {
    /// Bytes of the frame rows and their sources' side table (capacity × stride).
    public var memoryFootprint: Int {
        bytes(name) + bytes(binary) + bytes(isAppCode) + bytes(sourceFrames) + bytes(sourcePath) + bytes(sourceLine)
    }
}

private func bytes<Element>(_ array: [Element]) -> Int {
    array.capacity * MemoryLayout<Element>.stride
}
