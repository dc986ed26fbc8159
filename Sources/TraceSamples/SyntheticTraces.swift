import TraceModel

/// Synthetic traces of any size for benchmarks: frames at 120 Hz, each an update group with a
/// handful of updates of a few hundred views, about three cause edges per update, 1 ms CPU
/// samples of the busy time, hitches where a frame overruns. Same (updates, seed), same trace.
public enum SyntheticTraces {
    public static func trace(updates updateCount: Int, seed: UInt64) -> Trace {
        var sketch = TraceSketch(name: "synthetic-\(updateCount)-\(seed)", app: "Synthetic", pid: 4100, seed: seed, end: 0)
        var random = sketch.random
        let views = makeViews(&sketch.builder)
        let causes = makeCauses(&sketch.builder)
        let stacks = makeStacks(&sketch)
        let main = sketch.mainThread
        let writerName = sketch.builder.intern("EnvironmentWriter: ForegroundStyle")
        let frameLabel = sketch.builder.intern("Frame Update")
        let hitchDetail = "Potentially expensive app update(s)"
        var eventID: Int64 = 1
        var made = 0
        var frame: Int64 = 0
        while made < updateCount {
            let frameStart = 200_000_000 + frame * TraceSketch.frameInterval
            frame += 1
            var time = frameStart + random.int(200_000...500_000)
            let groupStart = time
            let group = Int32(sketch.builder.groupCount)
            let cause = random.pick(causes)
            let causeNode = sketch.builder.addNode(
                kind: cause.kind, name: cause.name, owner: cause.owner, isAppCode: cause.isAppCode, eventID: eventID, timestamp: time
            )
            let writer = sketch.builder.addNode(kind: .environmentWriter, name: writerName, isAppCode: false, eventID: eventID + 1, timestamp: time)
            eventID += 2
            if cause.kind == .state || cause.kind == .observable {
                sketch.builder.addStateChange(timestamp: time, node: causeNode, description: cause.change, backtrace: random.pick(stacks), thread: main)
            }
            var parent = causeNode
            let count = min(random.int(4..<13), updateCount - made)
            for _ in 0..<count {
                let view = random.pick(views)
                let duration = randomDuration(&random)
                let update = sketch.builder.addUpdate(
                    start: time, duration: duration, kind: view.kind, sourceSeverity: severity(duration), module: view.module,
                    viewName: view.name, description: view.description, category: view.category,
                    allocations: UInt32(random.int(0..<64)), thread: main, group: group
                )
                let node = sketch.builder.addNode(
                    kind: view.nodeKind, name: view.name, isAppCode: view.isAppCode, eventID: eventID, timestamp: time, update: update
                )
                eventID += 1
                sketch.builder.addEdge(source: causeNode, target: node, label: .update, changedProperty: cause.property, timestamp: time, group: group)
                sketch.builder.addEdge(source: writer, target: node, label: .update, timestamp: time, group: group)
                if parent != causeNode {
                    sketch.builder.addEdge(source: parent, target: node, label: random.chance(20) ? .creation : .update, timestamp: time, group: group)
                }
                parent = node
                var tick = (time / 1_000_000 + 1) * 1_000_000
                while tick < time + duration {
                    sketch.builder.addSample(time: tick, thread: main, weight: 1_000_000, stack: UInt32(random.pick(stacks)))
                    tick += 1_000_000
                }
                time += duration + random.int(5_000...30_000)
            }
            made += count
            sketch.builder.addUpdateGroup(start: groupStart, duration: time - groupStart, label: frameLabel, thread: main)
            let deadline = frameStart + TraceSketch.frameInterval - 1_500_000
            if time > deadline {
                let missed = (time - deadline + TraceSketch.frameInterval - 1) / TraceSketch.frameInterval
                sketch.builder.addHitch(TimelineInterval(
                    start: frameStart + TraceSketch.frameInterval, duration: missed * TraceSketch.frameInterval,
                    kind: "Hitch", detail: hitchDetail, thread: main
                ))
            }
        }
        sketch.random = random
        return sketch.build()
    }

