import Foundation
import Testing
@testable import TraceFormats
import TraceModel

/// More of a real recording: the CPU Profiler's `cpu-profile`, exports of several runs, value
/// nodes of the full cause graph, no invented refresh rate. Fixtures are written in the shape
/// `xctrace export` gives (Xcode 26), for an app other than the Landmarks demo ("Trails").
@Suite struct XCTraceRecordingTests {
    static func fixture(_ name: String) throws -> [UInt8] { try XCTraceImportTests.fixture(name) }

    static func read(_ bytes: [UInt8], name: String = "trails.xml", run: Int? = nil) throws -> Trace {
        try XCTraceImporter.importTrace(from: .memory(bytes, chunkSize: 1 << 16), displayName: name, run: run)
    }

    // MARK: CPU Profiler

    @Test func cpuProfileFillsTheCPULaneAndCallTreeInCycles() throws {
        let trace = try Self.read(try Self.fixture("cpu-profile"))
        let samples = trace.cpu.samples
        #expect(trace.metadata.cpuWeightUnit == .cycles)
        #expect(samples.count == 8)
        // Weights are the cycle counts as exported, refs resolved, never turned into time.
        #expect(samples.weight.first == 1_000_040)
        let exportedCycles: [Int64] = [1_000_040, 1_000_052, 1_000_040, 1_000_061, 999_987, 1_000_040, 412_300, 412_300]
        #expect(samples.weight.sorted() == exportedCycles.sorted())
        let threadNames = Set(trace.threads.map(\.name))
        #expect(threadNames == ["Main Thread", "com.trails.imagedecode"])
        #expect(trace.metadata.app == "Trails")
        // The app's frames are app code; an unsymbolicated frame (no <binary>) keeps its address.
        let frames = trace.cpu.frames
        let names = frames.name.map(trace.string)
        let body = try #require(names.firstIndex(of: "TrailMapView.body.getter"))
        #expect(frames.isAppCode[body])
        #expect(!frames.isAppCode[try #require(names.firstIndex(of: "ViewGraph.updateOutputs(async:)"))])
        #expect(names.contains("0x1a2b3c4d5"))
        // A cycle count is no duration: the trace ends at the last sample's time.
        #expect(trace.metadata.end == 501_400_000)

        let tree = trace.callTree(CallTreeQuery(minPercent: 0))
        #expect(tree.unit == .cycles && tree.totalWeight == samples.weight.reduce(0, +))
        let json = String(decoding: tree.json(), as: UTF8.self)
        #expect(json.contains("\"unit\":\"cycles\""))
        #expect(trace.metadata.importNotes.contains { $0.contains("CPU weights are cycles") })
        #expect(!trace.metadata.importNotes.contains { $0.hasPrefix("No time-profile table") }, "cpu-profile is the CPU lane")
    }

    @Test func theCPULaneOfCyclesIsLoadAtTheClockRateTheSamplesShow() throws {
        let trace = try Self.read(try Self.fixture("cpu-profile"))
        // The main thread runs a million cycles every 0.28 ms (3.57 GHz): from 501 ms to 502 ms
        // its two samples are 2 M cycles, 0.56 of a millisecond at that rate (cycles per ns
        // read as a fraction would be 2.0, clamped to a full lane).
        let window = TimeRange(start: 501_000_000, end: 502_000_000)
        let lane = try #require(trace.timelineByFullScan(window: window, width: 1, lanes: [.cpu]).lanes[Lane.cpu.rawValue])
        let load = try #require(lane.events.first?.mainLoad)
        #expect(abs(load - 2_000_027.0 / 1_000_000 / (1_000_040.0 / 280_000)) < 0.02, "\(load)")
    }

    @Test func cpuProfileBesideTimeProfileIsNotAddedToIt() throws {
        let time = try Self.fixture("time-profile")
        let cycles = try Self.fixture("cpu-profile")
        let timeOnly = try Self.read(time, name: "both.xml")
        for both in [time + cycles, cycles + time] {
            let trace = try Self.read(both, name: "both.xml")
            #expect(trace.metadata.cpuWeightUnit == .nanoseconds)
            #expect(trace.cpu.samples.weight == timeOnly.cpu.samples.weight)
            #expect(trace.metadata.importNotes.contains { $0.contains("cpu-profile: 8 samples weighted in cycles were not used") })
        }
        #expect(timeOnly.callTree(CallTreeQuery()).unit == .nanoseconds)
        // A second table of time samples (another name, same CPU) is not added either.
        let renamed = String(decoding: time, as: UTF8.self).replacingOccurrences(of: "schema name=\"time-profile\"", with: "schema name=\"cpu-profile\"")
        let twoTimeTables = try Self.read(time + Array(renamed.utf8), name: "two.xml")
        #expect(twoTimeTables.cpu.samples.weight == timeOnly.cpu.samples.weight)
        #expect(twoTimeTables.metadata.importNotes.contains("Skipped table cpu-profile: its CPU samples are those of time-profile, already read."))
    }

