import Foundation
import Synchronization
import Testing
@testable import TraceFormats
import TraceModel

/// The import reads rows on one thread and assembles them on another. What a user sees must
/// not change: errors name the exact line and column even when the reader has long moved on,
/// the first error in the file is the one reported, and a failed import stops reading.
@Suite struct XCTracePipelineTests {
    static let header = """
        <?xml version="1.0"?>
        <trace-query-result>
        <node xpath='//trace-toc[1]/run[1]/data[1]/table[3]'><schema name="swiftui-updates">\
        <col><mnemonic>start</mnemonic><name>Start</name><engineering-type>start-time</engineering-type></col>\
        <col><mnemonic>duration</mnemonic><name>Duration</name><engineering-type>duration</engineering-type></col>\
        <col><mnemonic>view-name</mnemonic><name>View Name</name><engineering-type>string</engineering-type></col>\
        </schema>

        """
    /// Lines before the first row.
    static let headerLines = 3
    static let footer = "</node></trace-query-result>\n"

    /// One row per line; `duration(row)` is written as the row's duration text.
    static func export(rows: Int, duration: (Int) -> String = { String(1000 + $0 % 500) }) -> [UInt8] {
        var text = header
        text.reserveCapacity(rows * 120)
        for row in 0..<rows {
            let start = 1_000_000_000 + row * 10_000
            text += "<row><start-time fmt=\"\(row)\">\(start)</start-time><duration fmt=\"d\">\(duration(row))</duration>"
            text += row == 0 ? "<string id=\"1\" fmt=\"Recipes\">RecipeRowView</string></row>\n" : "<string ref=\"1\"/></row>\n"
        }
        return Array((text + footer).utf8)
    }

    /// Byte column of the duration cell in row `row` (1-based).
    static func durationColumn(_ row: Int) -> Int {
        "<row><start-time fmt=\"\(row)\">\(1_000_000_000 + row * 10_000)</start-time>".utf8.count + 1
    }

    @Test func aGoodExportOfManyBatchesReadsEveryRow() throws {
        let rows = 30_000
        let trace = try XCTraceImporter.importTrace(from: .memory(Self.export(rows: rows), chunkSize: 4096), displayName: "many.xml")
        #expect(trace.updates.count == rows)
        #expect(trace.updates.start.first == 1_000_000_000)
        #expect(trace.updates.start.last == Int64(1_000_000_000 + (rows - 1) * 10_000))
        #expect(trace.strings.contains("RecipeRowView"))
    }

    @Test func aBadValueFarIntoASecondBundleMemberNamesItsMemberLineAndColumn() throws {
        // The bad row comes after several batches, long after its bytes left the reader's buffer.
        let bad = 21_345
        let table = Self.export(rows: 30_000) { $0 == bad ? "soon" : "1500" }
        let toc = Array("<?xml version=\"1.0\"?>\n<trace-toc><run number=\"1\"></run></trace-toc>\n".utf8)
        let bundle = TarArchive.archive([("run/toc.xml", toc), ("run/swiftui-updates.xml", table)])
        let error = try #require(throws: TraceFormatError.self) {
            try XCTraceImporter.importTrace(from: .memory(bundle, chunkSize: 1 << 16), displayName: "run.tar")
        }
        #expect(error.file == "run.tar/run/swiftui-updates.xml")
        #expect(error.line == Self.headerLines + bad + 1)
        #expect(error.column == Self.durationColumn(bad))
        #expect(error.table == "swiftui-updates" && error.field == "duration")
        #expect(error.message == "duration should be a whole number, found <duration> \"soon\"")
    }

    @Test func aBadValueInAGzippedFileIsLocatedByReadingTheFileAgain() throws {
        let bad = 17_000
        let table = Self.export(rows: 20_000) { $0 == bad ? "1.5" : "1500" }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-\(UUID().uuidString).xml.gz")
        defer { try? FileManager.default.removeItem(at: url) }
        var compressed = Data()
        let gzip = try GzipStream()
        try gzip.compress(table, finish: true) { compressed.append($0) }
        try compressed.write(to: url)
        let error = try #require(throws: TraceFormatError.self) {
            try XCTraceImporter.importTrace(at: url, displayName: "updates.xml.gz")
        }
        #expect(error.file == "updates.xml.gz")
        #expect(error.line == Self.headerLines + bad + 1)
        #expect(error.column == Self.durationColumn(bad))
    }

    @Test func aBadValueOnALaterLineOfAMultiLineRowNamesThatLine() throws {
        var text = Self.header
        for row in 0..<9000 {
            let duration = row == 8000 ? "-5" : "700"
            text += "<row>\n  <start-time fmt=\"s\">\(1_000_000_000 + row)</start-time>\n  <duration fmt=\"d\">\(duration)</duration>\n</row>\n"
        }
        text += Self.footer
        let error = try #require(throws: TraceFormatError.self) {
            try XCTraceImporter.importTrace(from: .memory(Array(text.utf8), chunkSize: 999), displayName: "pretty.xml")
        }
        #expect(error.line == Self.headerLines + 8000 * 4 + 3)
        #expect(error.column == 3)
        #expect(error.message == "duration is negative (-5 ns)")
    }

    @Test func aBadValueBeforeMalformedXMLIsTheErrorReported() throws {
        // Reading in one pass meets the bad value first; the reader, ahead, meets the broken tag first.
        var bytes = Self.export(rows: 200) { $0 == 5 ? "soon" : "900" }
        bytes.removeLast(Self.footer.utf8.count)
        bytes += Array("<row><start-time>1</start-time></rowx></node></trace-query-result>\n".utf8)
        let error = try #require(throws: TraceFormatError.self) {
            try XCTraceImporter.importTrace(from: .memory(bytes), displayName: "both.xml")
        }
        #expect(error.field == "duration")
        #expect(error.line == Self.headerLines + 6)

        // Without the bad value, the broken tag is reported where it is.
        var clean = Self.export(rows: 200)
        clean.removeLast(Self.footer.utf8.count)
        clean += Array("<row><start-time>1</start-time></rowx></node></trace-query-result>\n".utf8)
        let syntax = try #require(throws: TraceFormatError.self) {
            try XCTraceImporter.importTrace(from: .memory(clean), displayName: "broken.xml")
        }
        #expect(syntax.line == Self.headerLines + 201)
        #expect(syntax.message == "expected </row> but found </rowx>")
    }

    @Test func anEarlyBadValueStopsReadingTheRestOfALargeFile() throws {
        let bytes = Self.export(rows: 150_000) { $0 == 10 ? "soon" : "800" }
        let chunkSize = 1 << 16
        let chunks = (bytes.count + chunkSize - 1) / chunkSize
        let read = Mutex(0)
        var offset = 0
        let counted = ByteChunks { chunk in
            guard offset < bytes.count else { return false }
            read.withLock { $0 += 1 }
            chunk = Array(bytes[offset..<min(bytes.count, offset + chunkSize)])
            offset += chunkSize
            return true
        }
        #expect(throws: TraceFormatError.self) { try XCTraceImporter.importTrace(from: counted, displayName: "big.xml") }
        let readWhenFailed = read.withLock { $0 }
        // The reader runs a few batches ahead at most, then stops at its next chunk.
        #expect(readWhenFailed < chunks / 3, "read \(readWhenFailed) of \(chunks) chunks")
        Thread.sleep(forTimeInterval: 0.05)
        #expect(read.withLock { $0 } == readWhenFailed, "the reading thread had let go of the input when the error came back")
    }
}
