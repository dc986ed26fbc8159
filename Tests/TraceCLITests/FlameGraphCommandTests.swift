import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import TraceCLI

/// `tracesvc flamegraph` and `tracesvc compare --flamegraph`: standalone SVGs that are well-formed
/// XML, hold the frames (and, compared, what went away), and render with an image tool.
@Suite struct FlameGraphCommandTests {
    /// The text of every `<title>` and `<text>` of an SVG, parsed as XML (a parse error fails).
    private func texts(ofSVG path: String) throws -> (width: Int, height: Int, texts: [String]) {
        final class Reader: NSObject, XMLParserDelegate {
            var texts: [String] = []
            var size = (0, 0)
            private var current: String?
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
                if name == "svg" { size = (Int(attributes["width"] ?? "") ?? 0, Int(attributes["height"] ?? "") ?? 0) }
                if name == "title" || name == "text" { current = "" }
            }
            func parser(_ parser: XMLParser, foundCharacters string: String) { current? += string }
            func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
                if (name == "title" || name == "text"), let text = current { texts.append(text) }
                current = nil
            }
        }
        let parser = try #require(XMLParser(contentsOf: URL(fileURLWithPath: path)))
        let reader = Reader()
        parser.delegate = reader
        #expect(parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))")
        return (reader.size.0, reader.size.1, reader.texts)
    }

    /// Renders `svg` to PNG with rsvg-convert (scripts/test.sh installs librsvg2-bin) and returns the PNG's size.
    private func rendered(_ svg: String, to png: String) throws -> (width: Int, height: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["rsvg-convert", "--format", "png", "--output", png, svg]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "rsvg-convert failed on \(svg) (install librsvg2-bin)")
        let data = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        // The PNG header's width and height (big-endian, after the IHDR tag).
        func int(_ at: Int) -> Int { data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (int(16), int(20))
    }

    @Test func aTracesFlameGraphOfOneViewIsAnSVGThatRenders() async throws {
        let folder = try Folder()
        let svg = folder.path("item.svg")
        let run = await TraceSvc.capture(["flamegraph", Golden.sample("landmarks-scroll-slow"), "--view", "LandmarkListItemView", "-o", svg, "--width", "1000"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.hasPrefix("wrote \(svg): "))
        let parsed = try texts(ofSVG: svg)
        #expect(parsed.width == 1000)
        #expect(parsed.texts.contains { $0.hasPrefix("landmarks-scroll-slow: CPU flame graph") })
        #expect(parsed.texts.contains { $0.hasPrefix("NumberFormatter.init() (Foundation): total ") })
        #expect(parsed.texts.contains("LandmarkListItemView.body.getter"))
        #expect(parsed.texts.contains("the app's code"))
        let png = try rendered(svg, to: folder.path("item.png"))
        #expect(png.width == 1000 && png.height == parsed.height)
    }

    /// The fill of the first frame whose tooltip starts with `name` (the rect after its title).
    private func fill(ofFrame name: String, inSVG path: String) throws -> String? {
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        guard let title = svg.range(of: "<title>\(name)") , let fill = svg[title.upperBound...].range(of: "fill=\"") else { return nil }
        return String(svg[fill.upperBound...].prefix(7))
    }

    @Test func theDifferentialSVGColoursByTimeSoAnUnchangedFrameIsNotRedWhenTheTotalHalves() async throws {
        let folder = try Folder()
        let (byTime, byShare) = (folder.path("time.svg"), folder.path("share.svg"))
        for (path, extra) in [(byTime, [String]()), (byShare, ["--flamegraph-by-share"])] {
            let run = await TraceSvc.capture(["compare", Golden.sample("landmarks-scroll-slow"), Golden.sample("landmarks-scroll-fixed"), "--flamegraph", path] + extra)
            #expect(run.status == 0, "\(run.error)")
        }
        let commit = "CA::Context::commit_transaction"
        // 187 -> 181 ms of self time while the pair's CPU about halves: pale blue, "shrank a little".
        let timeFill = try #require(try fill(ofFrame: commit, inSVG: byTime))
        #expect(timeFill != FlameGraphSVG.diffColor(0.05) && timeFill.hasPrefix("#") && !isReddish(timeFill), "\(timeFill)")
        let timeTexts = try texts(ofSVG: byTime).texts
        #expect(timeTexts.contains { $0.hasPrefix(commit) && $0.contains("self 187.00 ms before, 181.00 ms after, −6.00 ms") })
        #expect(timeTexts.contains { $0.hasPrefix("self time grew ") && $0.hasSuffix(" ms or more") })
        // By share, its 44-point growth is saturated red: the toggle keeps the old reading.
        #expect(try fill(ofFrame: commit, inSVG: byShare) == FlameGraphSVG.diffColor(0.05))
        #expect(try texts(ofSVG: byShare).texts.contains("self share grew (5 points or more)"))
    }

    private func isReddish(_ hex: String) -> Bool {
        let value = Int(hex.dropFirst(), radix: 16) ?? 0
        return (value >> 16) & 0xff > (value & 0xff) + 20
    }

    @Test func theScrollPairsDifferentialFlameGraphListsTheFormattersAsGone() async throws {
        let folder = try Folder()
        let svg = folder.path("diff.svg")
        let run = await TraceSvc.capture([
            "compare", Golden.sample("landmarks-scroll-slow"), Golden.sample("landmarks-scroll-fixed"),
            "--a-start", "1000000000", "--b-start", "1000000000", "--flamegraph", svg,
        ])
        #expect(run.status == 0, "\(run.error)")
        // The comparison still prints as before; the picture is said on standard error.
        #expect(run.output.hasPrefix("Compare landmarks-scroll-slow (A, before) → landmarks-scroll-fixed (B, after)"))
        #expect(run.error.hasPrefix("wrote \(svg): "))
        let parsed = try texts(ofSVG: svg)
        #expect(parsed.texts.contains { $0.hasPrefix("Gone in B (") })
        for gone in ["NumberFormatter.init()", "unum_open", "-[NSMeasurementFormatter stringFromMeasurement:]", "LandmarkListItemView.distance.getter"] {
            #expect(parsed.texts.contains { $0.contains("  \(gone)") || $0.hasPrefix("\(gone) (") }, "\(gone) is not listed as gone")
        }
        #expect(parsed.texts.contains { $0.contains("LandmarkListItemView.distanceText.getter") && $0.contains("not at this call path in A") })
        _ = try rendered(svg, to: folder.path("diff.png"))
        // Of one view's bodies only.
        let view = folder.path("view.svg")
        let drilled = await TraceSvc.capture([
            "compare", Golden.sample("landmarks-scroll-slow"), Golden.sample("landmarks-scroll-fixed"), "--format", "json",
            "--flamegraph", view, "--flamegraph-view", "LandmarkListItemView",
        ])
        #expect(drilled.status == 0, "\(drilled.error)")
        let viewTexts = try texts(ofSVG: view).texts
        #expect(viewTexts.contains { $0.contains("LandmarkListItemView's bodies") })
        // B's frames are the body's: none of the frame commit work outside it.
        #expect(!viewTexts.contains { $0.hasPrefix("CA::Transaction::commit() (QuartzCore): total") })
        #expect(viewTexts.contains { $0.hasPrefix("LandmarkListItemView.body.getter (Landmarks): total") })
    }

    @Test func framesNamedWithCharactersXMLLacksStillMakeWellFormedSVGs() async throws {
        let folder = try Folder()
        // U+FFFE, U+FFFF, ESC, BEL and NUL in frame names: none of them may appear in XML 1.0.
        let trace = folder.path("odd-names.json")
        try Data(#"""
            {"format":"tracesvc-trace","version":3,"metadata":{"app":"Odd","device":"d","osVersion":"1","refreshRate":60,"recordedAt":null,"start":0,"end":10000000,"importNotes":[]},
            "processes":[[1,"Odd"]],"threads":[[1,"Main Thread",0,true]],
            "frames":[["main\uFFFE","Odd",true],["work\uFFFF\u001b[31m\u0007\u0000","Odd",true]],"stacks":[[null,0],[0,1]],
            "samples":[[1000,0,1000,1],[2000,0,1000,1],[3000,0,1000,0]]}
            """#.utf8).write(to: URL(fileURLWithPath: trace))
        let svg = folder.path("odd.svg")
        let run = await TraceSvc.capture(["flamegraph", trace, "-o", svg])
        #expect(run.status == 0, "\(run.error)")
        #expect(try texts(ofSVG: svg).texts.contains { $0.hasPrefix("work?") })
        let compared = await TraceSvc.capture(["compare", trace, trace, "--flamegraph", folder.path("odd-pair.svg")])
        #expect(compared.status == 0, "\(compared.error)")
        _ = try texts(ofSVG: folder.path("odd-pair.svg"))
    }

    @Test func anotherAppsTraceAndBadArguments() async throws {
        let folder = try Folder()
        let (trace, other) = try await CommandOutputTests.syntheticPair(in: folder)
        let svg = folder.path("synthetic.svg")
        let run = await TraceSvc.capture(["flamegraph", trace, "--hide-system", "--flatten", "--invert", "--range", "0s,5s", "-o", svg])
        #expect(run.status == 0, "\(run.error)")
        #expect(try texts(ofSVG: svg).texts.contains { $0.contains("system libraries hidden, recursion flattened, inverted") })
        let compared = await TraceSvc.capture(["compare", trace, other, "--flamegraph", folder.path("pair.svg")])
        #expect(compared.status == 0)
        _ = try texts(ofSVG: folder.path("pair.svg"))

        let badRange = await TraceSvc.capture(["flamegraph", trace, "--range", "5,x", "-o", svg])
        #expect(badRange.status == 1 && badRange.error.contains("--range: give START,END as durations"))
        let backwards = await TraceSvc.capture(["flamegraph", trace, "--range", "5,1", "-o", svg])
        #expect(backwards.status == 1 && backwards.error.contains("--range: the end must be after the start"))
        let badThread = await TraceSvc.capture(["flamegraph", trace, "--thread", "99", "-o", svg])
        #expect(badThread.status == 1 && badThread.error.contains("--thread: the trace has"))
        let unwritable = await TraceSvc.capture(["flamegraph", trace, "-o", folder.path("no/such/dir/out.svg")])
        #expect(unwritable.status == 1 && unwritable.error.contains("no/such/dir/out.svg"))
        let missingOutput = await TraceSvc.capture(["flamegraph", trace])
        #expect(missingOutput.status == 2)
    }
}
