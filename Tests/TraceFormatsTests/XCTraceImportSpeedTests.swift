import Foundation
import Testing
@testable import TraceFormats
import TraceModel

/// The import's fast scanning (eight bytes at a time over attribute values and names, texts
/// interned by their bytes, event ids in `Int64Map`) must give the model the byte-at-a-time
/// reading gave: the same trace however the bytes are cut into chunks, and the same string
/// ids for texts Swift calls equal.
@Suite struct XCTraceImportSpeedTests {
    /// One swiftui-updates table with what the fast paths must not trip on: entities and
    /// character references in values and text, CDATA, odd whitespace, single quotes,
    /// attributes in another order, names longer than sixteen bytes, comments, sentinels.
    static let variedExport = """
        <?xml version="1.0"?>
        <trace-query-result>
        <node xpath='//trace-toc[1]/run[1]/data[1]/table[9]'><schema name="swiftui-updates">\
        <col><mnemonic>start</mnemonic><name>Start</name><engineering-type>start-time</engineering-type></col>\
        <col><mnemonic>duration</mnemonic><name>Duration</name><engineering-type>duration</engineering-type></col>\
        <col><mnemonic>id</mnemonic><name>ID</name><engineering-type>uint32</engineering-type></col>\
        <col><mnemonic>update-type</mnemonic><name>Update Type</name><engineering-type>swiftui-update</engineering-type></col>\
        <col><mnemonic>description</mnemonic><name>Description</name><engineering-type>string</engineering-type></col>\
        <col><mnemonic>category</mnemonic><name>Category</name><engineering-type>string</engineering-type></col>\
        <col><mnemonic>module</mnemonic><name>Module</name><engineering-type>string</engineering-type></col>\
        <col><mnemonic>view-name</mnemonic><name>View Name</name><engineering-type>string</engineering-type></col>\
        <col><mnemonic>thread</mnemonic><name>Thread</name><engineering-type>thread</engineering-type></col>\
        <col><mnemonic>severity</mnemonic><name>Severity</name><engineering-type>event-concept</engineering-type></col>\
        </schema>
        <row><start-time id="1" fmt="00:01.000.100">1000100000</start-time><duration id="2" fmt="1.25 ms">1250000</duration>\
        <uint32 id="3" fmt="1">1</uint32><swiftui-update id="4" fmt="View Body">View Body</swiftui-update>\
        <string id="5" fmt="Tom &amp; Jerry&#x27;s list, a format longer than a word">Tom &amp; Jerry&#39;s list</string>\
        <string id="6" fmt="Update">Update</string><string id="7" fmt="Recipes">Recipes</string>\
        <string id="8" fmt="A-view-name-longer-than-sixteen-bytes">A-view-name-longer-than-sixteen-bytes</string>\
        <thread id="11" fmt="Main Thread 0x1a2b (Recipes, pid: 812)"><tid id="9" fmt="0x1a2b">6699</tid>\
        <process id="10" fmt="Recipes (812)"><pid id="12" fmt="812">812</pid></process></thread>\
        <event-concept id="13" fmt="Very Low">Very Low</event-concept></row>
        <row >
          <start-time fmt='00:01.000.300'   id = "14" >1000300000</start-time>
          <duration fmt="2.00 ms" id="15">2000000</duration>
          <uint32 id="16" fmt="2">2</uint32>
          <swiftui-update ref="4"/>
          <string id="17" fmt="&lt;CDATA&gt; and a long tail after it"><![CDATA[a <b> & "c"]]></string>
          <string ref = '6' />
          <string ref="7"/>
          <string id="18" fmt="K&#x212A;">Kelvin &#x212A; K</string>
          <thread ref="11"/>
          <event-concept id="19" fmt="High">High</event-concept>
        </row>
        <row><start-time id="20" fmt="x">1000500000</start-time><duration id="21" fmt="y">300</duration><sentinel/>\
        <swiftui-update ref="4"/><!-- a comment --><string id="22" fmt="A format-only description &amp; more"/><sentinel/><string ref="7"/><string ref="8"/><sentinel/>\
        <event-concept ref="13"/></row>
        </node></trace-query-result>

        """

    /// The bytes cut once at `split`.
    static func twoChunks(_ bytes: [UInt8], at split: Int) -> ByteChunks {
        var parts = [Array(bytes[..<split]), Array(bytes[split...])]
        return ByteChunks { chunk in
            guard !parts.isEmpty else { return false }
            chunk = parts.removeFirst()
            return true
        }
    }

