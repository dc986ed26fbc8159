import Foundation
import Testing
@testable import TraceFormats
@testable import TraceModel

/// Instruments 27's tables beyond the frames' sources: layout updates, downstream cost, hang
/// risks, SwiftUIFilteredUpdates (Fixtures/xctrace-27: the Trips app, written in 27.0's shape).
@Suite struct XCTrace27TablesTests {
    static func read(_ tables: [String]) throws -> Trace { try XCTrace27Tests.read(tables) }

    static func update(_ trace: Trace, description prefix: String) throws -> Int {
        try #require((0..<trace.updates.count).first { trace.string(trace.updates.description[$0]).hasPrefix(prefix) }, "no update \(prefix)")
    }

    static func update(_ trace: Trace, view: String) throws -> Int {
        try #require((0..<trace.updates.count).first { trace.string(trace.updates.viewName[$0]) == view && trace.updates.kind[$0] != .layout }, "no update of \(view)")
    }

    // MARK: Layout updates

    @Test func aLongLayoutIsARedOtherLongUpdateWithItsOwnMeasures() throws {
        let trace = try Self.read(["swiftui-updates", "SwiftUILayoutUpdates2", "swiftui-layout-updates"])
        let lazy = try Self.update(trace, description: "_LazyVStackLayout: sizeThatFits")
        #expect(trace.updates.kind[lazy] == .layout)
        #expect(trace.updates.duration[lazy] == 2_400_000)
        #expect(trace.updates.severity(lazy) == .red)
        #expect(trace.updates.sourceSeverity[lazy] == .moderate)
        #expect(trace.string(trace.updates.viewName[lazy]) == "LazyVStack")
        #expect(trace.updates.selfDuration(lazy) == 1_900_000)
        #expect(trace.updates.layoutDepth(lazy) == 0)
        #expect(trace.updates.isCached(lazy) == false)
        #expect(trace.indexes.updatesByLane[.longOther]?.contains(UInt32(lazy)) == true)

        let padding = try Self.update(trace, description: "_PaddingLayout")
        #expect(trace.updates.isCached(padding) == true && trace.updates.layoutDepth(padding) == 2)
        #expect(trace.updates.severity(padding) == .normal)
        #expect(trace.indexes.updatesByLane[.longOther]?.contains(UInt32(padding)) == false)
        #expect(trace.indexes.updatesByLane[.otherUpdates]?.contains(UInt32(padding)) == true)
        // 27 writes the layout pass twice: its rows are read once.
        #expect((0..<trace.updates.count).filter { trace.updates.kind[$0] == .layout }.count == 3)
        #expect(trace.metadata.importNotes.contains { $0.contains("Skipped table swiftui-layout-updates: its layout updates are those of SwiftUILayoutUpdates2") })
        // An update of swiftui-updates has no layout measures.
        #expect(trace.updates.selfDuration(try Self.update(trace, view: "TripCard")) == nil)
    }

    @Test func theTableWithDepthWinsInEitherOrder() throws {
        let legacyFirst = try Self.read(["swiftui-layout-updates", "SwiftUILayoutUpdates2"])
        let layout2First = try Self.read(["SwiftUILayoutUpdates2", "swiftui-layout-updates"])
        for trace in [legacyFirst, layout2First] {
            #expect(trace.updates.count == 3)
            #expect(trace.updates.layoutDepth(try Self.update(trace, description: "_FlexFrameLayout")) == 1)
        }
        let legacyAlone = try Self.read(["swiftui-layout-updates"])
        let flex = try Self.update(legacyAlone, description: "_FlexFrameLayout")
        #expect(legacyAlone.updates.layoutDepth(flex) == nil, "Instruments 26's table has no depth")
        #expect(legacyAlone.updates.selfDuration(flex) == 300_000)
        #expect(!legacyAlone.metadata.importNotes.contains { $0.contains("layout") })
    }

