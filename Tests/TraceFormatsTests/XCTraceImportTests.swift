import Foundation
import Testing
@testable import TraceFormats
import TraceModel

/// Exports in the exact shape `xctrace export` writes (see Fixtures/xctrace), read back into the model.
@Suite struct XCTraceImportTests {
    static let tableFiles = [
        "swiftui-updates", "swiftui-update-groups", "swiftui-causes", "swiftui-changes",
        "time-profile", "potential-hangs", "hitches", "hitches-renders",
    ]

    static func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/xctrace/\(name)", withExtension: "xml"))
        return [UInt8](try Data(contentsOf: url))
    }

    /// The bundle `scripts/export-instruments-trace.sh` makes: toc.xml plus one file per table.
    static func bundle(_ tables: [String] = tableFiles) throws -> [UInt8] {
        var files = [(name: "landmarks/toc.xml", bytes: try fixture("toc"))]
        for table in tables { files.append(("landmarks/\(table).xml", try fixture(table))) }
        return TarArchive.archive(files)
    }

    static func read(_ bytes: [UInt8], name: String = "landmarks.tar", chunkSize: Int = 1 << 16) throws -> Trace {
        try XCTraceImporter.importTrace(from: .memory(bytes, chunkSize: chunkSize), displayName: name)
    }

    @Test func paxAndGNULongNamesAreReadNotSkipped() throws {
        // A folder name past ustar's 100 bytes: pax (GNU tar --format=pax, bsdtar, Python's
        // tarfile) stores the path in an `x` header and a truncated name in the member's own.
        let folder = String(repeating: "Landmarks-run-recorded-on-an-iPhone-", count: 4)
        func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: (512 - bytes.count % 512) % 512) }
        func paxRecord(_ key: String, _ value: String) -> [UInt8] {
            let body = " \(key)=\(value)\n"
            var length = body.utf8.count + 1
            while "\(length)\(body)".utf8.count != length { length += 1 }
            return Array("\(length)\(body)".utf8)
        }
        var pax: [UInt8] = []
        var gnu: [UInt8] = []
        for table in ["toc"] + Self.tableFiles {
            let path = "\(folder)/\(table).xml"
            let content = try Self.fixture(table)
            let record = paxRecord("path", path)
            pax += TarArchive.header(name: "PaxHeaders/x", size: record.count, type: UInt8(ascii: "x")) + padded(record)
            pax += TarArchive.header(name: String(path.prefix(99)), size: content.count) + padded(content)
            gnu += TarArchive.header(name: "././@LongLink", size: path.utf8.count + 1, type: UInt8(ascii: "L")) + padded(Array(path.utf8) + [0])
            gnu += TarArchive.header(name: String(path.prefix(99)), size: content.count) + padded(content)
        }
        let expected = try Self.read(try Self.bundle())
        for archive in [pax, gnu] {
            let trace = try Self.read(archive + [UInt8](repeating: 0, count: 1024))
            #expect(trace.updates.count == expected.updates.count)
            #expect(trace.metadata.device == expected.metadata.device, "the toc was read too")
        }
    }

    @Test func bundleGivesUpdatesWithKindsSeveritiesAndGroups() throws {
        let trace = try Self.read(try Self.bundle())
        let updates = trace.updates
        #expect(updates.count == 5)
        #expect(updates.start == [1_000_100_000, 1_001_400_000, 1_002_100_000, 1_016_100_000, 1_016_950_000])
        #expect(updates.kind == [.viewBody, .viewBody, .layout, .representable, .other])
        #expect(updates.sourceSeverity == [.high, .moderate, .veryLow, .low, .none])
        #expect((0..<5).map(updates.severity) == [.red, .orange, .normal, .orange, .normal])
        #expect(updates.viewName.map(trace.string) == ["LandmarkList", "LandmarkListItemView", "VStack", "MapView", "Text"])
        #expect(updates.module.map(trace.string) == ["Landmarks", "Landmarks", "SwiftUI", "Landmarks", "SwiftUI"])
        // Entities decoded; a sentinel description is empty.
        #expect(trace.string(updates.description[2]) == "VStack<TupleView<(Text, Image)>>")
        #expect(trace.string(updates.description[4]) == "")
        #expect(updates.allocations == [12, 3, 0, 3, 0])
        #expect(updates.group == [0, 0, 0, 1, 1])
        #expect(trace.string(trace.updateGroups.label[1]) == "(UnaryLayoutComputer<_FlexFrameLayout> LayoutComputer)")
        #expect(trace.indexes.updatesByLane[.longViewBody] == [0, 1])
        #expect(trace.indexes.updatesByLane[.longRepresentable] == [3])
    }

    @Test func threadsAndProcessesAreSharedAcrossTables() throws {
        let trace = try Self.read(try Self.bundle())
        #expect(trace.processes == [TraceProcess(pid: 4242, name: "Landmarks")])
        #expect(trace.threads.count == 2)
        let main = try #require(trace.threads.firstIndex { $0.isMain })
        #expect(trace.threads[main] == TraceThread(tid: 1_994_752, name: "Main Thread", process: 0, isMain: true))
        #expect(trace.threads.contains { $0.name == "com.apple.uikit.eventfetch-thread" && !$0.isMain })
        #expect(trace.updates.thread.allSatisfy { $0 == Int32(main) })
        #expect(trace.hangs.map(\.thread) == [Int32(main), Int32(main)])
    }

    @Test func causeGraphNodesHaveKindsAndLinkToTheirUpdates() throws {
        let trace = try Self.read(try Self.bundle())
        let nodes = trace.graph.nodes
        #expect(nodes.count == 12)
        #expect(trace.graph.edges.count == 8)
        let byEvent = Dictionary(uniqueKeysWithValues: nodes.eventID.enumerated().map { ($1, $0) })
        try #require(Set(byEvent.keys) == [401, 402, 403, 404, 405, 406, 407, 501, 502, 503, 504, 506])
        func node(_ event: Int64) -> Int { byEvent[event]! }
        let expected: [(Int64, NodeKind, String)] = [
            (401, .state, "@State isFavorite"), (501, .viewBody, "LandmarkList"), (402, .externalEnvironment, "External Environment"),
            (403, .environmentWriter, "EnvironmentWriter: ForegroundStyle"), (404, .viewCreation, "View Creation / Reuse"),
            (405, .gesture, "Gesture: TapGesture"), (406, .observable, "@Observable ModelData.landmarks"), (407, .other, "<graph>"),
            (506, .viewBody, "LandmarkDetail"),
        ]
        for (event, kind, name) in expected {
            let row = node(event)
            #expect(nodes.kind[row] == kind, "node \(event)")
            #expect(trace.string(nodes.name[row]) == name)
        }
        #expect(trace.string(nodes.owner[node(406)]) == "ModelData")
        #expect(nodes.isAppCode[node(401)] && !nodes.isAppCode[node(402)])
        // A body with an update ran; LandmarkDetail was notified (by the environment) but did not run.
        #expect(nodes.update[node(501)] == 0)
        #expect(nodes.update[node(503)] == 2)
        #expect(nodes.didRun(node(501)))
        #expect(!nodes.didRun(node(506)))
        #expect(Array(trace.indexes.nodes(ofUpdate: 3)) == [UInt32(node(504))])

        let edges = trace.graph.edges
        let creation = try #require(edges.label.firstIndex(of: .creation))
        #expect(edges.source[creation] == UInt32(node(404)) && edges.target[creation] == UInt32(node(504)))
        #expect(edges.group[creation] == 1)
        let fromObservable = try #require(edges.source.firstIndex(of: UInt32(node(406))))
        #expect(trace.string(edges.changedProperty[fromObservable]) == "landmarks")
        #expect(trace.graph.incoming(node(501)).count == 2)
    }

    @Test func stateChangesKeepBacktracesAndSkipUnknownNodes() throws {
        let trace = try Self.read(try Self.bundle())
        let changes = trace.stateChanges
        #expect(changes.count == 2)
        #expect(changes.node.map { trace.graph.nodes.eventID[Int($0)] } == [401, 406])
        let frames = trace.cpu.stacks.frames(of: Int(changes.backtrace[0]))
        #expect(frames.map { trace.string(trace.cpu.frames.name[Int($0)]) } == [
            "start", "closure #1 in Button.init(action:label:)", "LandmarkRow.toggleFavorite()", "AG::Graph::Context::set_needs_update()",
        ])
        #expect(frames.map { trace.cpu.frames.isAppCode[Int($0)] } == [false, false, true, false])
        #expect(trace.metadata.importNotes.contains { $0.contains("swiftui-changes: 1 changes") })
    }

    @Test func timeProfileSharesStacksAndFrames() throws {
        let trace = try Self.read(try Self.bundle())
        let samples = trace.cpu.samples
        #expect(samples.count == 4)
        #expect(samples.weight == [1_000_000, 1_000_000, 1_000_000, 500_000])
        #expect(samples.stack[0] == samples.stack[1])
        let names = trace.cpu.stacks.frames(of: Int(samples.stack[2])).map { trace.string(trace.cpu.frames.name[Int($0)]) }
        #expect(names == ["start", "ViewBodyAccessor.updateBody(of:changed:)", "LandmarkListItemView.body.getter"])
        #expect(trace.metadata.importNotes.contains("CPU samples: 1 samples without a backtrace were left out."))
    }

    @Test func taggedBacktracesGiveTheSameStacks() throws {
        let plain = try Self.read(try Self.bundle(["time-profile"]))
        let tagged = try Self.read(try Self.bundle(["time-profile-tagged"]))
        func paths(_ trace: Trace) -> [[String]] {
            (0..<3).map { row in
                trace.cpu.stacks.frames(of: Int(trace.cpu.samples.stack[row])).map { trace.string(trace.cpu.frames.name[Int($0)]) }
            }
        }
        #expect(paths(tagged) == paths(plain))
        #expect(tagged.cpu.frames.isAppCode.filter { $0 }.count == 2)
    }

    @Test func hangsHitchesAndMetadata() throws {
        let trace = try Self.read(try Self.bundle())
        #expect(trace.hangs.map(\.kind) == ["Hang", "Brief Unresponsiveness"])
        #expect(trace.hangs.map(\.duration) == [260_000_000, 120_000_000])
        #expect(trace.hitches.map(\.kind) == ["Hitch", "System Hitch"])
        #expect(trace.hitches.map(\.detail) == ["Potentially expensive app update(s)", ""])
        let metadata = trace.metadata
        #expect(metadata.name == "landmarks")
        #expect(metadata.sourceFormat == "xctrace-export")
        #expect(metadata.app == "Landmarks")
        #expect(metadata.device == "iPhone 16 Pro")
        #expect(metadata.osVersion == "26.0 (23A341)")
        #expect(metadata.recordedAt == "2026-11-20T14:03:12.512+01:00")
        #expect(metadata.start == 0 && metadata.end == 3_000_000_000)
        #expect(metadata.importNotes.contains("Skipped table hitches-renders: tracesvc does not read it."))
        #expect(!metadata.importNotes.contains { $0.hasPrefix("No ") })
    }

    @Test func concatenatedTablesReadLikeTheBundle() throws {
        var joined: [UInt8] = []
        for table in Self.tableFiles { joined += try Self.fixture(table) }
        let concatenated = try Self.read(joined, name: "export.xml")
        let bundled = try Self.read(try Self.bundle())
        #expect(concatenated.updates.start == bundled.updates.start)
        #expect(concatenated.graph.edges.count == bundled.graph.edges.count)
        #expect(concatenated.cpu.samples.stack == bundled.cpu.samples.stack)
        // Without a table of contents the app is the process that ran the updates.
        #expect(concatenated.metadata.app == "Landmarks")
        #expect(concatenated.metadata.name == "export")
    }

    @Test func aFileJoinedWithItselfIsReadOnceWithANote() throws {
        var once: [UInt8] = []
        for table in Self.tableFiles { once += try Self.fixture(table) }
        let single = try Self.read(once, name: "export.xml")
        let doubled = try Self.read(once + once, name: "export.xml")
        #expect(doubled.updates.count == single.updates.count)
        #expect(doubled.cpu.samples.count == single.cpu.samples.count)
        #expect(doubled.graph.edges.count == single.graph.edges.count)
        #expect(doubled.metadata.importNotes.contains { $0.contains("swiftui-updates more than once") })
    }

    @Test func withoutATableOfContentsTheTraceEndsWhereTheLastSampleEnds() throws {
        let trace = try Self.read(try Self.fixture("time-profile"), name: "cpu.xml")
        let last = trace.cpu.samples.count - 1
        #expect(trace.metadata.end == trace.cpu.samples.time[last] + trace.cpu.samples.weight[last])
        // So a query over the whole trace counts every sample.
        let whole = trace.callTree(CallTreeQuery(range: TimeRange(start: trace.metadata.start, end: trace.metadata.end), minPercent: 0))
        #expect(whole.sampleCount == trace.cpu.samples.count)
    }

    @Test func aCausesOnlyExportSpansItsEdges() throws {
        let trace = try Self.read(try Self.fixture("swiftui-causes"), name: "causes.xml")
        #expect(trace.graph.edges.count > 0)
        #expect(trace.metadata.end > trace.metadata.start, "span \(trace.metadata.start)..\(trace.metadata.end)")
        // The span holds every edge (it was 0..0: only update, sample and interval times counted).
        let times = trace.graph.edges.timestamp
        #expect(times.allSatisfy { (trace.metadata.start...trace.metadata.end).contains($0) })
    }

    @Test func aTrackDetailExportSaysWhatItIs() throws {
        let xml = "<?xml version=\"1.0\"?><trace-query-result><node xpath='//trace-toc[1]/run[1]/tracks[1]/track[1]/details[1]/detail[1]'><row><address>0x1</address></row></node></trace-query-result>"
        #expect(throws: (any Error).self) { try Self.read(Array(xml.utf8), name: "allocations.xml") }
        do { _ = try Self.read(Array(xml.utf8), name: "allocations.xml") } catch {
            #expect("\(error)".contains("track-detail export"))
        }
    }

    @Test func chunkBoundariesDoNotChangeTheResult() throws {
        let bytes = try Self.bundle()
        let whole = try Self.read(bytes)
        for size in [1, 7, 509] {
            let split = try Self.read(bytes, chunkSize: size)
            #expect(split.updates.start == whole.updates.start)
            #expect(split.updates.description.map(split.string) == whole.updates.description.map(whole.string))
            #expect(split.graph.edges.source == whole.graph.edges.source)
            #expect(split.cpu.samples.stack == whole.cpu.samples.stack)
            #expect(split.metadata.importNotes == whole.metadata.importNotes)
        }
    }

    @Test func reorderedAndAddedColumnsAreMatchedByMnemonic() throws {
        let xml = """
        <?xml version="1.0"?>
        <trace-query-result>
        <node xpath='//trace-toc[1]/run[1]/data[1]/table[4]'><schema name="potential-hangs"><col><mnemonic>process</mnemonic><name>Process</name><engineering-type>process</engineering-type></col><col><mnemonic>hang-type</mnemonic><name>Hang Type</name><engineering-type>hang-type</engineering-type></col><col><mnemonic>energy-impact</mnemonic><name>Energy</name><engineering-type>uint64</engineering-type></col><col><mnemonic>duration</mnemonic><name>Duration</name><engineering-type>duration</engineering-type></col><col><mnemonic>start</mnemonic><name>Start</name><engineering-type>start-time</engineering-type></col></schema>
        <row><process id="1" fmt="Landmarks (4242)"><pid id="2" fmt="4242">4242</pid></process><hang-type id="3" fmt="Microhang">Microhang</hang-type><uint64 id="4" fmt="7">7</uint64><duration id="5" fmt="300.00 ms">300000000</duration><start-time id="6" fmt="00:00.100.000">100000000</start-time></row>
        </node></trace-query-result>
        """
        let trace = try Self.read(Array(xml.utf8), name: "hangs.xml")
        #expect(trace.hangs == [TimelineInterval(start: 100_000_000, duration: 300_000_000, kind: "Microhang", detail: "")])
    }

    @Test func aTraceWithoutSwiftUITablesLoadsAndSaysWhatIsMissing() throws {
        let trace = try Self.read(try Self.fixture("potential-hangs"), name: "hangs.xml")
        #expect(trace.hangs.count == 2)
        #expect(trace.updates.count == 0)
        let notes = trace.metadata.importNotes
        #expect(notes.contains("No swiftui-updates table in the export: the update lanes, the summary and the update details are empty."))
        #expect(notes.contains { $0.hasPrefix("No swiftui-causes table") })
        #expect(!notes.contains { $0.hasPrefix("No potential-hangs") })
    }

    // MARK: Errors

    @Test func aRefToAnUnknownIDNamesTableLineAndColumn() throws {
        var xml = String(decoding: try Self.fixture("potential-hangs"), as: UTF8.self)
        xml = xml.replacingOccurrences(of: "<thread ref=\"4\"/>", with: "<thread ref=\"44\"/>")
        let error = try #require(throws: TraceFormatError.self) { try Self.read(Array(xml.utf8), name: "hangs.xml") }
        #expect(error.file == "hangs.xml")
        #expect(error.table == "potential-hangs")
        #expect(error.line == 4)
        #expect(error.column == 204)
        #expect(error.message == "<thread ref=\"44\"/> refers to no earlier id in this <node>")
    }

    @Test func negativeRefsHugeIDsAndOverlongDurationsAreErrorsNotCrashes() throws {
        let hangs = String(decoding: try Self.fixture("potential-hangs"), as: UTF8.self)
        let negative = hangs.replacingOccurrences(of: "<thread ref=\"4\"/>", with: "<thread ref=\"-1\"/>")
        let refError = try #require(throws: TraceFormatError.self) { try Self.read(Array(negative.utf8), name: "hangs.xml") }
        #expect(refError.message == "<thread ref=\"-1\"/> refers to no earlier id in this <node>")

        // An id far beyond the ids before it still resolves (without a dense table of that size).
        let sparse = hangs.replacingOccurrences(of: "<thread id=\"4\"", with: "<thread id=\"4000000000\"")
            .replacingOccurrences(of: "<thread ref=\"4\"/>", with: "<thread ref=\"4000000000\"/>")
        let trace = try Self.read(Array(sparse.utf8), name: "hangs.xml")
        #expect(trace.hangs.count == 2)
        #expect(trace.hangs.allSatisfy { $0.thread == trace.hangs[0].thread && $0.thread != noRow })

        let overlong = hangs.replacingOccurrences(of: ">260000000<", with: ">9000000000000000000<")
        let durationError = try #require(throws: TraceFormatError.self) { try Self.read(Array(overlong.utf8), name: "hangs.xml") }
        #expect(durationError.table == "potential-hangs" && durationError.field == "duration")
        #expect(durationError.message == "duration is out of range (9000000000000000000 ns)")
    }

    @Test func aBadNumberNamesItsColumn() throws {
        var xml = String(decoding: try Self.fixture("hitches"), as: UTF8.self)
        xml = xml.replacingOccurrences(of: ">2100000000<", with: ">soon<")
        let error = try #require(throws: TraceFormatError.self) { try Self.read(Array(xml.utf8), name: "hitches.xml") }
        #expect(error.table == "hitches")
        #expect(error.field == "start")
        #expect(error.line == 4 && error.column == 6)
        #expect(error.description.hasPrefix("hitches.xml:4:6: (table hitches) start should be a whole number"))
    }

    @Test func malformedXMLInsideABundleNamesTheMember() throws {
        var xml = String(decoding: try Self.fixture("hitches"), as: UTF8.self)
        xml = xml.replacingOccurrences(of: "Display 1</display-name><string id=\"10\"", with: "Display 1</display><string id=\"10\"")
        let bytes = TarArchive.archive([("run/hitches.xml", Array(xml.utf8))])
        let error = try #require(throws: TraceFormatError.self) { try Self.read(bytes, name: "run.tar") }
        #expect(error.file == "run.tar/run/hitches.xml")
        #expect(error.line == 3)
        #expect(error.message == "expected </display-name> but found </display>")
    }

    /// A zip local file header for one entry `name` (enough for the importer to recognise the archive).
    static func zipHead(_ name: String) -> [UInt8] {
        var bytes: [UInt8] = [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 22)
        bytes += [UInt8(name.utf8.count & 0xff), UInt8(name.utf8.count >> 8), 0, 0]
        return bytes + Array(name.utf8) + [UInt8](repeating: 0, count: 64)
    }

    @Test func aZippedInstrumentsRecordingSaysHowToExportIt() throws {
        let error = try #require(throws: TraceFormatError.self) {
            try Self.read(Self.zipHead("Landmarks Run.trace/form.template"), name: "Landmarks Run.zip")
        }
        #expect(error.message.contains("Instruments recording (Landmarks Run.trace, zipped)"), "\(error)")
        #expect(error.message.contains("scripts/export-instruments-trace.sh 'Landmarks Run.trace'"))
        #expect(error.message.contains("Landmarks Run.xctrace.tar.gz"))
        // Recognised by the upload's name when the first entry does not say it.
        let byName = try #require(throws: TraceFormatError.self) { try Self.read(Self.zipHead("form.template"), name: "Run.trace.zip") }
        #expect(byName.message.contains("scripts/export-instruments-trace.sh Run.trace,"))
        // Any other zip: not a trace, with the hint in case it holds a recording.
        let other = try #require(throws: TraceFormatError.self) { try Self.read(Self.zipHead("notes.txt"), name: "notes.zip") }
        #expect(other.message.hasPrefix("a zip archive is not a trace file"))
    }

    @Test func somethingElseIsRejected() {
        #expect(throws: TraceFormatError.self) { try Self.read(Array("{\"format\": 1}".utf8), name: "x.json") }
        #expect(throws: TraceFormatError.self) { try Self.read(Array("<trace-query-result><node>".utf8), name: "cut.xml") }
    }
}

