import TraceFormats
import TraceModel

/// A thin layer over `TraceBuilder` for writing generators: one app process with the threads
/// an iOS app has, named frames and stacks, and 1 ms Time Profiler sampling of busy spans.
struct TraceSketch {
    var builder: TraceBuilder
    var random: SeededRandom
    let mainThread: Int32
    let module: StringRef
    /// Stack prefix of work SwiftUI does in a frame update (run loop → render → graph update).
    private(set) var graphUpdateStack: Int32 = noRow
    private(set) var commitStack: Int32 = noRow
    private var nextEventID: Int64 = 1

    static let frameInterval: Nanoseconds = 8_333_333

    init(name: String, app: String, pid: Int32, seed: UInt64, end: Nanoseconds) {
        builder = TraceBuilder(metadata: TraceMetadata(
            name: name, app: app, device: "iPhone 16 Pro", osVersion: "iOS 26.1", refreshRate: 120,
            recordedAt: "2026-03-14T09:41:00Z", start: 0, end: end, sourceFormat: NativeTraceFormat.sourceFormat
        ))
        random = SeededRandom(seed: seed)
        let process = builder.addProcess(TraceProcess(pid: pid, name: app))
        mainThread = builder.addThread(TraceThread(tid: 0x2A1C3, name: "Main Thread", process: process, isMain: true))
        _ = builder.addThread(TraceThread(tid: 0x2A1D0, name: "com.apple.uikit.eventfetch-thread", process: process, isMain: false))
        _ = builder.addThread(TraceThread(tid: 0x2A1E4, name: "com.apple.SwiftUI.DisplayLink", process: process, isMain: false))
        module = builder.intern(app)
        let runLoop = stack(parent: noRow, [
            ("start", "dyld"), ("main", app), ("UIApplicationMain", "UIKitCore"), ("GSEventRunModal", "GraphicsServices"),
            ("CFRunLoopRunSpecific", "CoreFoundation"), ("__CFRunLoopDoObservers", "CoreFoundation"),
            ("_UIUpdateSequenceRun", "UIKitCore"),
        ])
        graphUpdateStack = stack(parent: runLoop, [
            ("ViewRendererHost.render(interval:updateDisplayList:targetTimestamp:)", "SwiftUI"),
            ("ViewGraph.updateOutputs(async:)", "SwiftUICore"),
            ("AG::Graph::UpdateStack::update()", "AttributeGraph"),
            ("AG::Graph::update_attribute(AG::data::ptr<AG::Node>, unsigned int)", "AttributeGraph"),
        ])
        commitStack = stack(parent: runLoop, [("CA::Transaction::commit()", "QuartzCore"), ("CA::Context::commit_transaction(CA::Transaction*, double, double*)", "QuartzCore")])
    }

    func isApp(_ binary: String) -> Bool { binary == builder.metadata.app }

    /// The Landmarks sample's os_log subsystem.
    static let landmarksSubsystem = "com.example.apple-samplecode.Landmarks"

    /// An os_signpost interval (`end` given) or event of the app's process on the main thread.
    mutating func signpost(
        _ name: String, start: Nanoseconds, end: Nanoseconds? = nil, id: UInt64,
        subsystem: String = landmarksSubsystem, category: String = SignpostLane.pointsOfInterestCategory,
        message: String = "", endMessage: String = ""
    ) {
        var row = SignpostRow(start: start, duration: end.map { $0 - start } ?? 0, kind: end == nil ? .event : .interval, name: builder.intern(name))
        row.process = 0
        row.thread = mainThread
        row.subsystem = builder.intern(subsystem)
        row.category = builder.intern(category)
        row.beginMessage = builder.intern(message)
        row.endMessage = builder.intern(endMessage)
        row.signpostID = id
        builder.addSignpost(row)
    }

    /// Appends frames (root first, as (symbol, binary)) below `parent`; returns the leaf stack.
    mutating func stack(parent: Int32, _ frames: [(String, String)]) -> Int32 {
        var stack = parent
        for (symbol, binary) in frames {
            let frame = builder.addFrame(name: builder.intern(symbol), binary: builder.intern(binary), isAppCode: isApp(binary))
            stack = Int32(builder.addStack(parent: stack, frame: frame))
        }
        return stack
    }