    @Test func splitAnywhereTheLayoutMeasuresStay() throws {
        let whole = try Self.read(["SwiftUILayoutUpdates2", "swiftui-updates"])
        for size in [1, 13, 333] {
            let split = try XCTraceImporter.importTrace(
                from: .memory(try XCTrace27Tests.bundle(["SwiftUILayoutUpdates2", "swiftui-updates"]), chunkSize: size), displayName: "trips.tar")
            #expect(split.updates.selfDuration == whole.updates.selfDuration)
            #expect(split.updates.layoutDepth == whole.updates.layoutDepth)
            #expect(split.updates.cached == whole.updates.cached)
            #expect(split.updates.downstreamCost == whole.updates.downstreamCost)
            #expect(split.updates.downstreamEvents == whole.updates.downstreamEvents)
        }
    }

    /// A layout row names the graph node that caused the pass (`full-cause-graph-node`): the pass
    /// becomes a node with an edge from the latest node of that title at or before it, so the
    /// layout's cause graph says why it ran and the cause's graph shows the pass it made run.
    @Test func aLayoutPassJoinsTheCauseGraphBelowItsCause() throws {
        let trace = try Self.read(["swiftui-updates", "swiftui-full-causes", "SwiftUILayoutUpdates2"])
        let nodes = trace.graph.nodes
        func node(ofUpdate row: Int) throws -> Int { Int(try #require(trace.indexes.nodes(ofUpdate: row).first, "update \(row) has no node")) }
        func causes(_ node: Int) -> [String] { trace.graph.incoming(node).map { trace.string(nodes.name[Int(trace.graph.edges.source[Int($0)])]) } }

        let lazy = try node(ofUpdate: try Self.update(trace, description: "_LazyVStackLayout"))
        #expect(trace.string(nodes.name[lazy]) == "LazyVStack" && trace.string(nodes.owner[lazy]) == "Layout")
        #expect(nodes.kind[lazy] == .other && nodes.timestamp[lazy] == 1_015_000_000)
        // TripListView's node of the @State change at 1.009 s (the only one of that title) caused it.
        let listNode = try #require(trace.graph.incoming(lazy).first.map { Int(trace.graph.edges.source[Int($0)]) })
        #expect(trace.string(nodes.name[listNode]) == "TripListView" && nodes.eventID[listNode] == 5100)
        #expect(causes(listNode) == ["@State selectedTrip"])

        // TripCard's passes hang off the TripCard body that ran at 1.010 s (update 2001), one node.
        let card = try Self.update(trace, view: "TripCard")
        let cardNode = try node(ofUpdate: card)
        for description in ["_FlexFrameLayout", "_PaddingLayout"] {
            let pass = try node(ofUpdate: try Self.update(trace, description: description))
            #expect(trace.graph.incoming(pass).map { Int(trace.graph.edges.source[Int($0)]) } == [cardNode])
        }
        // The cause graph of the long layout says what asked for it, as the page draws it.
        let document = try #require(trace.causeGraph(ofUpdate: try Self.update(trace, description: "_LazyVStackLayout")))
        // Its node says it is a layout pass and which call, over the layout that answered it.
        #expect(Set(document.nodes.map(\.title)).isSuperset(of: ["@State selectedTrip", "TripListView", "LazyVStack · layout (sizeThatFits)"]))
        #expect(document.nodes.first { $0.focus }?.subtitle == "_LazyVStackLayout")
        #expect(document.edges.contains { edge in
            document.nodes.first { $0.id == edge.from }?.title == "TripListView"
                && document.nodes.first { $0.id == edge.to }?.title == "LazyVStack · layout (sizeThatFits)"
        })
        // TripCard's body graph shows the two passes it made run, each a layout node of its own.
        let cardGraph = try #require(trace.causeGraph(ofUpdate: card))
        let passes = cardGraph.nodes.filter { $0.title.hasPrefix("TripCard · layout") }
        #expect(passes.map(\.title) == ["TripCard · layout (sizeThatFits)", "TripCard · layout (sizeThatFits)"])
        #expect(Set(passes.map(\.subtitle)) == ["_FlexFrameLayout", "_PaddingLayout"])
        // The body's node keeps its plain title.
        #expect(cardGraph.nodes.first { $0.focus }?.title == "TripCard")

        // Without a cause graph in the export, the cause is a node of its own, made once per title.
        let alone = try Self.read(["SwiftUILayoutUpdates2"])
        #expect(alone.graph.nodes.count == 2 + 3 && alone.graph.edges.count == 3)
        #expect((0..<alone.graph.nodes.count).filter { alone.graph.nodes.kind[$0] == .viewBody && alone.string(alone.graph.nodes.name[$0]) == "TripCard" }.count == 1)
    }

