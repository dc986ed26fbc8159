import Foundation
import Testing
@testable import TraceFormats
import TraceModel
import TraceSamples

/// One folder for this test process's temporary files, removed when it exits: the fuzz-style tests
/// write thousands of files, and a run must not leave them behind.
let temporaryFilesRoot: URL = {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("native-tests-\(getpid())")
    atexit { try? FileManager.default.removeItem(at: FileManager.default.temporaryDirectory.appendingPathComponent("native-tests-\(getpid())")) }
    return root
}()

/// Writes `text` (or bytes) to a fresh temp file and returns its URL.
func temporaryFile(_ bytes: [UInt8], name: String = "trace.json") throws -> URL {
    let directory = temporaryFilesRoot.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url
}

func temporaryFile(_ text: String, name: String = "trace.json") throws -> URL {
    try temporaryFile(Array(text.utf8), name: name)
}

/// The error a file gives, as the one line a user sees.
func importError(_ text: String, name: String = "bad.json") throws -> String {
    let url = try temporaryFile(text, name: name)
    do {
        _ = try TraceImporter.importTrace(at: url, displayName: name)
        return "no error"
    } catch {
        return error.description
    }
}

/// A small valid trace; tests break one thing in it.
let minimalTrace = """
    {"format": "tracesvc-trace", "version": 1,
      "metadata": {"app": "Landmarks", "refreshRate": 120, "start": 0, "end": 5000000},
      "processes": [[412, "Landmarks"]],
      "threads": [[1, "Main Thread", 0, true]],
      "updateGroups": [[1000, 900000, "Frame Update", 0]],
      "updates": [
        [1000, 1200000, "view-body", "Landmarks", "LandmarkListItemView", "", "View Body", 3, 0, 0, "high"],
        [2000, 100, "layout", "SwiftUI", "HStack", "", "Layout", 0, null, null, "none"]
      ],
      "nodes": [["view-body", "LandmarkListItemView", "", true, 7, 1000, 0], ["gesture", "Button Gesture", "", false, 6, 900, null]],
      "edges": [[1, 0, "update", "isFavorite", 1000, 0]]
    }
    """

@Suite struct NativeFormatTests {
    @Test(arguments: SampleTraces.names)
    func samplesSurviveAWriteReadRoundTrip(name: String) throws {
        let bytes = SampleTraces.fileContents(of: name)
        let url = try temporaryFile(bytes, name: "\(name).json")
        let trace = try NativeTraceReader.read(at: url, displayName: "\(name).json")
        #expect(trace.metadata.name == name)
        #expect(NativeTraceWriter.encode(trace) == bytes)
    }

    @Test func tokensSplitAcrossEveryChunkBoundaryReadTheSame() throws {
        // 7-byte chunks cut numbers, strings, escapes and keywords at every possible place.
        let bytes = SampleTraces.fileContents(of: "landmarks-favorites-slow")
        let url = try temporaryFile(bytes)
        let trace = try NativeTraceReader.read(at: url, displayName: "trace.json", chunkSize: 7)
        #expect(NativeTraceWriter.encode(trace) == bytes)
    }

    @Test func gzipFilesReadLikeThePlainOnes() throws {
        let trace = SampleTraces.trace(named: "landmarks-scroll-slow")
        let directory = try temporaryFile([], name: "unused").deletingLastPathComponent()
        let gzURL = directory.appendingPathComponent("landmarks-scroll-slow.json.gz")
        try NativeTraceWriter.write(trace, to: gzURL)
        let compressed = try [UInt8](Data(contentsOf: gzURL))
        #expect(compressed.starts(with: [0x1f, 0x8b]))
        let read = try TraceImporter.importTrace(at: gzURL, displayName: "landmarks-scroll-slow.json.gz")
        #expect(read.metadata.name == "landmarks-scroll-slow")
        #expect(NativeTraceWriter.encode(read) == NativeTraceWriter.encode(trace))
        // Small chunks make the inflater stop and resume mid-stream.
        let chunked = try NativeTraceReader.read(at: gzURL, displayName: "x.json.gz", chunkSize: 100)
        #expect(chunked.updates.count == trace.updates.count)
    }