/// The server's path: a file on disk, recognised by content.
@Suite struct XCTraceFileImportTests {
    @Test func aBundleOnDiskIsRecognisedAndRead() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("xctrace-\(UUID().uuidString).upload")
        try Data(try XCTraceImportTests.bundle()).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let trace = try TraceImporter.importTrace(at: url, displayName: "Run.xctrace.tar")
        #expect(trace.metadata.sourceFormat == "xctrace-export")
        #expect(trace.metadata.name == "Run")
        #expect(trace.updates.count == 5)
        #expect(trace.graph.edges.count == 8)
    }
}

/// docs/xctrace-import.md's "Tables read" names every table the importer reads, and no other.
@Suite struct XCTraceDocsTests {
    @Test func theImportDocumentListsEveryTableRead() throws {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: packageRoot.appendingPathComponent("docs/xctrace-import.md"), encoding: .utf8)
        let section = try #require(doc.components(separatedBy: "\n## Tables read\n").dropFirst().first?.components(separatedBy: "\n## ").first)
        // Rows like: | `swiftui-full-causes`, else `swiftui-causes` | cause & effect graph… |
        var documented = Set<String>()
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let firstCell = line.split(separator: "|").first ?? ""
            for (index, part) in firstCell.split(separator: "`", omittingEmptySubsequences: false).enumerated() where index % 2 == 1 {
                documented.insert(String(part))
            }
        }
        let read = Set(XCTraceAssembler.tableKinds.keys)
        #expect(read.subtracting(documented).isEmpty, "read but not documented: \(read.subtracting(documented).sorted())")
        #expect(documented.subtracting(read) == ["toc.xml"], "documented but not read: \(documented.subtracting(read).sorted())")
    }
}