    /// Mostly short updates; about 3.5% orange and 1.5% red, as a trace with a few problems has.
    private static func randomDuration(_ random: inout SeededRandom) -> Nanoseconds {
        let roll = random.int(0..<1000)
        if roll < 800 { return random.int(15_000...200_000) }
        if roll < 950 { return random.int(200_000...500_000) }
        if roll < 985 { return random.int(500_001...1_000_000) }
        return random.int(1_000_001...4_000_000)
    }

    private static func severity(_ duration: Nanoseconds) -> SourceSeverity {
        switch LongUpdateSeverity(duration: duration) {
        case .normal: duration > 250_000 ? .low : .veryLow
        case .orange: .moderate
        case .red: .high
        }
    }

    private struct View {
        var name, module, description, category: StringRef
        var kind: UpdateKind
        var nodeKind: NodeKind
        var isAppCode: Bool
    }

    private static func makeViews(_ builder: inout TraceBuilder) -> [View] {
        var views: [View] = []
        let app = builder.intern("Synthetic")
        let swiftUI = builder.intern("SwiftUI")
        let bodyCategory = builder.intern("View Body")
        let appViews = ["FeedView", "FeedItemView", "AvatarView", "ProfileHeader", "CommentRow", "LikeButton", "MediaGrid", "SettingsRow"]
        for base in appViews {
            for variant in 0..<25 {
                let name = "\(base)\(variant)"
                views.append(View(
                    name: builder.intern(name), module: app, description: builder.intern("\(name).body"), category: bodyCategory,
                    kind: .viewBody, nodeKind: .viewBody, isAppCode: true
                ))
            }
        }
        let system: [(String, UpdateKind, String)] = [
            ("MapView", .representable, "Platform View"), ("WebView", .representable, "Platform View"),
            ("LazyVStack", .layout, "Layout"), ("HStack", .layout, "Layout"), ("VStack", .layout, "Layout"),
            ("Text", .other, "Other"), ("ScrollView", .other, "Other"), ("Image", .other, "Other"),
        ]
        for (name, kind, category) in system {
            let view = View(
                name: builder.intern(name), module: kind == .representable ? app : swiftUI, description: builder.intern("\(name) update"),
                category: builder.intern(category), kind: kind, nodeKind: .other, isAppCode: kind == .representable
            )
            // Several copies so system updates make up about a fifth of all updates.
            views.append(contentsOf: repeatElement(view, count: 6))
        }
        return views
    }

    private struct Cause {
        var kind: NodeKind
        var name, owner, property, change: StringRef
        var isAppCode: Bool
    }

    private static func makeCauses(_ builder: inout TraceBuilder) -> [Cause] {
        let specs: [(NodeKind, String, String, String, Bool)] = [
            (.state, "@State isExpanded", "FeedItemView", "isExpanded", true),
            (.state, "@State selection", "FeedView", "selection", true),
            (.observable, "@Observable FeedModel.items", "FeedModel", "items", true),
            (.observable, "@Observable Session.user", "Session", "user", true),
            (.gesture, "Button Gesture", "", "", false),
            (.externalEnvironment, "External Environment", "", "colorScheme", false),
            (.viewCreation, "View Creation / Reuse", "", "", false),
        ]
        return specs.map { kind, name, owner, property, isApp in
            Cause(
                kind: kind, name: builder.intern(name), owner: builder.intern(owner), property: builder.intern(property),
                change: builder.intern("\(owner).\(property) changed"), isAppCode: isApp
            )
        }
    }

    private static func makeStacks(_ sketch: inout TraceSketch) -> [Int32] {
        var stacks: [Int32] = [sketch.commitStack]
        let accessor = sketch.stack(parent: sketch.graphUpdateStack, [("ViewBodyAccessor.updateBody(of:changed:)", "SwiftUICore")])
        for base in ["FeedView", "FeedItemView", "AvatarView", "ProfileHeader", "CommentRow", "LikeButton", "MediaGrid", "SettingsRow"] {
            let body = sketch.stack(parent: accessor, [("\(base).body.getter", "Synthetic")])
            stacks.append(body)
            stacks.append(sketch.stack(parent: body, [("Text.init<A>(_:)", "SwiftUICore")]))
            stacks.append(sketch.stack(parent: body, [("\(base).formattedDate.getter", "Synthetic"), ("DateFormatter.string(from:)", "Foundation")]))
        }
        return stacks
    }
}