    @Test func concatenatedGzipMembersReadAsOneStream() throws {
        // What `cat part1.gz part2.gz` makes; gzip -d reads it as the two parts joined.
        let bytes = SampleTraces.fileContents(of: "landmarks-favorites-slow")
        var compressed = Data()
        for part in [bytes[..<(bytes.count / 3)], bytes[(bytes.count / 3)...]] {
            let stream = try GzipStream()
            try stream.compress(Array(part), finish: true) { compressed.append($0) }
        }
        let url = try temporaryFile([UInt8](compressed), name: "joined.json.gz")
        for chunkSize in [1 << 20, 64] {
            let trace = try NativeTraceReader.read(at: url, displayName: "joined.json.gz", chunkSize: chunkSize)
            #expect(NativeTraceWriter.encode(trace) == bytes)
        }
    }

    @Test func truncatedGzipIsAnErrorNotAShortTrace() throws {
        let trace = SampleTraces.trace(named: "landmarks-scroll-slow")
        let directory = try temporaryFile([], name: "unused").deletingLastPathComponent()
        let gzURL = directory.appendingPathComponent("t.json.gz")
        try NativeTraceWriter.write(trace, to: gzURL)
        let compressed = try [UInt8](Data(contentsOf: gzURL))
        // Cut inside the trailer: the JSON is complete but the CRC and size are missing.
        let cut = try temporaryFile(Array(compressed.dropLast(3)), name: "cut.json.gz")
        #expect(throws: TraceFormatError.self) { try TraceImporter.importTrace(at: cut, displayName: "cut.json.gz") }
        let half = try temporaryFile(Array(compressed.prefix(compressed.count / 2)), name: "half.json.gz")
        #expect(throws: TraceFormatError.self) { try TraceImporter.importTrace(at: half, displayName: "half.json.gz") }
    }

    @Test func minimalHandWrittenTraceReads() throws {
        let url = try temporaryFile(minimalTrace)
        let trace = try TraceImporter.importTrace(at: url, displayName: "my trace.json")
        #expect(trace.metadata.name == "my trace")
        #expect(trace.metadata.sourceFormat == "tracesvc-json/1")
        #expect(trace.updates.count == 2)
        #expect(trace.string(trace.updates.viewName[0]) == "LandmarkListItemView")
        #expect(trace.updates.thread[1] == noRow)
        #expect(trace.updates.severity(0) == .red)
        #expect(trace.graph.nodes.didRun(0))
        #expect(trace.string(trace.graph.edges.changedProperty[0]) == "isFavorite")
        #expect(Array(trace.graph.incoming(0)) == [0])
        #expect(trace.processes == [TraceProcess(pid: 412, name: "Landmarks")])
        #expect(trace.threads[0].isMain)
    }

    @Test func escapesAndUnicodeInStrings() throws {
        let text = minimalTrace.replacingOccurrences(
            of: #""HStack""#, with: #""Caf\u00e9 \"Q\" \ud83c\udf0d\n/\/""#
        )
        let trace = try TraceImporter.importTrace(at: try temporaryFile(text), displayName: "t.json")
        #expect(trace.string(trace.updates.viewName[1]) == "Café \"Q\" 🌍\n//")
        // And the writer escapes them back so the reader gets the same string.
        let again = try TraceImporter.importTrace(at: try temporaryFile(NativeTraceWriter.encode(trace)), displayName: "t.json")
        #expect(again.string(again.updates.viewName[1]) == "Café \"Q\" 🌍\n//")
    }

    // MARK: Errors point at the offending token

    @Test func wrongTypeNamesTableRowColumnAndPlace() throws {
        let text = minimalTrace.replacingOccurrences(of: "[2000, 100,", with: "[2000, \"100\",")
        #expect(try importError(text) == #"bad.json:8:12: updates[1].duration: expected an integer, found the string "100""#)
    }

