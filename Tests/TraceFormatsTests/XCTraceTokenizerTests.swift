import Testing
@testable import TraceFormats

/// The byte-level XML tokenizer and value reader under the importer.
@Suite struct XCTraceTokenizerTests {
    /// Tokens as text: "<name a=v>", "</name>", "'text'"; whitespace-only text left out.
    static func tokens(_ xml: String, chunkSize: Int = 3) throws -> [String] {
        let tokenizer = XMLTokenizer(source: .memory(Array(xml.utf8), chunkSize: chunkSize))
        var out: [String] = []
        while true {
            switch try tokenizer.next() {
            case .endOfInput:
                return out
            case let .start(name, selfClosing):
                let attributes = try tokenizer.attributes.map { " \(tokenizer.names.name($0.name))=\(try tokenizer.string($0))" }
                out.append("<\(tokenizer.names.name(name))\(attributes.joined())\(selfClosing ? "/" : "")>")
            case let .end(name):
                out.append("</\(tokenizer.names.name(name))>")
            case .text:
                if !tokenizer.textIsWhitespace { out.append("'\(try tokenizer.text())'") }
            }
        }
    }

    @Test func anEndlessTagIsAnErrorNotUnboundedMemory() throws {
        let xml = "<row><string fmt=\"" + String(repeating: "a", count: XMLTokenizer.maxHeldBytes + (1 << 20))
        let error = try #require(throws: XMLSyntaxError.self) { try Self.tokens(xml, chunkSize: 1 << 20) }
        #expect(error.message == "a single row or tag is longer than 64 MB")
    }

    @Test func tooManyDistinctNamesIsAnErrorNotATrap() throws {
        let xml = "<r>" + (0..<70_000).map { "<e\($0)/>" }.joined() + "</r>"
        let error = try #require(throws: XMLSyntaxError.self) { try Self.tokens(xml, chunkSize: 1 << 16) }
        #expect(error.message == "more than 65535 distinct element and attribute names")
    }

    /// `id`, `fmt` and `ref` are told apart without the name table; names that only start or end
    /// like them are still names of their own.
    @Test func rowAttributesAndTheirLookalikesKeepTheirNames() throws {
        let xml = #"<a id="1" fmt="2" ref="3" idx="4" i="5" fm="6" refs="7" xid="8" fmx="9" reF="10"></a><id></id>"#
        #expect(try Self.tokens(xml) == [#"<a id=1 fmt=2 ref=3 idx=4 i=5 fm=6 refs=7 xid=8 fmx=9 reF=10>"#, "</a>", "<id>", "</id>"])
        let tokenizer = XMLTokenizer(source: .memory(Array(xml.utf8)))
        _ = try tokenizer.next()
        #expect(tokenizer.attributes.prefix(3).map(\.name) == [XMLName.id.rawValue, XMLName.fmt.rawValue, XMLName.ref.rawValue])
    }

    @Test func entitiesAndCharacterReferencesAreDecoded() throws {
        let xml = #"<s fmt="&lt;graph&gt; &amp; &quot;x&quot; &apos;y&apos;">A&#66;&#x43; &#x1F600; &lt;T&gt;</s>"#
        #expect(try Self.tokens(xml) == [#"<s fmt=<graph> & "x" 'y'>"#, "'ABC 😀 <T>'", "</s>"])
    }

    @Test func declarationsCommentsCDATAAndQuotesAreHandled() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE trace-query-result>
        <!-- exported by hand -->
        <node xpath='//trace-toc[1]/run[1]'><row><string id = "1"><![CDATA[a < b & c]]></string><sentinel /></row></node>
        """
        #expect(try Self.tokens(xml) == [
            "<node xpath=//trace-toc[1]/run[1]>", "<row>", "<string id=1>", "'a < b & c'", "</string>", "<sentinel/>", "</row>", "</node>",
        ])
    }

    @Test(arguments: [
        ("<a>&bogus;</a>", "unknown entity &bogus;"),
        ("<a>x & y</a>", "'&' that starts no entity (write &amp;)"),
        ("<a><b></a>", "expected </b> but found </a>"),
        ("<a x=1/>", "attribute x of <a> is not quoted"),
        ("<a>", "the document ends before </a>"),
        ("<a><b", "the document ends inside a tag or comment"),
    ])
    func malformedInputIsReported(xml: String, message: String) {
        #expect {
            _ = try Self.tokens(xml)
        } throws: { error in
            (error as? XMLSyntaxError)?.message == message
        }
    }

    @Test func errorLocationsCountLinesAcrossChunks() throws {
        let xml = "<a>\n<b>\n  <c>oops &nope;</c>\n</b></a>"
        let tokenizer = XMLTokenizer(source: .memory(Array(xml.utf8), chunkSize: 2))
        var failure: XMLSyntaxError?
        do {
            reading: while true {
                switch try tokenizer.next() {
                case .endOfInput: break reading
                case .text: _ = try tokenizer.text()
                default: break
                }
            }
        } catch let error as XMLSyntaxError {
            failure = error
        }
        let error = try #require(failure)
        let location = tokenizer.location(ofOffset: error.offset)
        #expect(location.line == 3 && location.column == 11)
    }

    @Test func integersAreOnlyPlainDecimal() {
        func parse(_ text: String) -> Int64? { Array(text.utf8).withUnsafeBufferPointer { parseCanonicalInteger($0) } }
        #expect(parse("1234567000") == 1_234_567_000)
        #expect(parse("-5") == -5)
        #expect(parse("0") == 0)
        // Texts a number would not print back the same are kept as text.
        #expect(parse("007") == nil)
        #expect(parse("+1") == nil)
        #expect(parse("1.5") == nil)
        #expect(parse("0x1e9000") == nil)
        #expect(parse("99999999999999999999") == nil)
    }

    /// The eight-digits-at-a-time reading (of the tokenizer's buffer, readable past the text)
    /// says the same as the digit-by-digit one, whatever bytes follow the text.
    @Test func integersReadEightDigitsAtATimeAsOneByOne() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789-+ /:a".utf8)
        var texts = ["0", "00", "01", "10", "-0", "-1", "", "99999999", "100000000", "1000090445", "9999999999999999",
                     "0000000000000000", "12345678901234567", "9223372036854775807", "9223372036854775808"].map { Array($0.utf8) }
        for length in 0...18 {
            for _ in 0..<300 {
                texts.append((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
                var digits = (0..<length).map { _ in UInt8(ascii: "0") + UInt8.random(in: 0...9, using: &generator) }
                if length > 0 { digits[0] = UInt8(ascii: "1") + UInt8.random(in: 0...8, using: &generator) }
                texts.append(digits)
            }
        }
        for text in texts {
            for after in [UInt8(ascii: "<"), UInt8(ascii: "7"), 0, 0xFF] {
                let padded = text + [UInt8](repeating: after, count: 16)
                padded.withUnsafeBufferPointer { all in
                    let bytes = UnsafeBufferPointer(rebasing: all[0..<text.count])
                    #expect(parseCanonicalInteger(padded: bytes) == parseCanonicalInteger(bytes), "\(String(decoding: text, as: UTF8.self))")
                }
            }
        }
    }
}
