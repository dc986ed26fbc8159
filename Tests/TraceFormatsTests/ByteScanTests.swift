import Testing
@testable import TraceFormats

/// The tokenizer's sixteen-bytes-at-a-time searches, and the tokens they find where a chunk of
/// input ends inside what they look for.
@Suite struct ByteScanTests {
    /// `first` and `nameEnd` against a byte-by-byte search, for every length from 0 to 40 (below,
    /// at and across the sixteen-byte width) and every place of the byte looked for, with decoys
    /// from one byte past `end` on: a scan that reads past `end` finds one instead of answering `end`.
    @Test func scansFindTheFirstHitAtEveryPlaceAndNothingAtOrPastTheEnd() {
        for length in 0...40 {
            for hit in 0...length {
                // Filler "a" up to and at `end`, the byte looked for at `hit` (none when hit == length), then decoys.
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length + 1) + [UInt8](repeating: UInt8(ascii: "<"), count: 20)
                for (target, other) in [(UInt8(ascii: "<"), UInt8(ascii: "&")), (UInt8(ascii: "&"), UInt8(ascii: "<")), (UInt8(ascii: "\""), UInt8(ascii: "&"))] {
                    for i in 0...length { bytes[i] = UInt8(ascii: "a") }
                    if hit < length { bytes[hit] = target }
                    for i in (length + 1)..<bytes.count { bytes[i] = target }
                    let found = bytes.withUnsafeBufferPointer { ByteScan.first(target, other, in: $0.baseAddress!, from: 0, to: length) }
                    #expect(found == hit, "first(\(target)) in \(length) bytes, hit at \(hit)")
                    // From an offset: the scan starts there, not at 0.
                    if hit > 0 {
                        let fromOne = bytes.withUnsafeBufferPointer { ByteScan.first(target, other, in: $0.baseAddress!, from: 1, to: length) }
                        #expect(fromOne == hit)
                    }
                }
                for ender in [UInt8(ascii: " "), 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "=")] {
                    for i in 0...length { bytes[i] = UInt8(ascii: "n") }
                    if hit < length { bytes[hit] = ender }
                    for i in (length + 1)..<bytes.count { bytes[i] = ender }
                    let found = bytes.withUnsafeBufferPointer { ByteScan.nameEnd(UInt8(ascii: "="), in: $0.baseAddress!, from: 0, to: length) }
                    #expect(found == hit, "nameEnd(\(ender)) in \(length) bytes, hit at \(hit)")
                }
            }
        }
        // '/' ends a name only where it is the `other` byte (a tag name), not in an attribute name.
        let slash = Array("ab/cd efghijklmnopqrstuvw".utf8)
        #expect(slash.withUnsafeBufferPointer { ByteScan.nameEnd(UInt8(ascii: "/"), in: $0.baseAddress!, from: 0, to: $0.count) } == 2)
        #expect(slash.withUnsafeBufferPointer { ByteScan.nameEnd(UInt8(ascii: "="), in: $0.baseAddress!, from: 0, to: $0.count) } == 5)
    }

    /// The same document cut into chunks of every size from 1 to 40 bytes gives the same tokens:
    /// a '<', '&', quote, entity and multi-byte UTF-8 character each fall across a chunk end
    /// somewhere, and texts and values are shorter and longer than sixteen bytes.
    @Test func tokensDoNotDependOnWhereChunksEnd() throws {
        let xml = """
            <?xml version="1.0"?><trace-query-result><node xpath='//trace-toc[1]/run[1]/data[1]/table[9]'>\
            <row><start-time id="413" fmt="00:01.019.285">1019285961</start-time>\
            <string id="2" fmt="Caf\u{E9} &amp; \u{1F600} &lt;T&gt; &quot;q&quot;">Caf\u{E9} &#x1F600; &amp; a much longer text than sixteen bytes</string>\
            <s fmt='it&apos;s "quoted"' x="&#233;"/><thread-name-that-is-longer-than-sixteen-bytes a="1"></thread-name-that-is-longer-than-sixteen-bytes >\
            <e>&amp;</e><f>x&lt;</f><g>\u{4E2D}\u{6587}</g></row></node></trace-query-result>
            """
        let expected = [
            "<trace-query-result>", "<node xpath=//trace-toc[1]/run[1]/data[1]/table[9]>", "<row>",
            "<start-time id=413 fmt=00:01.019.285>", "'1019285961'", "</start-time>",
            "<string id=2 fmt=Caf\u{E9} & \u{1F600} <T> \"q\">", "'Caf\u{E9} \u{1F600} & a much longer text than sixteen bytes'", "</string>",
            "<s fmt=it's \"quoted\" x=\u{E9}/>",
            "<thread-name-that-is-longer-than-sixteen-bytes a=1>", "</thread-name-that-is-longer-than-sixteen-bytes>",
            "<e>", "'&'", "</e>", "<f>", "'x<'", "</f>", "<g>", "'\u{4E2D}\u{6587}'", "</g>",
            "</row>", "</node>", "</trace-query-result>",
        ]
        for chunkSize in 1...40 {
            #expect(try XCTraceTokenizerTests.tokens(xml, chunkSize: chunkSize) == expected, "chunks of \(chunkSize) bytes")
        }
        #expect(try XCTraceTokenizerTests.tokens(xml, chunkSize: 1 << 16) == expected)
    }

    /// A document shorter than one sixteen-byte comparison.
    @Test func aDocumentShorterThanTheScanWidthIsRead() throws {
        #expect(try XCTraceTokenizerTests.tokens("<a b='&lt;'>c</a>", chunkSize: 1 << 16) == ["<a b=<>", "'c'", "</a>"])
        #expect(try XCTraceTokenizerTests.tokens("<a>&amp;</a>", chunkSize: 1 << 16) == ["<a>", "'&'", "</a>"])
    }
}