    /// A hang risk's details: what the recording flagged, the hang it fell in (how long it held
    /// the app), the app frame that did it with its line, the backtrace; and its lane's marks open it.
    @Test func aHangRiskSaysWhereItFellAndWhatDidIt() throws {
        let trace = try Self.read(["potential-hangs", "hang-risks"])
        let rows = (0..<trace.hangRisks.count).map { trace.string(trace.hangRisks.message[$0]) }
        let read = try #require(rows.firstIndex { $0.hasPrefix("Main thread performed file I/O") })
        let detail = try #require(trace.hangRiskDetail(read))
        #expect(detail.time == 3_050_000_000 && detail.severity == "High" && detail.eventType == "Hang Risk")
        #expect(detail.within == HangRiskDetail.Interval(lane: "hang", kind: "Hang", start: 3_000_000_000, duration: 320_000_000))
        #expect(detail.frame?.name == "TripStore.load()" && detail.frame?.source?.shortText == "TripStore.swift:57")
        #expect(detail.backtrace.first?.name == "read" && detail.backtrace.contains { $0.name == "Data.init(contentsOf:options:)" })
        #expect(detail.thread?.name.hasPrefix("Main Thread") == true)
        let semaphoreRow = try #require(rows.firstIndex { $0.hasPrefix("Main thread waited on a semaphore") })
        let semaphore = try #require(trace.hangRiskDetail(semaphoreRow))
        #expect(semaphore.within == nil && semaphore.frame?.source?.shortText == "TripStore.swift:80")
        #expect(trace.hangRiskDetail(trace.hangRisks.count) == nil && trace.hangRiskDetail(-1) == nil)

        // The lane: only in a recording with hang risks; a lone mark stands for its row.
        #expect(trace.allTimelineLanes.contains(.fixed(.hangRisks)))
        #expect(!(try Self.read(["potential-hangs"])).allTimelineLanes.contains(.fixed(.hangRisks)))
        let window = TimeRange(start: trace.metadata.start, end: trace.metadata.end)
        let lane = try #require(trace.timeline(window: window, width: 4000, lanes: [.hangRisks], index: TimelineIndex()).lanes["hang-risks"])
        let mark = try #require(lane.events.first { $0.start == 3_050_000_000 })
        #expect(mark.hangRisk == read && mark.count == 1 && mark.duration == 0 && mark.severity == .orange)
        #expect(mark.label == "Main thread performed file I/O: read 4.1 MB from trips.json")
        #expect(trace.timeline(window: window, width: 4000, lanes: [.hangRisks], index: TimelineIndex())
            == trace.timelineByFullScan(window: window, width: 4000, lanes: [.hangRisks]))
    }

    // MARK: Downstream cost

    @Test func downstreamCostAndEventsPerUpdate() throws {
        let trace = try Self.read(["swiftui-updates"])
        #expect(trace.updates.hasDownstream)
        let card = try Self.update(trace, view: "TripCard")
        #expect(trace.updates.downstreamCost(card) == 9_600_000)
        #expect(trace.updates.downstreamEvents(card) == 8)
        let list = try Self.update(trace, view: "TripListView")
        #expect(trace.updates.downstreamCost(list) == 600_000 && trace.updates.downstreamEvents(list) == 1)
        // An empty cell is no cost, not zero.
        #expect(trace.updates.downstreamCost(try Self.update(trace, view: "TripMapView")) == nil)
    }

    @Test func anExportWithoutDownstreamColumnsHasNoneAndTheSameNotes() throws {
        // The Landmarks fixture without its downstream columns (as exports before them are).
        let text = String(decoding: try XCTraceImportTests.fixture("swiftui-updates"), as: UTF8.self)
            .replacingOccurrences(of: "<mnemonic>downstream-", with: "<mnemonic>unread-")
        let trace = try XCTraceImportTests.read(Array(text.utf8), name: "updates.xml")
        let withColumns = try XCTraceImportTests.read(try XCTraceImportTests.fixture("swiftui-updates"), name: "updates.xml")
        #expect(withColumns.metadata.importNotes == trace.metadata.importNotes)
        #expect(withColumns.updates.duration == trace.updates.duration && withColumns.updates.viewName == trace.updates.viewName)
        #expect(trace.updates.count > 0)
        #expect(!trace.updates.hasDownstream)
        #expect(trace.updates.selfDuration.isEmpty && trace.updates.layoutDepth.isEmpty && trace.updates.cached.isEmpty)
        #expect(trace.hangRisks.count == 0)
        #expect(!trace.metadata.importNotes.contains { $0.contains("downstream") || $0.contains("layout") || $0.contains("hang-risks") })
        let detail = try #require(trace.updateDetail(0))
        #expect(detail.downstream == nil && !detail.downstreamRecorded && detail.layout == nil)
    }

    @Test func theUpdateDetailCarriesLayoutAndDownstream() throws {
        let trace = try Self.read(["swiftui-updates", "SwiftUILayoutUpdates2"])
        let card = try #require(trace.updateDetail(try Self.update(trace, view: "TripCard")))
        #expect(card.downstream == UpdateDetail.Downstream(cost: 9_600_000, events: 8))
        #expect(card.downstreamRecorded && card.layout == nil)
        let lazy = try #require(trace.updateDetail(try Self.update(trace, description: "_LazyVStackLayout")))
        #expect(lazy.kind == "layout" && lazy.severity == "red")
        #expect(lazy.layout?.selfDuration == 1_900_000 && lazy.layout?.depth == 0 && lazy.layout?.cached == false)
        #expect(lazy.downstream == nil && lazy.downstreamRecorded)
        let json = String(decoding: try JSONEncoder().encode(lazy), as: UTF8.self)
        #expect(json.contains(#""layout":{"#) && json.contains(#""selfDuration":1900000"#) && json.contains(#""downstream":null"#))
    }

    // MARK: SwiftUIFilteredUpdates

    static func filtered() throws -> [UInt8] {
        let text = String(decoding: try XCTrace27Tests.fixture("swiftui-updates"), as: UTF8.self)
            .replacingOccurrences(of: #"schema name="swiftui-updates""#, with: #"schema name="SwiftUIFilteredUpdates""#)
        return Array(text.utf8)
    }

    @Test func filteredUpdatesAreReadWhenSwiftUIUpdatesIsAbsent() throws {
        let alone = try XCTraceImportTests.read(try Self.filtered(), name: "filtered.xml")
        #expect(alone.updates.count == 3)
        #expect(alone.updates.downstreamCost(try Self.update(alone, view: "TripCard")) == 9_600_000)
        #expect(alone.metadata.importNotes.contains { $0.contains("read from SwiftUIFilteredUpdates") })
        #expect(!alone.metadata.importNotes.contains { $0.contains("No swiftui-updates table") && !$0.contains("SwiftUIFilteredUpdates") })

        // Its three instances partition the updates; an instance read twice adds nothing.
        let twice = try XCTraceImportTests.read(try Self.filtered() + Self.filtered(), name: "filtered.xml")
        #expect(twice.updates.count == 3)

        let both = try XCTraceImportTests.read(try Self.filtered() + XCTrace27Tests.fixture("swiftui-updates"), name: "both.xml")
        #expect(both.updates.count == 3)
        #expect(both.metadata.importNotes.contains { $0.contains("SwiftUIFilteredUpdates: not read") })
    }

    // MARK: Hang risks

    @Test func hangRisksKeepMessageSeverityTypeBacktraceAndThread() throws {
        let trace = try Self.read(["hang-risks"])
        let risks = trace.hangRisks
        #expect(risks.count == 3)
        #expect(risks.time == [500_000_000, 3_050_000_000, 3_900_000_000], "sorted by time")
        #expect(trace.string(risks.message[1]) == "Main thread performed file I/O: read 4.1 MB from trips.json")
        #expect(trace.string(risks.severity[1]) == "High" && trace.string(risks.eventType[1]) == "Hang Risk")
        #expect(risks.thread[1] != noRow && trace.threads[Int(risks.thread[1])].isMain)
        let frames = trace.cpu.stacks.frames(of: Int(risks.backtrace[1])).map { trace.string(trace.cpu.frames.name[Int($0)]) }
        #expect(frames == ["TripListView.body.getter", "TripStore.load()", "Data.init(contentsOf:options:)", "read"])
        #expect(trace.sourceLocation(ofFrame: try XCTrace27Tests.frame(trace, "TripStore.load()"))?.shortText == "TripStore.swift:57")
        // A path written once and referred to by a later row's frame.
        #expect(trace.sourceLocation(ofFrame: try XCTrace27Tests.frame(trace, "TripStore.save()"))?.shortText == "TripStore.swift:80")
        #expect(trace.sourceLocation(ofFrame: try XCTrace27Tests.frame(trace, "closure #1 in TripCard.body.getter")) == nil)
        // Sentinels: no severity, no backtrace.
        #expect(risks.severity[2] == 0 || trace.string(risks.severity[2]).isEmpty)
        #expect(risks.backtrace[2] == noRow)
    }
}

