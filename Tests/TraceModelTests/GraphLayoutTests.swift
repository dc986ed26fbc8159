import Testing
@testable import TraceModel

@Suite struct GraphLayoutTests {
    /// A reproducible random DAG: edges only go from lower to higher index, sizes vary.
    static func randomDAG(nodes: Int, edgesPerNode: Int, seed: UInt64) -> ([GraphLayout.Size], [(from: Int, to: Int)]) {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let sizes = (0..<nodes).map { _ in GraphLayout.Size(width: Double(110 + next(180)), height: 44) }
        var edges: [(from: Int, to: Int)] = []
        for to in 1..<nodes {
            for _ in 0..<(1 + next(edgesPerNode)) { edges.append((next(to), to)) }
        }
        return (sizes, edges)
    }

    @Test(arguments: [(12, 2, 1), (60, 3, 2), (200, 2, 3), (600, 2, 4)] as [(Int, Int, UInt64)])
    func causesAreLeftOfEffectsAndNodesNeverOverlap(nodes: Int, edgesPerNode: Int, seed: UInt64) {
        let (sizes, edges) = Self.randomDAG(nodes: nodes, edgesPerNode: edgesPerNode, seed: seed)
        let layout = GraphLayout(sizes: sizes, edges: edges)
        #expect(layout.frames.count == nodes)
        for edge in edges {
            #expect(layout.frames[edge.from].maxX < layout.frames[edge.to].x, "edge \(edge.from)->\(edge.to) points left")
        }
        // Nodes of one column are stacked, so overlaps can only happen within a column.
        var byColumn: [Double: [GraphLayout.Rect]] = [:]
        for frame in layout.frames { byColumn[frame.x, default: []].append(frame) }
        for column in byColumn.values {
            let sorted = column.sorted { $0.y < $1.y }
            for (a, b) in zip(sorted, sorted.dropFirst()) { #expect(!a.intersects(b)) }
        }
        for frame in layout.frames {
            #expect(frame.x >= 0 && frame.y >= 0 && frame.maxX <= layout.width && frame.maxY <= layout.height)
        }
    }

    @Test func routesRunFromSourceToTargetThroughEveryColumnInBetween() {
        // 0 -> 1 -> 2 -> 3 and a long edge 0 -> 3 that must pass two columns without crossing their nodes.
        let sizes = [GraphLayout.Size](repeating: GraphLayout.Size(width: 140, height: 44), count: 4)
        let layout = GraphLayout(sizes: sizes, edges: [(0, 1), (1, 2), (2, 3), (0, 3)])
        #expect(layout.layers == [0, 1, 2, 3])
        let long = layout.routes[3]
        #expect(long.first == GraphLayout.Point(x: layout.frames[0].maxX, y: layout.frames[0].y + 22))
        #expect(long.last == GraphLayout.Point(x: layout.frames[3].x, y: layout.frames[3].y + 22))
        #expect(long.count == 6)
        for (a, b) in zip(long, long.dropFirst()) { #expect(a.x <= b.x) }
        // The horizontal run through column 1 and 2 stays clear of nodes 1 and 2.
        for (node, segment) in [(1, (long[1], long[2])), (2, (long[3], long[4]))] {
            let frame = layout.frames[node]
            #expect(segment.0.y == segment.1.y)
            #expect(segment.0.y < frame.y || segment.0.y > frame.maxY)
        }
    }

    /// Issue 41: a view's opened causes that are also its effects were laid out among the effects
    /// (the cycle turned at the cause's edge); the caller can say which edge turns round.
    @Test func anEdgeLaidBackwardKeepsACauseThatIsAlsoAnEffectOnTheLeft() {
        let sizes = [GraphLayout.Size](repeating: GraphLayout.Size(width: 120, height: 44), count: 3)
        // 0 is the focus; 1 causes it and is its effect too; 2 is only its effect.
        let edges: [(from: Int, to: Int)] = [(0, 1), (1, 0), (0, 2)]
        let plain = GraphLayout(sizes: sizes, edges: edges)
        #expect(plain.layers[1] > plain.layers[0], "without a word the search turns the cause's edge")
        let chosen = GraphLayout(sizes: sizes, edges: edges, laidBackward: [0])
        #expect(chosen.layers[1] < chosen.layers[0] && chosen.layers[2] > chosen.layers[0], "\(chosen.layers)")
        // Every route still runs from its source to its target.
        for (i, edge) in edges.enumerated() {
            let route = chosen.routes[i]
            #expect(chosen.frames[edge.from].intersects(GraphLayout.Rect(x: route[0].x - 1, y: route[0].y - 1, width: 2, height: 2)))
            #expect(chosen.frames[edge.to].intersects(GraphLayout.Rect(x: route.last!.x - 1, y: route.last!.y - 1, width: 2, height: 2)))
        }
        // A backward choice that closes a cycle of its own is still turned by the search: no hang, every node placed.
        let loop = GraphLayout(sizes: sizes, edges: [(0, 1), (1, 2), (2, 0)], laidBackward: [0, 1, 2])
        #expect(loop.frames.count == 3)
    }

    @Test func layersAreLongestPathsFromTheCauses() {
        let sizes = [GraphLayout.Size](repeating: GraphLayout.Size(width: 120, height: 44), count: 5)
        // 4 is caused directly by 0 and through 0 -> 1 -> 2 -> 4; 3 is a second, independent cause of 4.
        let layout = GraphLayout(sizes: sizes, edges: [(0, 4), (0, 1), (1, 2), (2, 4), (3, 4)])
        #expect(layout.layers == [0, 1, 2, 0, 3])
    }

    @Test func barycenterSweepsRemoveAvoidableCrossings() {
        // Two fan-outs given in an order that crosses every edge: a tree can always be drawn without crossings.
        let sizes = [GraphLayout.Size](repeating: GraphLayout.Size(width: 120, height: 44), count: 10)
        let edges: [(from: Int, to: Int)] = [(0, 9), (0, 7), (1, 8), (1, 6), (0, 5), (1, 4), (2, 0), (2, 1), (3, 1), (3, 0)]
        let layout = GraphLayout(sizes: sizes, edges: edges)
        #expect(layout.crossings == 1)  // K(2,2) between {2,3} and {0,1} needs one crossing, the leaves none.
        let tree = GraphLayout(sizes: sizes, edges: [(0, 9), (0, 7), (1, 8), (1, 6), (0, 5), (1, 4), (2, 1), (2, 0), (3, 2)])
        #expect(tree.crossings == 0)
        // Leaves of the same parent end up next to each other.
        let leaves0 = [9, 7, 5].map { tree.frames[$0].y }.sorted()
        let leaves1 = [8, 6, 4].map { tree.frames[$0].y }.sorted()
        #expect(leaves0.last! < leaves1.first! || leaves1.last! < leaves0.first!)
    }

    @Test func sweepsCrossFewerEdgesThanTheStartingOrder() {
        var unswept = GraphLayout.Options()
        unswept.sweeps = 0
        var total = (before: 0, after: 0)
        for seed in UInt64(1)...6 {
            let (sizes, edges) = Self.randomDAG(nodes: 80, edgesPerNode: 3, seed: seed)
            let before = GraphLayout(sizes: sizes, edges: edges, options: unswept).crossings
            let after = GraphLayout(sizes: sizes, edges: edges).crossings
            #expect(after <= before)
            total = (total.before + before, total.after + after)
        }
        #expect(Double(total.after) < 0.8 * Double(total.before), "\(total)")
    }

    /// Every process seeds Swift's hashing anew, so laying out twice in one process cannot show
    /// an order that depends on a Set or Dictionary; a fingerprint fixed in the source can: a
    /// shared link must draw the same picture on every server run.
    @Test func sameGraphGivesTheSamePictureInEveryProcess() {
        let (sizes, edges) = Self.randomDAG(nodes: 150, edgesPerNode: 3, seed: 42)
        let layout = GraphLayout(sizes: sizes, edges: edges)
        var fingerprint: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a over the rounded frames
        for frame in layout.frames {
            for value in [frame.x, frame.y, frame.width, frame.height] {
                fingerprint = (fingerprint ^ UInt64(bitPattern: Int64((value * 100).rounded()))) &* 0x100_0000_01b3
            }
        }
        #expect(fingerprint == Self.expectedFingerprint, "got \(fingerprint)")
        #expect(GraphLayout(sizes: sizes, edges: edges) == layout)
    }

    static let expectedFingerprint: UInt64 = 107_939_091_513_724_266

    @Test func cyclesDoNotBreakTheLayout() {
        let sizes = [GraphLayout.Size](repeating: GraphLayout.Size(width: 120, height: 44), count: 3)
        let layout = GraphLayout(sizes: sizes, edges: [(0, 1), (1, 2), (2, 0), (1, 1)])
        #expect(layout.frames.count == 3)
        #expect(Set(layout.layers) == [0, 1, 2])
        #expect(layout.routes.count == 4)
    }

    @Test func nodesAreCenteredOnTheirNeighbours() {
        // One cause with three effects: the cause sits at the middle effect's height.
        let sizes = [GraphLayout.Size](repeating: GraphLayout.Size(width: 120, height: 44), count: 4)
        let layout = GraphLayout(sizes: sizes, edges: [(0, 1), (0, 2), (0, 3)])
        #expect(abs(layout.frames[0].y - layout.frames[2].y) < 0.001)
    }
}