    /// The row the next update group will get: updates refer to it before its span is known.
    var nextGroup: Int32 { Int32(builder.groupCount) }

    /// Adds the group that `nextGroup` promised, now that its updates are in.
    mutating func addGroup(_ group: Int32, start: Nanoseconds, end: Nanoseconds, label: String) {
        let added = builder.addUpdateGroup(start: start, duration: end - start, label: builder.intern(label), thread: mainThread)
        precondition(added == group, "update groups must be added in the order nextGroup handed them out")
    }

    /// An update and the graph node that stands for it.
    @discardableResult
    mutating func update(
        _ kind: UpdateKind, view: String, module: String? = nil, start: Nanoseconds, duration: Nanoseconds,
        group: Int32, allocations: UInt32 = 0, nodeKind: NodeKind? = .viewBody
    ) -> (update: Int32, node: UInt32?) {
        let moduleName = module ?? builder.metadata.app
        let description: String
        let category: String
        switch kind {
        case .viewBody: (description, category) = ("\(view).body", "View Body")
        case .representable: (description, category) = ("\(view) updateUIView(_:context:)", "Platform View")
        case .layout: (description, category) = ("\(view) layout", "Layout")
        case .other: (description, category) = (view, "Other")
        }
        let severity: SourceSeverity = switch LongUpdateSeverity(duration: duration) {
        case .normal: duration > 250_000 ? .low : .veryLow
        case .orange: .moderate
        case .red: .high
        }
        let update = builder.addUpdate(
            start: start, duration: duration, kind: kind, sourceSeverity: severity, module: builder.intern(moduleName),
            viewName: builder.intern(view), description: builder.intern(description), category: builder.intern(category),
            allocations: allocations, thread: mainThread, group: group
        )
        guard let nodeKind else { return (update, nil) }
        let node = self.node(nodeKind, view, isAppCode: moduleName == builder.metadata.app, at: start, update: update)
        return (update, node)
    }

    /// A graph node; `sameEventAs` (an earlier node's event id, `lastEventID`) draws that event
    /// again, as Instruments draws one event once for each view it reached.
    mutating func node(
        _ kind: NodeKind, _ name: String, owner: String = "", isAppCode: Bool, at time: Nanoseconds, update: Int32 = noRow,
        sameEventAs event: Int64? = nil
    ) -> UInt32 {
        let id = event ?? nextEventID
        if event == nil { nextEventID += 1 }
        return builder.addNode(
            kind: kind, name: builder.intern(name), owner: builder.intern(owner), isAppCode: isAppCode,
            eventID: id, timestamp: time, update: update
        )
    }

    /// The event id of the node added last.
    var lastEventID: Int64 { nextEventID - 1 }

    mutating func edge(_ source: UInt32, _ target: UInt32, _ label: EdgeLabel = .update, property: String = "", at time: Nanoseconds, group: Int32) {
        builder.addEdge(source: source, target: target, label: label, changedProperty: builder.intern(property), timestamp: time, group: group)
    }

    /// Time Profiler's 1 ms samples over [start, start + duration) on the main thread, each
    /// taking its stack from `stacks` (weighted by how often each appears in the list).
    mutating func sample(start: Nanoseconds, duration: Nanoseconds, stacks: [Int32], thread: Int32? = nil) {
        let interval: Nanoseconds = 1_000_000
        // The sampling clock ticks on whole milliseconds; a short span may catch no tick at all.
        var time = (start / interval + 1) * interval
        while time < start + duration {
            builder.addSample(time: time, thread: thread ?? mainThread, weight: interval, stack: UInt32(random.pick(stacks)))
            time += interval
        }
    }

    mutating func hitch(start: Nanoseconds, duration: Nanoseconds) {
        builder.addHitch(TimelineInterval(
            start: start, duration: duration, kind: "Hitch", detail: "Potentially expensive app update(s)", thread: mainThread
        ))
    }

    consuming func build() -> Trace {
        do {
            return try builder.build()
        } catch {
            preconditionFailure("generated trace is inconsistent: \(error)")
        }
    }
}