extension XCTrace27TablesTests {
    @Test func theNativeFormatKeepsLayoutDownstreamAndHangRisks() throws {
        let trace = try Self.read(["swiftui-updates", "SwiftUILayoutUpdates2", "hang-risks", "potential-hangs"])
        let bytes = NativeTraceWriter.encode(trace)
        let text = String(decoding: bytes, as: UTF8.self)
        // The layout row: its own time, depth and cached; no downstream.
        #expect(text.contains(#""layout", "SwiftUI", "LazyVStack", "_LazyVStackLayout: sizeThatFits((402.0, nil)) → (402.0, 2310.0)", "", 0, 0, null, "moderate", 1900000, 0, false, null, null]"#))
        #expect(text.contains(#""hangRisks": ["#))
        let again = try TraceImporter.importTrace(at: try temporaryFile(bytes), displayName: "trips.json")
        #expect(again.updates.selfDuration == trace.updates.selfDuration && again.updates.layoutDepth == trace.updates.layoutDepth)
        #expect(again.updates.cached == trace.updates.cached)
        #expect(again.updates.downstreamCost == trace.updates.downstreamCost && again.updates.downstreamEvents == trace.updates.downstreamEvents)
        #expect(again.hangRisks.time == trace.hangRisks.time && again.hangRisks.message.map(again.string) == trace.hangRisks.message.map(trace.string))
        let risk = try #require(again.hangRisks.time.firstIndex(of: 3_050_000_000))
        let leaf = Int(again.cpu.stacks.frame[Int(again.hangRisks.backtrace[risk])])
        #expect(again.string(again.cpu.frames.name[leaf]) == "read")
        #expect(NativeTraceWriter.encode(again) == bytes)
    }

