import Foundation
import Testing
@testable import TraceFormats
import TraceModel
import TraceSamples

/// Export a trace as xctrace XML, import it back: the same trace, compared by resolved values
/// (names, not string-table indexes; threads by tid, not row).
@Suite struct XCTraceRoundTripTests {
    static func roundTrip(_ trace: Trace, layout: XCTraceExporter.Layout) throws -> Trace {
        var bytes: [UInt8] = []
        try XCTraceExporter.export(trace, layout: layout) { bytes += $0 }
        return try XCTraceImporter.importTrace(from: .memory(bytes), displayName: trace.metadata.name + ".tar")
    }

    @Test(arguments: [XCTraceExporter.Layout.tarBundle, .concatenatedXML])
    func aBuiltTraceSurvivesExportAndImport(layout: XCTraceExporter.Layout) throws {
        let original = try Self.landmarksTrace()
        let imported = try Self.roundTrip(original, layout: layout)
        let before = ResolvedTrace(original), after = ResolvedTrace(imported)
        #expect(after.updates == before.updates)
        #expect(after.groups == before.groups)
        #expect(after.nodes == before.nodes)
        #expect(after.edges == before.edges)
        #expect(after.changes == before.changes)
        #expect(after.samples == before.samples)
        #expect(after.hangs == before.hangs)
        #expect(after.hitches == before.hitches)
        #expect(imported.metadata.importNotes.isEmpty)
        if layout == .tarBundle {
            #expect(imported.metadata.app == original.metadata.app)
            #expect(imported.metadata.device == original.metadata.device)
            #expect(imported.metadata.recordedAt == original.metadata.recordedAt)
            #expect(imported.metadata.end == original.metadata.end)
        }
    }

    @Test(arguments: SampleTraces.names)
    func sampleTracesSurviveExportAndImport(name: String) throws {
        let original = SampleTraces.trace(named: name)
        let imported = try Self.roundTrip(original, layout: .tarBundle)
        let before = ResolvedTrace(original), after = ResolvedTrace(imported)
        #expect(after.updates == before.updates)
        #expect(after.groups == before.groups)
        #expect(Set(after.nodes).subtracting(before.nodes).sorted() == [])
        #expect(Set(before.nodes).subtracting(after.nodes).sorted() == [])
        #expect(after.edges == before.edges)
        #expect(after.changes == before.changes)
        #expect(after.samples == before.samples)
        #expect(after.hangs == before.hangs)
        #expect(after.hitches == before.hitches)
        #expect(imported.metadata.app == original.metadata.app)
    }

    @Test func exportedXMLUsesRefsForRepeatedValues() throws {
        var bytes: [UInt8] = []
        try XCTraceExporter.export(try Self.landmarksTrace(), layout: .concatenatedXML) { bytes += $0 }
        let xml = String(decoding: bytes, as: UTF8.self)
        #expect(xml.contains("<thread ref="))
        #expect(xml.contains("<frame ref="))
        #expect(xml.contains("<typed-array ref="))
        #expect(xml.contains("fmt=\"&lt;graph&gt;, gray, point.3.filled.connected.trianglepath.dotted, n/a, n/a\""))
    }