    @Test func negativeDurationIsRejected() throws {
        let text = minimalTrace.replacingOccurrences(of: "[2000, 100,", with: "[2000, -100,")
        #expect(try importError(text) == "bad.json:8:12: updates[1].duration: must not be negative (-100)")
    }

    @Test func timesAndDurationsBeyondTheLimitsAreLocatedErrorsNotOverflows() throws {
        // Values that would overflow a later `start + duration` or a sum of weights.
        let huge = minimalTrace.replacingOccurrences(of: "[2000, 100,", with: "[9000000000000000000, 100,")
        #expect(try importError(huge) == "bad.json:8:6: updates[1].start: is out of range (9000000000000000000 ns; times lie within ±\(TraceLimits.time))")
        let long = minimalTrace.replacingOccurrences(of: "[2000, 100,", with: "[2000, 9000000000000000000,")
        #expect(try importError(long) == "bad.json:8:12: updates[1].duration: is too long (9000000000000000000 ns; at most \(TraceLimits.time))")
        let span = minimalTrace.replacingOccurrences(of: #""start": 0,"#, with: #""start": -9223372036854775808,"#)
        #expect(try importError(span).hasPrefix("bad.json:2:65: metadata.start: is out of range"))
    }

    @Test func aGzipThatInflatesPastTheLimitIsRefusedNotReadToTheEnd() throws {
        // About 3 MB of valid rows that gzip to a few KB.
        let row = #"[2000, 100, "layout", "SwiftUI", "HStack", "", "Layout", 0, null, null, "none"],"#
        let rows = String(repeating: row + "\n", count: 40_000)
        let text = minimalTrace.replacingOccurrences(of: #""updates": ["#, with: #""updates": ["# + "\n" + rows)
        var compressed: [UInt8] = []
        try GzipStream().compress(Array(text.utf8), finish: true) { compressed += $0 }
        #expect(compressed.count < 100_000)
        let url = try temporaryFile(compressed, name: "bomb.json.gz")
        #expect(try TraceImporter.importTrace(at: url, displayName: "bomb.json.gz").updates.count == 40_002)
        let error = try #require(throws: TraceFormatError.self) {
            try TraceImporter.importTrace(at: url, displayName: "bomb.json.gz", maxBytes: 1 << 20)
        }
        // It stops where the limit is reached (and says where that is), not at the end.
        #expect(error.file == "bomb.json.gz" && error.line > 1_000 && error.line < 20_000)
        #expect(error.message.hasSuffix("decompresses to more than 1 MB, the most this server reads of one trace"))
    }

    @Test func corruptGzipIsOneClearError() throws {
        let url = try temporaryFile([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03] + Array(repeating: 0xFF, count: 64), name: "x.json.gz")
        #expect(throws: TraceFormatError(file: "x.json.gz", line: 1, column: 1, message: "the gzip data is corrupt")) {
            try TraceImporter.importTrace(at: url, displayName: "x.json.gz")
        }
    }

    @Test func unknownEnumValueListsTheKnownOnes() throws {
        let text = minimalTrace.replacingOccurrences(of: #""layout""#, with: #""layuot""#)
        #expect(
            try importError(text)
                == #"bad.json:8:17: updates[1].kind: unknown update kind "layuot"; expected one of: view-body, representable, layout, other"#
        )
    }

