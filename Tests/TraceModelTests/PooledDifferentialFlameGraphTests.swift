import Testing
@testable import TraceModel
import TraceSamples

/// The differential flame graph of several recordings a side: each side's trees merged by
/// frame-name path, weights per run; one recording a side answers as before, to the byte.
@Suite struct PooledDifferentialFlameGraphTests {
    /// FNV-1a of an answer: the one-recording form is pinned to its bytes before pooling.
    private func fingerprint(_ bytes: [UInt8]) -> (count: Int, hash: UInt64) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return (bytes.count, hash)
    }

    @Test func oneRecordingASideAnswersTheSameBytesAsBeforePooling() {
        let a = SampleTraces.trace(named: "landmarks-scroll-slow"), b = SampleTraces.trace(named: "landmarks-scroll-fixed")
        let plain = Trace.differentialFlameGraph(before: a, after: b, DifferentialFlameGraphQuery(before: CallTreeQuery(), after: CallTreeQuery(), width: 1440))
        var viewQuery = CallTreeQuery(range: TimeRange(start: 1_000_000_000, end: b.metadata.end))
        viewQuery.view = .init(name: "LandmarkListItemView", module: "Landmarks")
        let zoomed = Trace.differentialFlameGraph(before: a, after: b, DifferentialFlameGraphQuery(
            before: viewQuery, after: viewQuery, zoom: [plainRoot(b, viewQuery)].compactMap { $0 }, width: 600, removedLimit: 3
        ))
        let found = [fingerprint(withoutTimeDelta(plain.json())), fingerprint(withoutTimeDelta(zoomed.json()))]
        // Taken from the answers before pooling existed (which had no self time change yet).
        #expect(found.map(\.count) == [3718, 1428] && found.map(\.hash) == [5_352_527_050_254_474_177, 13_149_742_913_656_375_883], "\(found)")
    }

    /// The answer without its `selfTimeDelta` array (added after the pin was taken).
    private func withoutTimeDelta(_ bytes: [UInt8]) -> [UInt8] {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let start = text.range(of: ",\"selfTimeDelta\":["), let end = text[start.upperBound...].firstIndex(of: "]") else { return bytes }
        return Array((text[..<start.lowerBound] + text[text.index(after: end)...]).utf8)
    }

    /// The first root step of B's graph (to pin a zoomed answer).
    private func plainRoot(_ b: Trace, _ query: CallTreeQuery) -> CallPathStep? {
        let graph = b.flameGraph(FlameGraphQuery(tree: query, width: 600))
        return graph.frames.count > 0 ? graph.frames.step[0] : nil
    }

    /// A recipes app's recording: `stacks` are (names root first, samples of 1 ms); frames are
    /// added in `order` (another recording numbers them otherwise).
    private func recipes(_ name: String, order: [String], _ stacks: [([String], Int)]) throws -> Trace {
        var b = TraceBuilder(metadata: TraceMetadata(name: name, app: "Recipes", start: 0, end: 100_000_000, sourceFormat: "test"))
        let process = b.addProcess(TraceProcess(pid: 7, name: "Recipes"))
        let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
        let app = b.intern("Recipes"), foundation = b.intern("Foundation")
        var row: [String: UInt32] = [:]
        for frame in order {
            let binary = frame.hasPrefix("DateFormatter") || frame == "main" ? foundation : app
            row[frame] = b.addFrame(name: b.intern(frame), binary: binary, isAppCode: binary == app)
        }
        var time: Nanoseconds = 0
        for (frames, count) in stacks {
            for _ in 0..<count {
                b.addSample(time: time, thread: main, weight: 1_000_000, stack: UInt32(b.addStack(rootToLeaf: frames.map { row[$0]! })))
                time += 1_000_000
            }
        }
        return try b.build()
    }

    private let names = ["main", "RecipeList.body.getter", "DateFormatter.string(from:)", "ImageDecoder.decode", "CachedDate.text.getter"]

    private func pooledPair() throws -> (a: [Trace], b: [Trace]) {
        let (list, format, decode, cached) = (["main", names[1]], ["main", names[1], names[2]], ["main", names[3]], ["main", names[1], names[4]])
        let a = [
            try recipes("recipes-slow-1", order: names, [(list, 2), (format, 4)]),
            // Frames numbered the other way round; the image decoder only ran in this recording.
            try recipes("recipes-slow-2", order: names.reversed(), [(format, 2), (list, 4), (decode, 2)]),
        ]
        let b = [
            try recipes("recipes-fixed-1", order: names, [(list, 2), (cached, 1)]),
            try recipes("recipes-fixed-2", order: [names[4], names[0], names[1]], [(cached, 1), (list, 2)]),
        ]
        // The second recordings number their frames otherwise.
        #expect(a[0].cpu.frames.count == 5 && a[0].string(a[0].cpu.frames.name[0]) != a[1].string(a[1].cpu.frames.name[0]))
        return (a, b)
    }

    @Test func pooledSidesWeighPerRunMatchedByNamesWhateverTheirRows() throws {
        let (a, b) = try pooledPair()
        let diff = Trace.differentialFlameGraph(before: a, after: b, DifferentialFlameGraphQuery(before: CallTreeQuery(), after: CallTreeQuery(), width: 800))
        let graph = diff.graph
        func frame(_ name: String) throws -> Int { try #require((0..<graph.frames.count).first { graph.names[graph.frames.name[$0]] == name }) }
        // Per run: B ran 3 ms a recording, A 6 and 8 ms (7 a run).
        #expect(graph.totalWeight == 3_000_000 && diff.beforeTotal == 7_000_000)
        #expect(graph.sampleCount == 6 && diff.beforeSamples == 14)
        #expect(diff.beforeRuns == 2 && diff.afterRuns == 2)
        let list = try frame(names[1])
        #expect(graph.frames.total[list] == 3_000_000 && graph.frames.selfWeight[list] == 2_000_000)
        // A's list body: (2 + 4) / 2 ms of its own, (6 + 6) / 2 with the formatter below.
        #expect(diff.beforeSelfOfFrame[list] == 3_000_000 && diff.beforeTotalOfFrame[list] == 6_000_000)
        #expect(abs(diff.selfDelta[list] - (2.0 / 3 - 3.0 / 7)) < 0.000_001)
        #expect(diff.beforeTotalOfFrame[try frame(names[4])] == nil)
        // Gone in B: the formatter (3 ms a run) and the decoder, in one recording only (2 ms, 1 a run).
        #expect(diff.removed.map(\.name) == [names[2], names[3]] && diff.removedCount == 2)
        #expect(diff.removed.map(\.total) == [3_000_000, 1_000_000] && diff.removed.map(\.caller) == [names[1], "main"])
        #expect(abs(diff.removed[1].share - 1.0 / 7) < 0.000_001 && diff.removed[0].kind == .system && diff.removed[1].kind == .app)
        // Rows of one recording mean nothing in a pooled answer: frames go by names.
        #expect(graph.frames.step.allSatisfy { $0 == nil })
        let json = String(decoding: diff.json(), as: UTF8.self)
        #expect(json.hasSuffix(",\"runs\":{\"a\":2,\"b\":2}}"))
    }

    @Test func aPooledGraphZoomsByNames() throws {
        let (a, b) = try pooledPair()
        var query = DifferentialFlameGraphQuery(before: CallTreeQuery(), after: CallTreeQuery(), width: 800)
        query.zoomNames = ["main", names[1], names[4]]
        let zoomed = Trace.differentialFlameGraph(before: a, after: b, query).graph
        #expect(zoomed.zoomFound && zoomed.zoom.map { zoomed.names[zoomed.frames.name[$0]] } == query.zoomNames)
        #expect(zoomed.window.from == 0 && zoomed.window.to == 1_000_000)
        query.zoomNames = ["main", "NoSuchFunction"]
        #expect(!Trace.differentialFlameGraph(before: a, after: b, query).graph.zoomFound)
        // One recording a side: B's rows, as before (a single pair is not pooled).
        let single = Trace.differentialFlameGraph(before: [a[1]], after: [b[1]], DifferentialFlameGraphQuery(before: CallTreeQuery(), after: CallTreeQuery(), width: 800))
        #expect(single.beforeRuns == 1 && single.graph.frames.step.allSatisfy { $0 != nil })
        #expect(!String(decoding: single.json(), as: UTF8.self).contains("\"runs\""))
    }

    @Test func aHostileDepthIsFoldedAtTheLimitInAPooledGraphToo() throws {
        // 5,000 frames deep in each of two recordings: no recursion follows it, the graph stops at the limit.
        let deep = (0..<5_000).map { "Parser.level\($0)" }
        let a = [try recipes("deep-1", order: deep, [(deep, 2)]), try recipes("deep-2", order: deep.reversed(), [(deep, 1)])]
        let diff = Trace.differentialFlameGraph(before: a, after: a, DifferentialFlameGraphQuery(before: CallTreeQuery(), after: CallTreeQuery(), width: 400))
        #expect((CallTreeQuery.maxDepth - 1...CallTreeQuery.maxDepth).contains(diff.graph.frames.depth.max() ?? 0) && !diff.graph.frames.foldedDepth.filter { $0 }.isEmpty)
        // 1.5 ms a run: the two recordings' mean, all of it kept below the fold.
        #expect(diff.graph.totalWeight == 1_500_000 && diff.graph.frames.total.last == 1_500_000 && diff.removedCount == 0)
    }
}