    @Test func aTraceWithoutThemIsWrittenAsBefore() throws {
        let trace = try XCTrace27Tests.read(["time-profile"])
        let text = String(decoding: NativeTraceWriter.encode(trace), as: UTF8.self)
        #expect(!text.contains("hangRisks"))
    }

    @Test func aNegativeDownstreamCostInANativeFileIsNamed() throws {
        let trace = try Self.read(["swiftui-updates"])
        let text = String(decoding: NativeTraceWriter.encode(trace), as: UTF8.self)
            .replacingOccurrences(of: "9600000, 8]", with: "-9600000, 8]")
        #expect {
            _ = try TraceImporter.importTrace(at: try temporaryFile(text), displayName: "trips.json")
        } throws: { error in
            "\(error)".contains("updates[") && "\(error)".contains("downstreamCost") && "\(error)".contains("negative")
        }
    }
}

// MARK: Findings

extension XCTrace27TablesTests {
    static let all = ["swiftui-updates", "SwiftUILayoutUpdates2", "swiftui-layout-updates", "time-profile", "potential-hangs", "hang-risks"]

    @Test func theHangNamesTheFileReadThatHeldIt() throws {
        let trace = try Self.read(Self.all)
        let hang = try #require(trace.findings().first { $0.kind == .hangExplained })
        #expect(hang.title.hasPrefix("Hang of 320 ms at 3.000 s: Main thread performed file I/O: read 4.1 MB from trips.json in TripStore.load(), TripStore.swift:57 (main thread blocked"))
        #expect(hang.evidence.frames.first?.name == "TripStore.load()")
        #expect(hang.evidence.frames.first?.source?.shortText == "TripStore.swift:57")
        #expect(hang.evidence.frames.first?.caller == "TripListView.body.getter")
        #expect(hang.fix.hasPrefix("Move TripStore.load() off the main thread"))
        // Without hang-risks the same hang reads as before.
        let without = try Self.read(Self.all.filter { $0 != "hang-risks" })
        let plain = try #require(without.findings().first { $0.kind == .hangExplained })
        #expect(plain.title.contains("main thread blocked") && !plain.title.contains("TripStore"))
    }

