import Foundation
import Testing
import TraceFormats
import TraceSamples
@testable import TraceModel

/// The hostile corpus against every query (the fuzzer's `runEveryQuery`), at two sizes n and 4n
/// in the same run: reading a shape and answering every query about it must cost about 4x at 4n,
/// not 16x (a quadratic loop). Timed in CPU time of the test's thread (the reader and the queries
/// run on it), so other work on the machine does not count; best of two runs each, and 8x plus a
/// tenth of a second passes. `TRACESVC_HOSTILE_N` runs it at another size.
@Suite struct HostileCostTests {
    static let n = ProcessInfo.processInfo.environment["TRACESVC_HOSTILE_N"].flatMap(Int.init) ?? 3000

    static let shapes: [(name: String, text: @Sendable (Int) -> String)] = [
        ("backtrace bomb (n @State causes, each written from an n-frame stack)", { HostileTraces.backtraceBomb(stateNodes: $0, depth: $0) }),
        ("400 written @State causes after n other writes", { HostileTraces.manyWrites(writtenNodes: 400, otherWrites: $0, graphWritesLast: true) }),
        ("chain of n stacks, each one frame deeper", { HostileTraces.stackChain(stacks: $0) }),
        ("frame named A<A<A<… (2n times) in view A's update", { HostileTraces.genericBodyName(repeats: 2 * $0) }),
        ("hang over n system stacks, each one frame deeper", { HostileTraces.systemChainInHang(stacks: $0) }),
        ("one sample on an n-frame stack", { HostileTraces.deepNativeStack(depth: $0) }),
        ("n nested hangs over n samples, each on a frame of its own (n bottom-up roots)", { HostileTraces.nestedHangs(hangs: $0) }),
    ]

    @Test(arguments: shapes.indices)
    func everyQueryOfAHostileShapeIsLinear(_ shape: Int) throws {
        let (name, text) = Self.shapes[shape]
        var files: [URL] = []
        defer { for file in files { try? FileManager.default.removeItem(at: file) } }
        for size in [Self.n, 4 * Self.n] {
            files.append(FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-hostile-\(UUID().uuidString).json"))
            try Data(text(size).utf8).write(to: files[files.count - 1])
        }
        var best = [Double.infinity, .infinity]
        for _ in 0..<2 {
            for size in 0..<2 {
                let start = threadCPUSeconds()
                let trace = try TraceImporter.importTrace(at: files[size], displayName: "hostile")
                var random = SeededRandom(seed: 24)
                FuzzTests.runEveryQuery(trace, &random)
                best[size] = min(best[size], threadCPUSeconds() - start)
            }
        }
        #expect(best[1] < 8 * best[0] + 0.1, "\(name): \(best[0]) s of CPU at n = \(Self.n), \(best[1]) s at 4n (linear: about 4x)")
    }

    private func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
