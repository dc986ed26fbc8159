import TraceFormats
import TraceModel

/// Large synthetic exports in the shape of a real SwiftUI recording, for benchmarks: a few
/// hundred view types, states and stacks reused everywhere (so most cells are `ref`s to
/// earlier ids), unique times and event ids, about three cause edges per update (the causes
/// table dominates real exports too). Streams: memory does not depend on the size.
///
/// Every row is a function of (seed, row index), so each table can be written on its own and
/// the tables agree with each other.
public struct XCTraceSyntheticExport: Sendable {
    public var updates: Int
    public var seed: UInt64
    /// App frames carry `<source line><path>` (Instruments 27).
    public var sources: Bool

    public init(updates: Int, seed: UInt64, sources: Bool = false) {
        self.updates = updates
        self.seed = seed
        self.sources = sources
    }

    static let updatesPerGroup = 8
    static let groupPeriod: Int64 = 4_000_000
    static let viewNames: [String] = (0..<300).map { (i: Int) -> String in
        let base: [String] = ["LandmarkRow", "CategoryItem", "FeatureCard", "BadgeSymbol", "HikeGraph", "MapView"]
        return i < 6 ? base[i] : base[i % 6] + String(i / 6)
    }
    static let stateNames = (0..<40).map { "@State item\($0)" }
    static let frameNames: [String] = (0..<200).map { (i: Int) -> String in
        switch i % 3 {
        case 0: "LandmarkRow\(i).body.getter"
        case 1: "closure #\(i) in ViewGraph.updateOutputs(at:)"
        default: "AG::Subgraph::update(unsigned int) [\(i)]"
        }
    }