/// An export with SwiftUI, hang and hitch tables but no Time Profiler table (a SwiftUI-only
/// recording): its hang and hitch readings cannot say busy or blocked from the CPU.
@Suite struct NoCPUExportFindingsTests {
    @Test func hangAndHitchReadingsSayTheRecordingHasNoCPUData() throws {
        let tables = XCTraceImportTests.tableFiles.filter { $0 != "time-profile" }
        let trace = try XCTraceImportTests.read(try XCTraceImportTests.bundle(tables))
        #expect(trace.cpu.samples.count == 0)
        // A hitch inside a hang is one incident with it: its parts are the readings.
        let readings = trace.findings().flatMap { $0.parts.isEmpty ? [$0] : $0.parts }.filter { $0.kind == .hangExplained || $0.kind == .hitchExplained }
        // Both hangs (one reading, grouped) and both hitches are read.
        #expect(readings.contains { $0.kind == .hangExplained && $0.title.hasPrefix("2 hangs") })
        #expect(readings.filter { $0.kind == .hitchExplained }.count == 2)
        for reading in readings {
            #expect(!reading.title.contains("on CPU") && !reading.title.contains("blocked (") && reading.evidence.cpuCoverage == nil, "\(reading.title)")
            #expect(reading.title.contains("the recording has no CPU data, so whether the main thread was busy or blocked cannot be told"))
            #expect(reading.fix.hasPrefix("Record with the Time Profiler"))
        }
    }
}
