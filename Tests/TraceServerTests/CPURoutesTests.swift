import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TraceServer

/// GET flamegraph, stackchart and compare/flamegraph, and the call tree's new transforms, over
/// HTTP (docs/api.md, "CPU"). The fixture: main (1 ms self) and main -> body (1 ms), one thread.
@Suite struct CPURoutesTests {
    @Test func flameGraphFramesAreColumnsWithPathsToZoomAndFocus() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.sampleID()
            let graph = try await client.get("/api/traces/\(id)/flamegraph?width=800").json()
            #expect(graph["totalWeight"] as? Int == 2_000_000 && graph["sampleCount"] as? Int == 2 && graph["unit"] as? String == "ns")
            #expect(graph["window"] as? [Int] == [0, 2_000_000] && graph["width"] as? Int == 800 && graph["minWeight"] as? Int == 2_500)
            let frames = try #require(graph["frames"] as? [String: Any])
            let names = try #require(graph["names"] as? [String])
            let nameOf = (frames["name"] as? [Int] ?? []).map { names[$0] }
            #expect(nameOf == ["Main Thread", "main", "body"])
            #expect(frames["depth"] as? [Int] == [0, 1, 2] && frames["parent"] as? [Int] == [-1, 0, 1])
            #expect(frames["x"] as? [Int] == [0, 0, 0] && frames["total"] as? [Int] == [2_000_000, 2_000_000, 1_000_000])
            #expect(frames["self"] as? [Int] == [0, 1_000_000, 1_000_000] && frames["samples"] as? [Int] == [2, 2, 1])
            #expect(frames["kind"] as? [String] == ["thread", "app", "app"])
            let steps = try #require(frames["step"] as? [String])
            #expect(steps == ["t0", "f0", "f1"])

            let zoomed = try await client.get("/api/traces/\(id)/flamegraph?width=800&zoom=t0.f0.f1").json()
            #expect(zoomed["window"] as? [Int] == [0, 1_000_000] && zoomed["zoom"] as? [Int] == [0, 1, 2] && zoomed["zoomFound"] as? Bool == true)
            let focused = try await client.get("/api/traces/\(id)/flamegraph?focus=t0.f0.f1").json()
            #expect(focused["totalWeight"] as? Int == 1_000_000 && ((focused["frames"] as? [String: Any])?["step"] as? [String]) == ["f1"])
            let tree = try await client.get("/api/traces/\(id)/calltree?focus=t0.f0&minPercent=0").json()
            let roots = try #require(tree["roots"] as? [[String: Any]])
            #expect(roots.map { $0["name"] as? String } == ["main"] && roots[0]["samples"] as? Int == 2 && roots[0]["step"] as? String == "f0")
            let gone = try await client.get("/api/traces/\(id)/calltree?focus=t0.f1").json()
            #expect(gone["focusFound"] as? Bool == false && (gone["roots"] as? [Any])?.isEmpty == true)

            // A search the transforms hide is counted: "body" is app code, "main" too; charge body away.
            let hidden = try await client.get("/api/traces/\(id)/flamegraph?charge=body&search=BOD").json()
            let counts = try #require(hidden["hiddenMatches"] as? [String: Int])
            #expect(counts == ["functions": 1, "hideSystem": 0, "charged": 1, "focus": 0])

