import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TraceFormats
import TraceSamples
@testable import TraceServer

/// Issue 24: traces whose answers an input could make huge, or whose queries an input could make
/// quadratic, through the API. The quadratic shapes are timed at n and 4n in the same run: a
/// linear query takes about 4x as long, a quadratic one 16x; the check allows 8x plus half a
/// second of noise (best of three runs each), so it fails only on a loop of the wrong class.
@Suite struct HostileQueryTests {
    // MARK: Answers bounded whatever the trace

    @Test func theUpdateGraphOfTheBacktraceBombIsBoundedInNodesFramesAndBytes() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            // 300 @State causes, each written from the leaf of a 3,000-frame stack.
            let id = try await client.uploadedID(HostileTraces.backtraceBomb(stateNodes: 300, depth: 3000), name: "bomb.json")
            let response = try await client.get("/api/traces/\(id)/updates/0/graph")
            #expect(response.status == .ok)
            #expect(response.body.readableBytes < 1 << 20, "the graph answered \(response.body.readableBytes) bytes")
            let graph = try response.json()
            let nodes = try #require(graph["nodes"] as? [[String: Any]])
            #expect(nodes.count == 301 && graph["omittedNodes"] as? Int == 0)
            #expect(nodes.contains { $0["focus"] as? Bool == true })
            let backtraces = nodes.compactMap { $0["backtrace"] as? [[String: Any]] }
            #expect(backtraces.count == 300)
            #expect(backtraces.allSatisfy { $0.count <= 128 })
            #expect(backtraces.reduce(0) { $0 + $1.count } <= 2048)
            #expect(backtraces.first?.count == 128 && nodes.first { $0["backtrace"] != nil }?["backtraceTruncated"] as? Bool == true)

            let detail = try await client.get("/api/traces/\(id)/updates/0").json()
            #expect((detail["causes"] as? [Any])?.count == 100 && detail["causeCount"] as? Int == 300)
        }
    }

    // MARK: Work linear in the input

    @Test func theGraphFindsEachWriteWithoutReadingEveryWrite() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            // 400 written @State causes; 100,000 writes of another State before their writes, or after them.
            var best: [Double] = []
            for last in [false, true] {
                let text = HostileTraces.manyWrites(writtenNodes: 400, otherWrites: 100_000, graphWritesLast: last)
                let id = try await client.uploadedID(text, name: "writes.json")
                var times: [Double] = []
                for _ in 0..<3 {
                    let start = ContinuousClock.now
                    let graph = try await client.get("/api/traces/\(id)/updates/0/graph").json()
                    times.append(seconds(ContinuousClock.now - start))
                    let nodes = try #require(graph["nodes"] as? [[String: Any]])
                    #expect(nodes.filter { ($0["backtrace"] as? [Any])?.count == 1 }.count == 400)
                }
                best.append(times.min()!)
            }
            // Read from the first write, the nodes' writes cost 400 x 100,000 steps when they come last.
            #expect(best[1] < 4 * best[0] + 0.25, "graph writes first: \(best[0]) s, last: \(best[1]) s")
        }
    }

    @Test func theCallTreeOfAChainOfEverDeeperStacksIsLinear() async throws {
        try await expectLinear("call tree of n stacks, each one frame deeper", n: 8000) { client, n in
            let id = try await client.uploadedID(HostileTraces.stackChain(stacks: n), name: "chain-\(n).json")
            return { _ in
                for mode in ["top-down", "bottom-up"] {
                    let response = try await client.get("/api/traces/\(id)/calltree?mode=\(mode)&minPercent=0&hideSystem=true")
                    #expect(response.status == .ok)
                }
            }
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(HostileTraces.stackChain(stacks: 1000), name: "chain.json")
            let tree = try await client.get("/api/traces/\(id)/calltree?minPercent=0").json()
            // The thread, then one path folded at 200 frames, charged with the samples of every deeper stack.
            var node = try #require((tree["roots"] as? [[String: Any]])?.first)
            var depth = 0
            while let next = (node["children"] as? [[String: Any]])?.first {
                node = next
                depth += 1
            }
            #expect(depth == 200 && node["foldedDepth"] as? Bool == true && node["self"] as? Int == 801 * 1000)
        }
    }

    @Test func aViewCallTreeOverAnEndlessGenericNameIsLinear() async throws {
        try await expectLinear("calltree?view=A over a frame named A<A<A<… (4n times)") { client, n in
            let id = try await client.uploadedID(HostileTraces.genericBodyName(repeats: 4 * n), name: "generic-\(n).json")
            return { _ in
                let tree = try await client.get("/api/traces/\(id)/calltree?view=A&minPercent=0").json()
                #expect(tree["updateCount"] as? Int == 1)
                // The sample on A.body.getter is under its body frame; the other never reached one.
                #expect(Set(((tree["roots"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }) == ["Outside A.body", "A.body.getter"])
            }
        }
    }

    @Test func findingsOfASystemStackChainInAHangAreLinear() async throws {
        try await expectLinear("upload (findings) of a hang over n system stacks, each one frame deeper", n: 8000) { client, n in
            // The upload computes the findings: that is what is timed (each run another file: trailing spaces).
            let text = HostileTraces.systemChainInHang(stacks: n)
            return { run in
                let response = try await client.upload(text + String(repeating: " ", count: run), name: "hang-\(n).json")
                #expect(response.status == .created || response.status == .ok)
            }
        }
    }

    /// Runs `prepare` for n and 4n, then times the query it returns, three times each, the sizes
    /// taking turns (a machine busy with other work slows both alike), and expects the best time
    /// at 4n to be less than 8x the best at n plus half a second.
    private func expectLinear(
        _ what: String, n: Int = 2000,
        _ prepare: @escaping @Sendable (any TestClientProtocol, Int) async throws -> @Sendable (_ run: Int) async throws -> Void
    ) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let queries = [try await prepare(client, n), try await prepare(client, 4 * n)]
            var best = [Double.infinity, .infinity]
            for run in 0..<3 {
                for size in 0..<2 {
                    let start = ContinuousClock.now
                    try await queries[size](run)
                    best[size] = min(best[size], seconds(ContinuousClock.now - start))
                }
            }
            #expect(best[1] < 8 * best[0] + 0.5, "\(what): \(best[0]) s at n = \(n), \(best[1]) s at 4n (linear: about 4x)")
        }
    }
}

private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