    @Test func hangRisksOutsideAnyHangAreFindingsOfTheirOwn() throws {
        let trace = try Self.read(Self.all)
        let risks = trace.findings().filter { $0.kind == .hangRisk }
        #expect(risks.map(\.title) == [
            "Hang risk at 0.500 s: Main thread waited on a semaphore in TripStore.save(), TripStore.swift:80",
            "Hang risk at 3.900 s: Main thread performed synchronous IPC",
        ] || risks.map(\.title) == [
            "Hang risk at 3.900 s: Main thread performed synchronous IPC",
            "Hang risk at 0.500 s: Main thread waited on a semaphore in TripStore.save(), TripStore.swift:80",
        ])
        let semaphore = try #require(risks.first { $0.title.contains("semaphore") })
        #expect(semaphore.evidence.frames.first?.source?.shortText == "TripStore.swift:80")
        #expect(semaphore.fix.contains("TripStore.save()"))
        #expect(!risks.contains { $0.title.contains("file I/O") }, "the risk inside the hang explains the hang")
    }

    @Test func aLongLayoutIsAFindingWithWhatToChange() throws {
        let trace = try Self.read(Self.all)
        let layout = try #require(trace.findings().first { $0.kind == .longLayout })
        #expect(layout.title == "LazyVStack layout (_LazyVStackLayout sizeThatFits) took 2.40 ms (1.90 ms in the layout itself), not cached")
        #expect(layout.fix.contains("fixed .frame"))
        #expect(layout.evidence.representativeUpdate == (try Self.update(trace, description: "_LazyVStackLayout")))
        #expect(layout.worstNs == 2_400_000 && layout.severity == .medium)
        #expect(trace.findings().filter { $0.kind == .longLayout }.count == 1, "the 700 µs and 12 µs layouts are not long")
    }
}