    static func encoded(_ chunks: ByteChunks, name: String = "varied.xml") throws -> [UInt8] {
        NativeTraceWriter.encode(try XCTraceImporter.importTrace(from: chunks, displayName: name))
    }

    @Test func variedExportReadsAsWritten() throws {
        let bytes = Array(Self.variedExport.utf8)
        let trace = try XCTraceImporter.importTrace(from: .memory(bytes, chunkSize: bytes.count), displayName: "varied.xml")
        #expect(trace.updates.count == 3)
        #expect(trace.strings.contains("Tom & Jerry's list"))
        #expect(trace.strings.contains("a <b> & \"c\""))
        #expect(trace.strings.contains("A-view-name-longer-than-sixteen-bytes"))
        // An entity past the first eight bytes of a value (the fast scan must stop there).
        #expect(trace.strings.contains("A format-only description & more"))
    }

    @Test func everyChunkBoundaryGivesTheSameTrace() throws {
        let bytes = Array(Self.variedExport.utf8)
        let reference = try Self.encoded(.memory(bytes, chunkSize: bytes.count))
        for split in 1..<bytes.count {
            let trace = try Self.encoded(Self.twoChunks(bytes, at: split))
            #expect(trace == reference, "cut at byte \(split)")
            if trace != reference { break }
        }
        for chunkSize in 1...17 {
            #expect(try Self.encoded(.memory(bytes, chunkSize: chunkSize)) == reference, "chunks of \(chunkSize)")
        }
    }

    @Test func theFixtureBundleReadsTheSameInSmallChunks() throws {
        let bytes = try XCTraceImportTests.bundle()
        let reference = try Self.encoded(.memory(bytes, chunkSize: bytes.count), name: "landmarks.tar")
        for chunkSize in [1, 7, 8, 9, 15, 16, 17, 4093] {
            #expect(try Self.encoded(.memory(bytes, chunkSize: chunkSize), name: "landmarks.tar") == reference, "chunks of \(chunkSize)")
        }
    }

    @Test func textsSwiftCallsEqualShareOneID() {
        var pool = StringPool()
        func intern(_ bytes: [UInt8]) -> Int32 { bytes.withUnsafeBufferPointer { pool.intern($0) } }
        let letterK = intern(Array("K".utf8))
        // U+212A KELVIN SIGN is canonically equivalent to "K": one String, one id, as before.
        #expect(intern(Array("\u{212A}".utf8)) == letterK)
        // "é" precomposed and decomposed.
        #expect(intern([0xC3, 0xA9]) == intern([0x65, 0xCC, 0x81]))
        // Invalid UTF-8 is repaired to U+FFFD either way.
        #expect(intern([0xFF]) == intern([0xFE]))
        #expect(intern(Array("k".utf8)) != letterK)
        #expect(intern([]) == intern([]))
        // Many texts (the table grows several times): each keeps its id and its text.
        var ids: [Int32] = []
        for i in 0..<5000 { ids.append(intern(Array("view-\(i)".utf8))) }
        for i in 0..<5000 {
            #expect(intern(Array("view-\(i)".utf8)) == ids[i])
            if pool[ids[i]] != "view-\(i)" { Issue.record("text \(i) is \(pool[ids[i]])"); break }
        }
        #expect(Set(ids).count == 5000)
    }

    @Test func int64MapAnswersAsADictionary() {
        var map = Int64Map()
        var reference: [Int64: Int32] = [:]
        var generator = SystemRandomNumberGenerator()
        var keys: [Int64] = [0, 1, -1, .max, .min, 4095, 4096, 1 << 40]
        for i in 0..<20_000 { keys.append(Int64(i)) }
        for _ in 0..<5000 { keys.append(Int64.random(in: .min ... .max, using: &generator)) }
        for _ in 0..<5000 { keys.append(Int64.random(in: -100_000 ... 100_000, using: &generator)) }
        // Doubling keys: each would double a naive array.
        for shift in 12..<62 { keys.append(1 << Int64(shift)) }
        for (i, key) in keys.enumerated() {
            map.set(Int32(i), for: key)
            reference[key] = Int32(i)
        }
        for key in keys + [7_777_777, -7_777_777, 123_456_789_012] {
            if map[key] != reference[key] {
                Issue.record("key \(key): \(String(describing: map[key])), expected \(String(describing: reference[key]))")
                break
            }
        }
    }
}
