import Foundation
import Testing
@testable import TraceFormats
@testable import TraceModel

/// Exports with Instruments 27's columns (Fixtures/xctrace-27: an app called Trips, written for
/// these tests in the shape of public 27.0 exports).
@Suite struct XCTrace27Tests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/xctrace-27/\(name)", withExtension: "xml"))
        return [UInt8](try Data(contentsOf: url))
    }

    static func bundle(_ tables: [String]) throws -> [UInt8] {
        var files = [(name: "trips/toc.xml", bytes: try fixture("toc"))]
        for table in tables { files.append(("trips/\(table).xml", try fixture(table))) }
        return TarArchive.archive(files)
    }

    static func read(_ tables: [String], chunkSize: Int = 1 << 16) throws -> Trace {
        try XCTraceImporter.importTrace(from: .memory(try bundle(tables), chunkSize: chunkSize), displayName: "trips.tar")
    }

    static func frame(_ trace: Trace, _ name: String) throws -> Int {
        try #require((0..<trace.cpu.frames.count).first { trace.string(trace.cpu.frames.name[$0]) == name }, "no frame \(name)")
    }

    // MARK: Source locations

    @Test func appFramesKeepTheirFileAndLineSystemFramesHaveNone() throws {
        let trace = try Self.read(["time-profile"])
        #expect(trace.sourceLocation(ofFrame: try Self.frame(trace, "TripCard.body.getter"))
            == CodeLocation(path: "/Users/dev/Trips/Trips/Views/TripCard.swift", line: 88))
        // The path is a ref to an id written in an earlier row's frame.
        #expect(trace.sourceLocation(ofFrame: try Self.frame(trace, "TripStore.load()"))
            == CodeLocation(path: "/Users/dev/Trips/Trips/Model/TripStore.swift", line: 57))
        #expect(trace.sourceLocation(ofFrame: try Self.frame(trace, "read")) == nil)
        #expect(trace.sourceLocation(ofFrame: try Self.frame(trace, "ViewBodyAccessor.updateBody(of:changed:)")) == nil)
        // `<compiler-generated>` is no file.
        #expect(trace.sourceLocation(ofFrame: try Self.frame(trace, "closure #1 in TripCard.body.getter")) == nil)
        #expect(trace.sourceLocation(ofFrame: try Self.frame(trace, "TripCard.body.getter"))?.shortText == "TripCard.swift:88")
    }

    @Test func aFunctionSeenAtTwoLinesIsOneFrameWithTheFirstLine() throws {
        let trace = try Self.read(["time-profile"])
        let names = (0..<trace.cpu.frames.count).map { trace.string(trace.cpu.frames.name[$0]) }
        #expect(names.filter { $0 == "TripCard.body.getter" }.count == 1, "the call tree joins the function's calls")
        #expect(trace.sourceLocation(ofFrame: try Self.frame(trace, "TripCard.body.getter"))?.line == 88)
    }

    @Test func chunkBoundariesKeepSources() throws {
        let whole = try Self.read(["time-profile"])
        for size in [1, 7, 333] {
            let split = try Self.read(["time-profile"], chunkSize: size)
            #expect(split.cpu.frames.sourcePath.map(split.string) == whole.cpu.frames.sourcePath.map(whole.string))
            #expect(split.cpu.frames.sourceLine == whole.cpu.frames.sourceLine)
        }
    }

    @Test func anExportWithoutSourcesStoresNoSourceColumns() throws {
        let trace = try XCTraceImportTests.read(try XCTraceImportTests.fixture("time-profile"), name: "cpu.xml")
        #expect(trace.cpu.frames.count > 0)
        #expect(trace.cpu.frames.sourcePath.isEmpty && trace.cpu.frames.sourceLine.isEmpty)
        #expect(!String(decoding: NativeTraceWriter.encode(trace), as: UTF8.self).contains("TripCard"))
    }

    @Test func nativeFormatRoundTripsSources() throws {
        let trace = try Self.read(["time-profile"])
        let bytes = NativeTraceWriter.encode(trace)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#"["TripCard.body.getter", "Trips", true, "/Users/dev/Trips/Trips/Views/TripCard.swift", 88]"#))
        #expect(text.contains(#"["read", "libsystem_kernel.dylib", false]"#), "a frame without a source stays three values")
        let again = try TraceImporter.importTrace(at: try temporaryFile(bytes), displayName: "trips.json")
        #expect(again.sourceLocation(ofFrame: try Self.frame(again, "TripStore.load()"))?.shortText == "TripStore.swift:57")
        #expect(NativeTraceWriter.encode(again) == bytes)
    }

    @Test func aNegativeLineInANativeFileIsNamed() throws {
        let trace = try Self.read(["time-profile"])
        let text = String(decoding: NativeTraceWriter.encode(trace), as: UTF8.self)
            .replacingOccurrences(of: "TripCard.swift\", 88]", with: "TripCard.swift\", -88]")
        #expect {
            _ = try TraceImporter.importTrace(at: try temporaryFile(text), displayName: "trips.json")
        } throws: { error in
            "\(error)".contains("frames[") && "\(error)".contains("sourceLine") && "\(error)".contains("-88")
        }
    }

    @Test func callTreeFlameGraphAndStackChartCarrySources() throws {
        let trace = try Self.read(["time-profile"])
        let range = TimeRange(start: trace.metadata.start, end: trace.metadata.end)
        let tree = trace.callTree(CallTreeQuery(range: range, minPercent: 0))
        var pending = tree.roots
        var found: CallTreeNode?
        while let node = pending.popLast() {
            if node.name == "TripCard.body.getter" { found = node }
            pending += node.children
        }
        #expect(found?.source?.shortText == "TripCard.swift:88")
        let treeJSON = String(decoding: tree.json(), as: UTF8.self)
        #expect(treeJSON.contains(#""source":{"path":"/Users/dev/Trips/Trips/Views/TripCard.swift","line":88}"#))

        let graph = trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(range: range, minPercent: 0)))
        let index = try #require((0..<graph.frames.count).first { graph.names[graph.frames.name[$0]] == "TripStore.load()" })
        #expect(graph.sources[graph.frames.source[index]] == CodeLocation(path: "/Users/dev/Trips/Trips/Model/TripStore.swift", line: 57))
        let system = try #require((0..<graph.frames.count).first { graph.names[graph.frames.name[$0]] == "read" })
        #expect(graph.frames.source[system] == -1)

        let chart = trace.stackChart(StackChartQuery(tree: CallTreeQuery(range: range, minPercent: 0)))
        let box = try #require((0..<chart.boxes.count).first { chart.names[chart.boxes.name[$0]] == "TripListView.body.getter" })
        #expect(chart.sources[chart.boxes.source[box]].shortText == "TripListView.swift:31")
    }

    @Test func answersOfATraceWithoutSourcesHaveNoSourceKeys() throws {
        let trace = try XCTraceImportTests.read(try XCTraceImportTests.fixture("time-profile"), name: "cpu.xml")
        let range = TimeRange(start: trace.metadata.start, end: trace.metadata.end)
        let graph = String(decoding: trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(range: range, minPercent: 0))).json(), as: UTF8.self)
        let tree = String(decoding: trace.callTree(CallTreeQuery(range: range, minPercent: 0)).json(), as: UTF8.self)
        #expect(!graph.contains("source") && !tree.contains("\"source\""))
    }
}

extension XCTrace27Tests {
    @Test func exportingAndImportingKeepsSources() throws {
        let trace = try Self.read(["time-profile"])
        let again = try XCTraceRoundTripTests.roundTrip(trace, layout: .tarBundle)
        for name in ["TripCard.body.getter", "TripStore.load()", "read"] {
            #expect(again.sourceLocation(ofFrame: try Self.frame(again, name)) == trace.sourceLocation(ofFrame: try Self.frame(trace, name)), "\(name)")
        }
    }
}