    /// A small Landmarks session (a body node's time is its update's start). Every update kind and severity, every node kind, a body
    /// notified but not run, texts that need escaping, two threads, samples and stacks.
    static func landmarksTrace() throws -> Trace {
        var b = TraceBuilder(metadata: TraceMetadata(
            name: "landmarks", app: "Landmarks", device: "iPhone 16 Pro", osVersion: "26.0",
            recordedAt: "2026-11-20T13:03:12Z", start: 0, end: 2_000_000_000, sourceFormat: "test"
        ))
        let app = b.addProcess(TraceProcess(pid: 812, name: "Landmarks"))
        let main = b.addThread(TraceThread(tid: 0x1e9000, name: "Main Thread", process: app, isMain: true))
        let worker = b.addThread(TraceThread(tid: 0x1e9a07, name: "com.apple.uikit.eventfetch-thread", process: app, isMain: false))
        let landmarks = b.intern("Landmarks"), swiftUI = b.intern("SwiftUI")
        let transaction = b.addUpdateGroup(start: 100_000_000, duration: 4_000_000, label: b.intern("Transaction <Button & \"tap\">"), thread: main)
        let layoutPass = b.addUpdateGroup(start: 200_000_000, duration: 2_000_000, label: b.intern("(AnimatedRootSize RootSizeInfo?)"), thread: main)
        let list = b.addUpdate(start: 100_100_000, duration: 1_400_000, kind: .viewBody, sourceSeverity: .high, module: landmarks,
                               viewName: b.intern("LandmarkList"), description: b.intern("LandmarkList"), category: b.intern("Update"),
                               allocations: 40, thread: main, group: transaction)
        let row = b.addUpdate(start: 101_600_000, duration: 700_000, kind: .viewBody, sourceSeverity: .moderate, module: landmarks,
                              viewName: b.intern("LandmarkRow"), description: b.intern("LandmarkRow"), category: b.intern("Update"),
                              allocations: 3, thread: main, group: transaction)
        b.addUpdate(start: 102_400_000, duration: 30_000, kind: .layout, sourceSeverity: .veryLow, module: swiftUI,
                    viewName: b.intern("VStack"), description: b.intern("VStack<TupleView<(Text, Image)>>"), thread: main, group: transaction)
        let map = b.addUpdate(start: 200_100_000, duration: 900_000, kind: .representable, sourceSeverity: .low, module: landmarks,
                              viewName: b.intern("MapView"), thread: main, group: layoutPass)
        b.addUpdate(start: 200_500_000, duration: 5_000, kind: .other, module: swiftUI, viewName: b.intern("Text"), thread: main, group: layoutPass)

        func node(_ kind: NodeKind, _ name: String, owner: String = "", app: Bool, event: Int64, at time: Int64, update: Int32 = noRow) -> UInt32 {
            b.addNode(kind: kind, name: b.intern(name), owner: b.intern(owner), isAppCode: app, eventID: event, timestamp: time, update: update)
        }
        let tap = node(.gesture, "Gesture: TapGesture", app: false, event: 10, at: 100_020_000)
        let favorite = node(.state, "@State isFavorite", app: true, event: 11, at: 100_020_000)
        let modelData = node(.observable, "@Observable ModelData.landmarks", owner: "ModelData", app: true, event: 12, at: 100_030_000)
        let listBody = node(.viewBody, "LandmarkList", app: true, event: 13, at: 100_100_000, update: list)
        let rowBody = node(.viewBody, "LandmarkRow", app: true, event: 14, at: 101_600_000, update: row)
        let environment = node(.externalEnvironment, "External Environment", app: false, event: 15, at: 100_035_000)
        let writer = node(.environmentWriter, "EnvironmentWriter: ForegroundStyle", app: false, event: 16, at: 100_035_000)
        let detail = node(.viewBody, "LandmarkDetail", app: true, event: 17, at: 100_040_000)
        let creation = node(.viewCreation, "View Creation / Reuse", app: false, event: 18, at: 200_050_000)
        let mapBody = node(.viewBody, "MapView", app: true, event: 19, at: 200_100_000, update: map)
        let graphNode = node(.other, "<graph>", app: false, event: 20, at: 200_050_000)
        let edges: [(UInt32, UInt32, EdgeLabel, String, Int64)] = [
            (tap, favorite, .update, "", 100_020_000), (favorite, listBody, .update, "", 100_030_000),
            (modelData, listBody, .update, "landmarks", 100_030_000), (listBody, rowBody, .update, "", 100_040_000),
            (environment, detail, .update, "colorScheme", 100_040_000), (writer, rowBody, .update, "", 100_040_000),
            (environment, writer, .update, "", 100_035_000), (graphNode, creation, .update, "", 200_050_000),
            (creation, mapBody, .creation, "", 200_060_000),
        ]
        for (source, target, label, property, time) in edges {
            b.addEdge(source: source, target: target, label: label, changedProperty: b.intern(property), timestamp: time,
                      group: time < 150_000_000 ? transaction : layoutPass)
        }

        let start = b.addFrame(name: b.intern("start"), binary: b.intern("dyld"), isAppCode: false)
        let button = b.addFrame(name: b.intern("closure #1 in Button.init(action:label:)"), binary: swiftUI, isAppCode: false)
        let toggle = b.addFrame(name: b.intern("LandmarkRow.toggleFavorite()"), binary: landmarks, isAppCode: true)
        let listGetter = b.addFrame(name: b.intern("LandmarkList.body.getter"), binary: landmarks, isAppCode: true)
        let trap = b.addFrame(name: b.intern("mach_msg2_trap"), binary: b.intern("libsystem_kernel.dylib"), isAppCode: false)
        let toggleStack = b.addStack(rootToLeaf: [start, button, toggle])
        b.addStateChange(timestamp: 100_015_000, node: favorite, description: b.intern("@State isFavorite"), backtrace: toggleStack, thread: main)
        b.addStateChange(timestamp: 100_016_000, node: modelData, description: b.intern("@Observable ModelData.landmarks"), thread: main)
        for i in 0..<6 {
            let stack = i % 3 == 2 ? b.addStack(rootToLeaf: [start, trap]) : b.addStack(rootToLeaf: [start, button, listGetter])
            b.addSample(time: 100_000_000 + Int64(i) * 1_000_000, thread: i % 3 == 2 ? worker : main,
                        weight: i % 3 == 2 ? 500_000 : 1_000_000, stack: UInt32(stack))
        }
        b.addHang(TimelineInterval(start: 900_000_000, duration: 300_000_000, kind: "Hang", detail: "", thread: main))
        b.addHang(TimelineInterval(start: 1_300_000_000, duration: 120_000_000, kind: "Brief Unresponsiveness", detail: "", thread: main))
        b.addHitch(TimelineInterval(start: 200_000_000, duration: 16_666_666, kind: "Hitch", detail: "Potentially expensive app update(s)"))
        b.addHitch(TimelineInterval(start: 1_000_000_000, duration: 33_333_333, kind: "System Hitch", detail: ""))
        return try b.build()
    }
}