            for bad in ["zoom=t0.x1", "zoom=t9", "focus=f99", "width=0", "from=5", "from=5&to=5", "flatten=maybe", "focus=" + Array(repeating: "f0", count: 300).joined(separator: ".")] {
                try expectError(try await client.get("/api/traces/\(id)/flamegraph?\(bad)"), .badRequest)
            }
        }
    }

    @Test func stackChartBoxesAreOneThreadsSamplesInTimeOrder() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.sampleID()
            let chart = try await client.get("/api/traces/\(id)/stackchart?thread=0&width=1000").json()
            #expect(chart["thread"] as? Int == 0 && chart["sampleCount"] as? Int == 2 && chart["sampleInterval"] as? Int == 1_000_000)
            let boxes = try #require(chart["boxes"] as? [String: Any])
            let names = try #require(chart["names"] as? [String])
            // Sample 1 (1 ms) is main -> body, sample 2 (2 ms) main: one main box over both, body over the first.
            #expect(boxes["depth"] as? [Int] == [0, 1] && (boxes["name"] as? [Int] ?? []).map { names[$0] } == ["main", "body"])
            #expect(boxes["start"] as? [Int] == [1_000_000, 1_000_000] && boxes["end"] as? [Int] == [3_000_000, 2_000_000])
            #expect(boxes["samples"] as? [Int] == [2, 1])
            try expectError(try await client.get("/api/traces/\(id)/stackchart?thread=3"), .badRequest)
            try expectError(try await client.get("/api/traces/\(id)/stackchart?start=5&end=1"), .badRequest)
        }
    }

    @Test func differentialFlameGraphOfTwoUploadedTraces() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let before = try await client.uploadedID(nativeTrace(updates: 20), name: "before.json")
            // After: the body frame is gone, its sample now in main.
            let after = try await client.uploadedID(nativeTrace(updates: 20).replacingOccurrences(of: "[1000000,0,1000000,1]", with: "[1000000,0,1000000,0]"), name: "after.json")
            let diff = try await client.get("/api/compare/flamegraph?a=\(before)&b=\(after)&width=600").json()
            let removed = try #require(diff["removed"] as? [[String: Any]])
            #expect(removed.map { $0["name"] as? String } == ["body"] && removed[0]["share"] as? Double == 0.5)
            #expect(diff["removedCount"] as? Int == 1)
            let beforeSide = try #require(diff["before"] as? [String: Any])
            #expect(beforeSide["totalWeight"] as? Int == 2_000_000 && beforeSide["total"] as? [Int] == [2_000_000])
            // B's one frame, main, went from half the self time to all of it.
            #expect(diff["selfDelta"] as? [Double] == [0.5])
            // Its self time, 1 ms -> 2 ms, half the larger side's total.
            #expect(diff["selfTimeDelta"] as? [Double] == [0.5])
            try expectError(try await client.get("/api/compare/flamegraph?a=\(before)"), .badRequest)
            try expectError(try await client.get("/api/compare/flamegraph?a=\(before)&b=ffffffffffffffffffffffffffffffff"), .notFound)
        }
    }

    @Test func differentialFlameGraphPoolsSeveralRecordingsASide() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            // A tides app: two recordings before (the second numbers its frames the other way
            // round, its body 3 ms), two after with the body gone.
            let slow1 = nativeTrace(app: "Tides")
            let slow2 = slow1
                .replacingOccurrences(of: #""frames":[["main","Tides",true],["body","Tides",true]]"#, with: #""frames":[["body","Tides",true],["main","Tides",true]]"#)
                .replacingOccurrences(of: #""stacks":[[null,0],[0,1]]"#, with: #""stacks":[[null,1],[0,0]]"#)
                .replacingOccurrences(of: "[1000000,0,1000000,1]", with: "[1000000,0,3000000,1]")
            let fixed = nativeTrace(app: "Tides").replacingOccurrences(of: "[1000000,0,1000000,1]", with: "[1000000,0,1000000,0]")
            let a = [try await client.uploadedID(slow1, name: "tides-slow-1.json"), try await client.uploadedID(slow2, name: "tides-slow-2.json")]
            let b = [try await client.uploadedID(fixed, name: "tides-fixed-1.json"),
                     try await client.uploadedID(fixed.replacingOccurrences(of: "\"refreshRate\":120", with: "\"refreshRate\":60"), name: "tides-fixed-2.json")]
            #expect(Set(a + b).count == 4)
            let pooled = "a=\(a.joined(separator: ","))&b=\(b.joined(separator: ","))"
            let diff = try await client.get("/api/compare/flamegraph?\(pooled)&width=600").json()
            // Per run: A's main 1 ms of its own and its body (1 + 3) / 2 ms; B's main 2 ms.
            #expect(diff["runs"] as? [String: Int] == ["a": 2, "b": 2])
            #expect(diff["totalWeight"] as? Int == 2_000_000 && diff["sampleCount"] as? Int == 4)
            let beforeSide = try #require(diff["before"] as? [String: Any])
            #expect(beforeSide["totalWeight"] as? Int == 3_000_000 && beforeSide["total"] as? [Int] == [3_000_000] && beforeSide["self"] as? [Int] == [1_000_000])
            let removed = try #require(diff["removed"] as? [[String: Any]])
            #expect(removed.map { $0["name"] as? String } == ["body"] && removed[0]["total"] as? Int == 2_000_000)
            #expect(diff["selfDelta"] as? [Double] == [0.666667])
            // Frames of a pooled graph go by names: zoom too.
            #expect((diff["frames"] as? [String: Any])?["step"] as? [String] == [""])
            let zoomed = try await client.get("/api/compare/flamegraph?\(pooled)&zoomNames=main").json()
            #expect(zoomed["zoomFound"] as? Bool == true && zoomed["zoom"] as? [Int] == [0])
            #expect(try await client.get("/api/compare/flamegraph?\(pooled)&zoomNames=body").json()["zoomFound"] as? Bool == false)
            // One recording against several: pooled too; one against one: as before (no runs).
            #expect(try await client.get("/api/compare/flamegraph?a=\(a[1])&b=\(b.joined(separator: ","))").json()["runs"] as? [String: Int] == ["a": 1, "b": 2])
            #expect(try await client.get("/api/compare/flamegraph?a=\(a[1])&b=\(b[0])").json()["runs"] == nil)
            // The lists of GET compare, their limit and errors; rows and ranges of one recording refused.
            let eleven = [String](repeating: a[0], count: 11).joined(separator: ",")
            for bad in ["a=\(eleven)&b=\(b[0])", "a=\(a[0]),,\(a[1])&b=\(b[0])", "a=&b=\(b[0])", "\(pooled)&zoom=f0", "\(pooled)&focus=f0",
                        "\(pooled)&thread=0", "\(pooled)&aStart=0&aEnd=5000", "a=\(a[0])&b=\(b.joined(separator: ","))&bStart=0&bEnd=5000"] {
                try expectError(try await client.get("/api/compare/flamegraph?\(bad)"), .badRequest)
            }
            let tooMany = try await client.get("/api/compare/flamegraph?a=\(eleven)&b=\(b[0])").json()
            #expect((tooMany["detail"] as? String)?.contains("a side pools at most 10") == true)
            try expectError(try await client.get("/api/compare/flamegraph?a=\(a[0]),ffffffffffffffffffffffffffffffff&b=\(b[0])"), .notFound)
        }
    }

    @Test func answersOverSamplesWhoseStacksShareNothingStayWithinPixelsTimesDepth() async throws {
        // A podcast app: 2,000 samples 1 us apart, each stack 12 frames deep and its own below "main".
        var frames = [#"["main","Podcasts",true]"#], stacks = ["[null,0]"], samples: [String] = []
        for i in 0..<2_000 {
            var parent = 0
            for level in 1..<12 {
                frames.append("[\"Episode\(i).step\(level)\",\"Podcasts\",true]")
                stacks.append("[\(parent),\(frames.count - 1)]")
                parent = stacks.count - 1
            }
            samples.append("[\(1_000_000 + i * 1_000),0,1000,\(parent)]")
        }
        let text = nativeTrace(updates: 20, app: "Podcasts")
            .replacingOccurrences(of: #""frames":[["main","Podcasts",true],["body","Podcasts",true]]"#, with: "\"frames\":[\(frames.joined(separator: ","))]")
            .replacingOccurrences(of: #""stacks":[[null,0],[0,1]]"#, with: "\"stacks\":[\(stacks.joined(separator: ","))]")
            .replacingOccurrences(of: #""samples":[[1000000,0,1000000,1],[2000000,0,1000000,0]]"#, with: "\"samples\":[\(samples.joined(separator: ","))]")
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(text, name: "podcasts.json")
            // 100 px for 2 ms: 20 samples a pixel, each pixel "main" and one merged box per depth below.
            let chart = try await client.get("/api/traces/\(id)/stackchart?thread=0&start=1000000&end=3000000&width=100").json()
            #expect(chart["sampleCount"] as? Int == 2_000)
            let boxes = try #require(chart["boxes"] as? [String: Any])
            let depth = try #require(boxes["depth"] as? [Int]), counts = try #require(boxes["samples"] as? [Int])
            #expect(depth.count <= 100 * 12)
            for level in 0..<12 {
                #expect(depth.indices.filter { depth[$0] == level }.reduce(0) { $0 + counts[$1] } == 2_000, "depth \(level)")
            }
            // The flame graph: the thread, main, and its 2,000 children as one block of all their weight.
            let graph = try await client.get("/api/traces/\(id)/flamegraph?width=100").json()
            let frameColumns = try #require(graph["frames"] as? [String: Any])
            #expect(frameColumns["kind"] as? [String] == ["thread", "app", "merged"] && frameColumns["merged"] as? [Int] == [0, 0, 2_000])
            #expect(frameColumns["total"] as? [Int] == [2_000_000, 2_000_000, 2_000_000])
            // Asked again for a window: the same weights, more frames of their own.
            let window = try await client.get("/api/traces/\(id)/flamegraph?width=100&from=0&to=50000").json()
            #expect(window["totalWeight"] as? Int == 2_000_000 && ((window["frames"] as? [String: Any])?["kind"] as? [String])?.filter { $0 == "app" }.count ?? 0 > 40)
        }
    }
}