    @Test func aCycleTraceKeepsItsUnitInTheNativeFormatAndATimeTraceIsUnchanged() throws {
        let trace = try Self.read(try Self.fixture("cpu-profile"))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cycles-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try NativeTraceWriter.write(trace, to: url)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("\"cpuWeightUnit\": \"cycles\""))
        #expect(!text.contains("refreshRate"), "an unknown refresh rate is left out, not written as 60")
        let again = try NativeTraceReader.read(at: url, displayName: "cycles.json")
        #expect(again.metadata.cpuWeightUnit == .cycles && again.metadata.refreshRate == nil)
        #expect(again.cpu.samples.weight == trace.cpu.samples.weight)
        // A trace in CPU time writes no unit: files of version 1 stay what they were.
        let timeTrace = try Self.read(try Self.fixture("time-profile"))
        #expect(!String(decoding: NativeTraceWriter.encode(timeTrace), as: UTF8.self).contains("cpuWeightUnit"))
    }

    @Test func exportXCTraceWritesCyclesAsTheCPUProfilerDoes() throws {
        let trace = try Self.read(try Self.fixture("cpu-profile"))
        var xml: [UInt8] = []
        try XCTraceExporter.export(trace, layout: .concatenatedXML) { xml += $0 }
        let text = String(decoding: xml, as: UTF8.self)
        #expect(text.contains("<schema name=\"cpu-profile\">") && text.contains("<engineering-type>cycle-weight</engineering-type>"))
        #expect(!text.contains("\"time-profile\""))
        let again = try Self.read(xml, name: "again.xml")
        #expect(again.metadata.cpuWeightUnit == .cycles && again.cpu.samples.weight == trace.cpu.samples.weight)
    }

    @Test func theNativeFormatReadsANullRefreshRateAndRefusesAnUnknownUnit() throws {
        let nullRate = minimalTrace.replacingOccurrences(of: "\"refreshRate\": 120", with: "\"refreshRate\": null, \"cpuWeightUnit\": \"cycles\"")
        let trace = try TraceImporter.importTrace(at: try temporaryFile(nullRate), displayName: "null-rate.json")
        #expect(trace.metadata.refreshRate == nil && trace.metadata.cpuWeightUnit == .cycles)
        let badUnit = minimalTrace.replacingOccurrences(of: "\"refreshRate\": 120", with: "\"cpuWeightUnit\": \"ms\"")
        let error = try importError(badUnit)
        #expect(error.contains("cpuWeightUnit: is \"ms\"; expected \"ns\" or \"cycles\""), "\(error)")
    }

    // MARK: Several runs

    static func twoRuns() throws -> [UInt8] { try fixture("two-runs-toc") + fixture("two-runs") }

    @Test func runOneIsReadByDefaultWithANoteNamingTheOthers() throws {
        let trace = try Self.read(try Self.twoRuns())
        #expect(trace.hangs.count == 1 && trace.hitches.count == 1, "run 1 alone, runs never added together")
        #expect(trace.hangs.first?.duration == 310_000_000)
        #expect(trace.metadata.duration == 4_000_000_000, "run 1's table of contents")
        #expect(trace.metadata.recordedAt == "2026-11-21T09:15:02.100+00:00")
        #expect(trace.processes.map(\.pid) == [7311])
        let note = try #require(trace.metadata.importNotes.first { $0.contains("runs (1, 2)") })
        #expect(note.contains("run 1 was read") && note.contains("run 2 is a separate recording") && note.contains("?run=N"))
    }

    @Test func anotherRunIsReadWhenAskedFor() throws {
        let trace = try Self.read(try Self.twoRuns(), run: 2)
        #expect(trace.hangs.count == 2 && trace.hitches.count == 2)
        #expect(trace.hangs.map(\.kind) == ["Microhang", "Hang"])
        #expect(trace.metadata.duration == 6_000_000_000)
        #expect(trace.metadata.recordedAt == "2026-11-21T09:16:40.700+00:00")
        #expect(trace.processes.map(\.pid) == [7420])
        #expect(trace.metadata.importNotes.contains { $0.contains("run 2 was read") && $0.contains("run 1 is a separate recording") })
    }

    @Test func aRunTheExportDoesNotHoldIsAClearError() throws {
        let error = try #require(throws: TraceFormatError.self) { try Self.read(try Self.twoRuns(), run: 3) }
        #expect(error.description.contains("the export has no tables of run 3; it holds runs 1, 2"), "\(error.description)")
    }

    /// `export-instruments-trace.sh --run 2`: the toc of every run, the tables of run 2 alone.
    @Test func aBundleOfOneLaterRunReadsThatRun() throws {
        let text = String(decoding: try Self.fixture("two-runs"), as: UTF8.self)
        let nodes = text.components(separatedBy: "<node ").filter { $0.contains("run[2]") }
            .map { "<node " + $0.replacingOccurrences(of: "</trace-query-result>\n", with: "") }
        let runTwo = "<?xml version=\"1.0\"?>\n<trace-query-result>\n" + nodes.joined() + "</trace-query-result>\n"
        let bundle = TarArchive.archive([("trails/toc.xml", try Self.fixture("two-runs-toc")), ("trails/tables.xml", Array(runTwo.utf8))])
        let trace = try Self.read(bundle, name: "trails.tar")
        #expect(trace.hangs.count == 2 && trace.hitches.count == 2)
        #expect(trace.metadata.duration == 6_000_000_000, "run 2's table of contents")
        #expect(!trace.metadata.importNotes.contains { $0.contains("separate recording") }, "no other run's tables in the file")
        let error = try #require(throws: TraceFormatError.self) { try Self.read(bundle, name: "trails.tar", run: 1) }
        #expect(error.description.contains("no tables of run 1; it holds run 2"), "\(error.description)")
    }

    @Test func aSeveralRunFileJoinedWithItselfIsReadOnceWithBothNotes() throws {
        let once = try Self.read(try Self.twoRuns(), run: 2)
        let twice = try Self.read(try Self.twoRuns() + Self.fixture("two-runs"), run: 2)
        #expect(twice.hangs.count == once.hangs.count && twice.hitches.count == once.hitches.count)
        #expect(twice.metadata.importNotes.contains { $0.contains("potential-hangs more than once in run 2") })
        #expect(twice.metadata.importNotes.contains { $0.contains("runs (1, 2)") })
    }

    @Test func theRunOfANodeIsReadFromItsXPath() {
        #expect(XCTraceReader.run(inXPath: "//trace-toc[1]/run[12]/data[1]/table[35]") == 12)
        #expect(XCTraceReader.run(inXPath: "//trace-toc[1]/data[1]") == nil)
        #expect(XCTraceReader.run(inXPath: "/run[x]") == nil)
    }

    // MARK: Defects

    @Test func anExportWithoutARefreshRateHasNone() throws {
        let trace = try Self.read(try Self.twoRuns())
        #expect(trace.metadata.refreshRate == nil)
        #expect(trace.metadata.frameDuration == 16_666_666, "frame budgets fall back to 60 Hz")
    }

    @Test func fullCauseValueNodesAreNotViewBodiesByTheirColumns() throws {
        let trace = try Self.read(try Self.fixture("swiftui-full-causes-values"))
        let nodes = trace.graph.nodes
        var kinds: [String: NodeKind] = [:]
        for node in 0..<nodes.count { kinds[trace.string(nodes.name[node])] = nodes.kind[node] }
        // Type names whose rows say no update ran: an environment value and an app's attribute.
        #expect(kinds["TintShapeStyleEnvironment"] == .other)
        #expect(kinds["TrailFilterAttribute"] == .other)
        // Updates that ran (a start and a duration in the node) are bodies, app's or system's.
        #expect(kinds["TrailRow"] == .viewBody && kinds["TrailList"] == .viewBody && kinds["NavigationStack"] == .viewBody)
        #expect(kinds["External: EnvironmentValues"] == .externalEnvironment)
        // A body notified but not run has neither a value time nor an update: still a view body (dimmed).
        #expect(kinds["TrailBadge"] == .viewBody)
        let badge = try #require((0..<nodes.count).first { trace.string(nodes.name[$0]) == "TrailBadge" })
        #expect(nodes.update[badge] == noRow)
    }
}