/// A trace's content with every reference resolved to what it names, for comparing traces
/// whose string tables, thread rows or node rows are numbered differently.
struct ResolvedTrace {
    var updates: [String] = []
    var groups: [String] = []
    var nodes: [String] = []
    var edges: [String] = []
    var changes: [String] = []
    var samples: [String] = []
    var hangs: [String] = []
    /// Without threads: the hitches table has no thread column.
    var hitches: [String] = []

    init(_ trace: Trace) {
        func thread(_ index: Int32) -> String {
            guard index != noRow else { return "-" }
            let thread = trace.threads[Int(index)]
            let process = trace.processes[Int(thread.process)]
            return "\(process.name)(\(process.pid))/\(thread.tid)/\(thread.name)\(thread.isMain ? "/main" : "")"
        }
        func stack(_ stack: Int32) -> String {
            guard stack != noRow else { return "-" }
            let frames = trace.cpu.frames
            return trace.cpu.stacks.frames(of: Int(stack)).map {
                "\(trace.string(frames.name[Int($0)]))@\(trace.string(frames.binary[Int($0)]))\(frames.isAppCode[Int($0)] ? "*" : "")"
            }.joined(separator: " > ")
        }
        func group(_ row: Int32) -> String {
            row == noRow ? "-" : "\(trace.updateGroups.start[Int(row)])"
        }
        let u = trace.updates
        updates = (0..<u.count).map { r in
            [String(u.start[r]), String(u.duration[r]), u.kind[r].wireName, u.sourceSeverity[r].wireName, trace.string(u.module[r]),
             trace.string(u.viewName[r]), trace.string(u.description[r]), trace.string(u.category[r]), String(u.allocations[r]),
             thread(u.thread[r]), group(u.group[r])].joined(separator: "|")
        }
        let g = trace.updateGroups
        groups = (0..<g.count).map { "\(g.start[$0])|\(g.duration[$0])|\(trace.string(g.label[$0]))|\(thread(g.thread[$0]))" }
        let n = trace.graph.nodes
        func node(_ row: Int) -> String { "\(n.eventID[row])" }
        nodes = (0..<n.count).map { r in
            // The export carries a node's time only as its update's start; a node without an
            // update (a gesture, a state) gets the time of its first edge, so it is left out here.
            let update = n.update[r] == noRow ? "-" : "\(u.start[Int(n.update[r])])"
            let time = n.update[r] == noRow ? "-" : "\(n.timestamp[r])"
            return "\(n.eventID[r])|\(n.kind[r].wireName)|\(trace.string(n.name[r]))|\(trace.string(n.owner[r]))|\(n.isAppCode[r])|\(time)|\(update)"
        }.sorted()
        let e = trace.graph.edges
        edges = (0..<e.count).map { r in
            "\(node(Int(e.source[r])))>\(node(Int(e.target[r])))|\(e.label[r].wireName)|\(trace.string(e.changedProperty[r]))|\(e.timestamp[r])|\(group(e.group[r]))"
        }.sorted()
        let c = trace.stateChanges
        changes = (0..<c.count).map { r in
            "\(c.timestamp[r])|\(node(Int(c.node[r])))|\(trace.string(c.description[r]))|\(stack(c.backtrace[r]))|\(thread(c.thread[r]))"
        }
        let s = trace.cpu.samples
        samples = (0..<s.count).map { "\(s.time[$0])|\(thread(s.thread[$0]))|\(s.weight[$0])|\(stack(Int32(s.stack[$0])))" }
        hangs = trace.hangs.map { "\($0.start)|\($0.duration)|\($0.kind)|\($0.detail)|\(thread($0.thread))" }
        hitches = trace.hitches.map { "\($0.start)|\($0.duration)|\($0.kind)|\($0.detail)" }
    }
}