    @Test func danglingReferenceIsCaughtWhereItStands() throws {
        let text = minimalTrace.replacingOccurrences(of: #"[1, 0, "update""#, with: #"[1, 5, "update""#)
        #expect(try importError(text) == "bad.json:11:17: edges[0].target: refers to node 5, but only 2 nodes (0...1) come before it")
        let group = minimalTrace.replacingOccurrences(of: #""Layout", 0, null, null"#, with: #""Layout", 0, null, 3"#)
        #expect(
            try importError(group)
                == "bad.json:8:71: updates[1].group: refers to update group 3, but only 1 update group (0...0) come before it; use null for none"
        )
    }

    @Test func unknownVersionIsRejectedBeforeAnyTable() throws {
        let text = minimalTrace.replacingOccurrences(of: #""version": 1"#, with: #""version": 4"#)
        #expect(try importError(text) == "bad.json:1:41: unsupported version 4; this tracesvc reads versions 1 to 3")
    }

    @Test func truncatedFileSaysWhereItEnds() throws {
        let full = minimalTrace
        let cut = String(full[..<full.range(of: "\"Frame Upd")!.upperBound])
        let error = try importError(cut)
        #expect(error == "bad.json:5:35: updateGroups[0].label: unterminated string: the file ends inside it")
        let cutAfterRow = String(full[..<full.range(of: "\"high\"],")!.upperBound])
        #expect(try importError(cutAfterRow).hasPrefix("bad.json:7:105: updates[1]: expected a row"))
        #expect(try importError(cutAfterRow).hasSuffix("found the end of the file (is it truncated?)"))
    }

    @Test func shortAndLongRowsSayHowManyValuesARowHas() throws {
        let short = minimalTrace.replacingOccurrences(of: #"[[412, "Landmarks"]]"#, with: "[[412]]")
        #expect(try importError(short) == "bad.json:3:21: processes[0]: the row ends after 1 value; a row of processes has 2: pid, name")
        let long = minimalTrace.replacingOccurrences(of: #"[[412, "Landmarks"]]"#, with: #"[[412, "Landmarks", 1]]"#)
        #expect(try importError(long) == #"bad.json:3:34: processes[0]: the row has more than 2 values (pid, name)"#)
    }

    @Test func everyTruncationAndEveryOneByteCorruptionIsAnErrorOrATraceNeverACrash() throws {
        let bytes = Array(minimalTrace.utf8)
        for length in 0..<bytes.count {
            let url = try temporaryFile(Array(bytes[..<length]), name: "cut.json")
            // Only whitespace may be missing at the end; anything else cut must be reported.
            let onlyWhitespaceCut = bytes[length...].allSatisfy { $0 == 0x20 || $0 == 0x0A }
            if onlyWhitespaceCut { continue }
            #expect(throws: TraceFormatError.self, "cut at \(length)") { try TraceImporter.importTrace(at: url, displayName: "cut.json") }
        }
        for position in bytes.indices {
            for replacement in [UInt8(ascii: "x"), UInt8(ascii: "\""), UInt8(ascii: "]"), 0xC3] {
                var mutated = bytes
                mutated[position] = replacement
                let url = try temporaryFile(mutated, name: "mutated.json")
                do {
                    _ = try TraceImporter.importTrace(at: url, displayName: "mutated.json")
                } catch {
                    #expect(error.line >= 1 && error.column >= 1)
                }
            }
        }
    }

    @Test func otherJSONIsNotMistakenForATrace() throws {
        #expect(try importError(#"{"traceEvents": []}"#) == #"bad.json:1:2: not a tracesvc trace: the object must begin with "format": "tracesvc-trace""#)
        #expect(try importError("hello") .hasPrefix("bad.json:1:1: not a trace file"))
        #expect(try importError("  \n ") == "bad.json:2:2: the file is empty")
    }

    @Test func unknownKeyAndTrailingContentAreErrors() throws {
        let unknown = minimalTrace.replacingOccurrences(of: #""processes""#, with: #""procesess""#)
        #expect(try importError(unknown).hasPrefix(#"bad.json:3:3: unknown key "procesess""#))
        #expect(try importError(minimalTrace + " {}") == "bad.json:12:3: unexpected content after the end of the trace object")
    }

    @Test func columnsCountCharactersNotBytes() throws {
        // "é" is two bytes; the error after it must still be at the right character column.
        let text = minimalTrace.replacingOccurrences(of: #""Button Gesture", "", false, 6"#, with: #""Bütton", "", false, x"#)
        #expect(try importError(text).hasPrefix("bad.json:10:107: nodes[1].eventID: expected an integer"))
    }

    @Test func committedSamplesAreExactlyWhatTheGeneratorWrites() throws {
        let directory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SampleTraces")
        for name in SampleTraces.names {
            let committed = try [UInt8](Data(contentsOf: directory.appendingPathComponent(SampleTraces.fileName(of: name))))
            #expect(committed == SampleTraces.fileContents(of: name), "SampleTraces/\(name).json differs: run `swift run tracesvc generate --all-samples --output SampleTraces`")
            #expect(committed.count < 3_000_000)
        }
    }

    @Test func syntheticTracesAreDeterministicAndShapedLikeRealOnes() {
        let a = SyntheticTraces.trace(updates: 3_000, seed: 7)
        let b = SyntheticTraces.trace(updates: 3_000, seed: 7)
        let c = SyntheticTraces.trace(updates: 3_000, seed: 8)
        #expect(a.updates.count == 3_000)
        #expect(NativeTraceWriter.encode(a) == NativeTraceWriter.encode(b))
        #expect(NativeTraceWriter.encode(a) != NativeTraceWriter.encode(c))
        let edgesPerUpdate = Double(a.graph.edges.count) / Double(a.updates.count)
        #expect(edgesPerUpdate > 2.5 && edgesPerUpdate < 3.5)
        #expect(a.updateGroups.count > 0 && a.cpu.samples.count > 0 && !a.hitches.isEmpty)
        #expect(a.updates.group.allSatisfy { $0 != noRow })
    }
}

@Suite struct NativeFormatDocumentationTests {
    static let docs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs")

    @Test func exampleInTheFormatDocumentReads() throws {
        let markdown = try String(contentsOf: Self.docs.appendingPathComponent("trace-format.md"), encoding: .utf8)
        let start = try #require(markdown.range(of: "```json\n"))
        let end = try #require(markdown.range(of: "```", range: start.upperBound..<markdown.endIndex))
        let url = try temporaryFile(String(markdown[start.upperBound..<end.lowerBound]))
        let trace = try TraceImporter.importTrace(at: url, displayName: "example.json")
        #expect(trace.updates.count == 1 && trace.graph.edges.count == 1 && trace.stateChanges.count == 1)
        #expect(trace.graph.nodes.update[1] == 0)
    }

    @Test func schemaColumnsMatchTheReader() throws {
        let data = try Data(contentsOf: Self.docs.appendingPathComponent("trace-format.schema.json"))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let properties = try #require(schema["properties"] as? [String: Any])
        for table in NativeTraceFormat.Table.allCases {
            let tableSchema = try #require(properties[table.rawValue] as? [String: Any], "schema lacks \(table.rawValue)")
            let items = try #require(tableSchema["items"] as? [String: Any])
            let columns = try #require(items["prefixItems"] as? [[String: Any]]).map { $0["title"] as? String ?? "" }
            #expect(columns == table.columns, "\(table.rawValue)")
        }
    }
}

/// Traces of another app for the browser tests (Tests/Browser), committed as the generator writes
/// them: `TRACESVC_RECORD=1 swift test --filter OtherAppFixtureTests` rewrites them.
@Suite struct OtherAppFixtureTests {
    static let fixtures: [(file: String, trace: @Sendable () -> Trace)] = [
        ("harbor-conversation.json", { OtherAppTraces.harbor() }),
        ("harbor-conversation-fixed.json", { OtherAppTraces.harbor(decodeOnMainActor: false) }),
        // The messages write names no thread and no resume function: tied to the task by time only.
        ("harbor-conversation-time-only.json", { OtherAppTraces.harbor(messagesWrite: .timeOnly) }),
    ]

    @Test func committedHarborTracesAreWhatTheGeneratorWrites() throws {
        let directory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")
        for (file, trace) in Self.fixtures {
            let url = directory.appendingPathComponent(file)
            var trace = trace()
            trace.metadata.name = String(file.dropLast(".json".count))
            let bytes = NativeTraceWriter.encode(trace)
            if ProcessInfo.processInfo.environment["TRACESVC_RECORD"] == "1" { try Data(bytes).write(to: url) }
            #expect(try [UInt8](Data(contentsOf: url)) == bytes, "Tests/Fixtures/\(file) differs: TRACESVC_RECORD=1 swift test --filter OtherAppFixtureTests rewrites it")
        }
    }
}