    private func random(_ index: Int, _ salt: UInt64) -> UInt64 {
        var z = seed &+ UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15 &+ salt &* 0xD1B5_4A32_D192_ED03
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private func start(ofUpdate i: Int) -> Int64 {
        Int64(i / Self.updatesPerGroup) * Self.groupPeriod + Int64(i % Self.updatesPerGroup) * 300_000 + Int64(random(i, 1) % 50_000)
    }

    private func duration(ofUpdate i: Int) -> Int64 {
        let r = random(i, 2) % 1000
        // Mostly short bodies, a few long ones (orange and red).
        if r < 20 { return 1_000_000 + Int64(r) * 100_000 }
        if r < 50 { return 500_000 + Int64(r) * 10_000 }
        return 5_000 + Int64(r % 100) * 1_000
    }

    private var groupCount: Int { (updates + Self.updatesPerGroup - 1) / Self.updatesPerGroup }

    /// Writes all tables (concatenated documents) to `emit`.
    public func write(emit: @escaping ([UInt8]) throws -> Void) throws {
        var writer = XCTraceWriter(emit: emit)
        try writeUpdates(&writer)
        try writeGroups(&writer)
        try writeCauses(&writer)
        try writeChanges(&writer)
        try writeSamples(&writer)
        try writeHangs(&writer)
        try writeHitches(&writer)
        try writer.flush()
    }

    private let pid: Int32 = 4242
    private let app = "Landmarks"

    private func mainThread(_ w: inout XCTraceWriter) {
        w.thread(tid: 0x1e9000, name: "Main Thread", pid: pid, processName: app)
    }

    private func writeUpdates(_ w: inout XCTraceWriter) throws {
        let kinds: [UpdateKindName] = [.body, .body, .body, .body, .body, .body, .platform, .layout, .layout, .other]
        try w.table(schema: "swiftui-updates", tableIndex: 9, columns: XCTraceExporter.updateColumns, rows: 0..<updates) { i, w in
            let view = Self.viewNames[Int(random(i, 3) % UInt64(Self.viewNames.count))]
            let duration = duration(ofUpdate: i)
            let kind = kinds[Int(random(i, 4) % 10)]
            w.time("start-time", start(ofUpdate: i))
            w.duration(duration)
            w.leaf("uint32", String(1_000_000 + i), shared: false)
            w.leaf("swiftui-update", kind.rawValue)
            w.number("event-count", Int64(random(i, 5) % 20))
            w.string(view)
            w.string(kind == .layout ? "Layout" : "Update")
            w.sentinel()
            w.string(kind == .body || kind == .platform ? app : "SwiftUI")
            w.string(view)
            w.process(pid: pid, name: app)
            mainThread(&w)
            w.sentinel()
            w.leaf("event-concept", duration > 1_000_000 ? "High" : duration > 500_000 ? "Moderate" : duration > 100_000 ? "Low" : "Very Low")
            w.sentinel()
            w.sentinel()
            w.graphNode(name: view, isAppCode: true, symbol: "square")
            w.graphNode(name: view, isAppCode: true, symbol: "square")
        }
    }

    private enum UpdateKindName: String {
        case body = "View Body", platform = "Platform View", layout = "Layout", other = "Other Updates"
    }

    private func writeGroups(_ w: inout XCTraceWriter) throws {
        try w.table(schema: "swiftui-update-groups", tableIndex: 11, columns: XCTraceExporter.groupColumns, rows: 0..<groupCount) { g, w in
            w.time("start-time", Int64(g) * Self.groupPeriod)
            w.duration(Int64(Self.updatesPerGroup) * 300_000 + 3_200_000)
            w.string(g % 3 == 0 ? "Transaction (Button action)" : "(UnaryLayoutComputer<_FlexFrameLayout> LayoutComputer)")
            w.sentinel()
            w.sentinel()
            w.process(pid: pid, name: app)
            mainThread(&w)
        }
    }

    /// Three rows per update: its cause (a state for the first of a group, else the previous body),
    /// an environment writer, and a child that was notified but did not run.
    private func writeCauses(_ w: inout XCTraceWriter) throws {
        try w.table(schema: "swiftui-causes", tableIndex: 2, columns: XCTraceExporter.causeColumns, rows: 0..<updates * 3) { row, w in
            let (i, edgeOfUpdate) = row.quotientAndRemainder(dividingBy: 3)
            let g = i / Self.updatesPerGroup
            let time = start(ofUpdate: i)
            let view = Self.viewNames[Int(random(i, 3) % UInt64(Self.viewNames.count))]
            let event = Int64(1_000_000 + i)
            switch edgeOfUpdate {
            case 0 where i % Self.updatesPerGroup == 0:
                edge(&w, time, 500_000 + Int64(g % 40), Self.stateNames[g % 40], app: true, symbol: "dollarsign.square", event, view, "Update")
            case 0:
                let previous = Self.viewNames[Int(random(i - 1, 3) % UInt64(Self.viewNames.count))]
                edge(&w, time, event - 1, previous, app: true, symbol: "square", event, view, "Update")
            case 1:
                edge(&w, time, 400_000 + Int64(g % 16), "EnvironmentWriter: ForegroundStyle", app: false, symbol: "pencil.and.list.clipboard", event, view, "Update")
            default:
                let child = Self.viewNames[Int(random(i, 6) % UInt64(Self.viewNames.count))]
                edge(&w, time, event, view, app: true, symbol: "square", 3_000_000 + Int64(i), child, i % 5 == 0 ? "Creation" : "Update")
            }
        }
    }

    private func edge(
        _ w: inout XCTraceWriter, _ time: Int64, _ source: Int64, _ sourceName: String, app isAppCode: Bool, symbol: String,
        _ target: Int64, _ targetName: String, _ label: String
    ) {
        w.time("event-time", time)
        w.leaf("uint32", String(source), shared: false)
        w.graphNode(name: sourceName, isAppCode: isAppCode, symbol: symbol)
        w.leaf("uint32", String(target), shared: false)
        w.graphNode(name: targetName, isAppCode: true, symbol: "square")
        w.string(label)
        w.sentinel()
        w.sentinel()
        w.sentinel()
        w.process(pid: pid, name: app)
    }

    private func stack(_ index: Int, _ w: inout XCTraceWriter) {
        let depth = 8 + Int(random(index, 7) % 24)
        let frames = (0..<depth).map { level in
            let name = Self.frameNames[Int(random(index &* 64 &+ level, 8) % UInt64(level < 3 ? 20 : Self.frameNames.count))]
            let isApp = name.hasPrefix("LandmarkRow")
            let view = name.prefix { $0 != "." }
            return (name: name, binary: isApp ? app : "SwiftUICore",
                    path: isApp ? "/private/var/containers/Bundle/Application/Landmarks.app/Landmarks" : "/System/Library/Frameworks/SwiftUICore.framework/SwiftUICore",
                    source: isApp && sources ? CodeLocation(path: "/Users/dev/Landmarks/Landmarks/Views/\(view).swift", line: 20 + view.count) : nil)
        }
        w.backtrace(key: String(index), leafFirst: frames)
    }

    private func writeChanges(_ w: inout XCTraceWriter) throws {
        try w.table(schema: "swiftui-changes", tableIndex: 3, columns: XCTraceExporter.changeColumns, rows: 0..<groupCount) { g, w in
            w.time("event-time", Int64(g) * Self.groupPeriod)
            w.leaf("uint32", String(500_000 + g % 40))
            w.string(Self.stateNames[g % 40])
            stack(Int(random(g, 9) % 400), &w)
            w.process(pid: pid, name: app)
            mainThread(&w)
        }
    }

    private func writeSamples(_ w: inout XCTraceWriter) throws {
        try w.table(schema: "time-profile", tableIndex: 13, columns: XCTraceExporter.sampleColumns, rows: 0..<updates) { i, w in
            w.time("sample-time", start(ofUpdate: i) + 10_000)
            mainThread(&w)
            w.process(pid: pid, name: app)
            w.leaf("core", String(random(i, 10) % 6), fmt: "CPU \(random(i, 10) % 6) (P Core)")
            w.leaf("thread-state", "Running")
            w.leaf("weight", "1000000", fmt: "1.00 ms")
            stack(Int(random(i, 11) % 400), &w)
        }
    }

    private func writeHangs(_ w: inout XCTraceWriter) throws {
        try w.table(schema: "potential-hangs", tableIndex: 6, columns: XCTraceExporter.hangColumns, rows: stride(from: 250, to: groupCount, by: 2_500)) { g, w in
            w.time("start-time", Int64(g) * Self.groupPeriod)
            w.duration(g % 2 == 0 ? 300_000_000 : 120_000_000)
            w.leaf("hang-type", g % 2 == 0 ? "Hang" : "Brief Unresponsiveness")
            mainThread(&w)
            w.process(pid: pid, name: app)
        }
    }

    private func writeHitches(_ w: inout XCTraceWriter) throws {
        try w.table(schema: "hitches", tableIndex: 8, columns: XCTraceExporter.hitchColumns, rows: stride(from: 10, to: groupCount, by: 100)) { g, w in
            w.time("start-time", Int64(g) * Self.groupPeriod)
            w.duration(16_666_666)
            w.process(pid: pid, name: app)
            w.leaf("boolean", "0", fmt: "No")
            w.leaf("uint32", String(769_000 + g), shared: false)
            w.leaf("string", "0x" + String(769_000 + g, radix: 16), shared: false)
            w.leaf("display-name", "Display 1")
            w.string("Potentially expensive app update(s)")
        }
    }
}
