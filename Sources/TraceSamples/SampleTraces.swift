import TraceFormats
import TraceModel

/// The sample traces shipped in `SampleTraces/`: small recordings of Apple's Landmarks sample
/// app showing well-known SwiftUI performance problems, each next to its fix. They are
/// generated (deterministically), never hand-edited: `tracesvc generate --all-samples` writes them.
public enum SampleTraces {
    public static let names = [
        "landmarks-scroll-slow", "landmarks-scroll-fixed", "landmarks-favorites-slow", "landmarks-favorites-fixed",
        "environment-color-scheme", "landmarks-concurrency-slow", "landmarks-concurrency-fixed",
    ]

    /// One line per sample for listings.
    public static let summaries: [String: String] = [
        "landmarks-scroll-slow": "Scrolling the list: every LandmarkListItemView body creates formatters (1-3 ms each) and frames hitch",
        "landmarks-scroll-fixed": "The same scroll with cached distance strings: item bodies take ~0.2 ms",
        "landmarks-favorites-slow": "Two favorite taps: one @Observable collection makes all 12 visible rows re-run their body",
        "landmarks-favorites-fixed": "The same taps with per-landmark view models: one row body per tap",
        "environment-color-scheme": "Dark mode switch: View1 reads colorScheme and re-runs, View2 is notified but does not run; one External Environment change drawn twice",
        "landmarks-concurrency-slow": "Opening a landmark: images load on the main actor for 120 ms, MapView's task waits 120 ms for it and frames hitch",
        "landmarks-concurrency-fixed": "The same with image loading moved off the main actor: the map's task waits under a millisecond",
    ]

    public static func trace(named name: String) -> Trace {
        switch name {
        case "landmarks-scroll-slow": scroll(name: name, cachedDistance: false)
        case "landmarks-scroll-fixed": scroll(name: name, cachedDistance: true)
        case "landmarks-favorites-slow": favorites(name: name, perLandmarkModels: false)
        case "landmarks-favorites-fixed": favorites(name: name, perLandmarkModels: true)
        case "environment-color-scheme": environment(name: name)
        case "landmarks-concurrency-slow": concurrency(name: name, loadOnMainActor: true)
        case "landmarks-concurrency-fixed": concurrency(name: name, loadOnMainActor: false)
        default: preconditionFailure("unknown sample \(name); samples: \(names.joined(separator: ", "))")
        }
    }

    /// The rows on screen, top to bottom.
    static let visibleLandmarks = [
        "Turtle Rock", "Silver Salmon Creek", "Chilkoot Trail", "St. Mary Lake", "Twin Lake", "Lake McDonald",
        "Charley Rivers", "Icy Bay", "Rainbow Lake", "Hidden Lake", "Chincoteague", "Lake Umbagog",
    ]
}

// MARK: - Landmarks app

/// Stacks of the Landmarks app's work, for CPU samples.
private struct LandmarksStacks {
    var itemBodyFormatting: [Int32]
    var itemBodyCached: [Int32]
    var itemBodyFirstImage: [Int32]
    var listBody: [Int32]
    var appBody: [Int32]
    var layout: [Int32]

    init(_ sketch: inout TraceSketch) {
        let app = sketch.builder.metadata.app
        let accessor = sketch.stack(parent: sketch.graphUpdateStack, [("ViewBodyAccessor.updateBody(of:changed:)", "SwiftUICore")])
        let itemBody = sketch.stack(parent: accessor, [("LandmarkListItemView.body.getter", app)])
        let distance = sketch.stack(parent: itemBody, [("LandmarkListItemView.distance.getter", app)])
        let numberFormatter = sketch.stack(parent: distance, [("NumberFormatter.init()", "Foundation"), ("unum_open", "libicucore.A.dylib")])
        let measurement = sketch.stack(parent: distance, [
            ("MeasurementFormatter.string(from:)", "Foundation"), ("-[NSMeasurementFormatter stringFromMeasurement:]", "Foundation"),
        ])
        let text = sketch.stack(parent: itemBody, [("Text.init<A>(_:)", "SwiftUICore")])
        let image = sketch.stack(parent: itemBody, [("Image.init(_:bundle:)", "SwiftUICore")])
        let cached = sketch.stack(parent: itemBody, [("LandmarkListItemView.distanceText.getter", app)])
        let decode = sketch.stack(parent: image, [("-[UIImage initWithContentsOfFile:]", "UIKitCore"), ("CGImageSourceCreateImageAtIndex", "ImageIO")])
        itemBodyFormatting = [numberFormatter, numberFormatter, numberFormatter, numberFormatter, measurement, measurement, measurement, distance, text, image]
        itemBodyCached = [itemBody, text, text, image, cached]
        itemBodyFirstImage = [decode, decode, decode, text]
        listBody = [sketch.stack(parent: accessor, [("LandmarkList.body.getter", app), ("ForEach.init(_:content:)", "SwiftUICore")])]
        appBody = [sketch.stack(parent: accessor, [("LandmarksApp.body.getter", app)])]
        layout = [sketch.stack(parent: sketch.graphUpdateStack, [("_VStackLayout.placeSubviews(in:proposal:subviews:cache:)", "SwiftUICore")])]
    }
}

extension SampleTraces {
    /// App launch: the first frame builds the list and its twelve visible rows.
    /// - Parameter formattingInBody: rows create formatters in `body` (the slow scroll sample).
    /// - Returns: the end of the launch work.
    private static func launch(_ sketch: inout TraceSketch, stacks: LandmarksStacks, formattingInBody: Bool) -> Nanoseconds {
        var time: Nanoseconds = 180_000_000
        let group = sketch.nextGroup
        let app = sketch.update(.viewBody, view: "LandmarksApp", start: time, duration: 210_000, group: group)
        sketch.sample(start: time, duration: 210_000, stacks: stacks.appBody)
        time += 230_000
        let content = sketch.update(.viewBody, view: "ContentView", start: time, duration: 160_000, group: group)
        sketch.edge(app.node!, content.node!, .creation, at: time, group: group)
        time += 180_000
        let model = sketch.node(.observable, "@Observable ModelData", owner: "ModelData", isAppCode: true, at: time)
        let list = sketch.update(.viewBody, view: "LandmarkList", start: time, duration: 870_000, group: group)
        sketch.edge(content.node!, list.node!, .creation, at: time, group: group)
        sketch.edge(model, list.node!, .update, property: "landmarks", at: time, group: group)
        sketch.sample(start: time, duration: 870_000, stacks: stacks.listBody)
        time += 900_000
        sketch.update(.layout, view: "NavigationSplitView", module: "SwiftUI", start: time, duration: 310_000, group: group, nodeKind: nil)
        sketch.sample(start: time, duration: 310_000, stacks: stacks.layout)
        time += 330_000
        let creation = sketch.node(.viewCreation, "View Creation / Reuse", isAppCode: false, at: time)
        sketch.edge(list.node!, creation, .creation, at: time, group: group)
        for index in visibleLandmarks.indices {
            // The first two rows pay for first-time image decoding in either version.
            let duration: Nanoseconds
            let rowStacks: [Int32]
            if formattingInBody {
                duration = sketch.random.int(1_200_000...2_900_000)
                rowStacks = stacks.itemBodyFormatting
            } else if index < 2 {
                duration = index == 0 ? 2_430_000 : 1_680_000
                rowStacks = stacks.itemBodyFirstImage
            } else {
                duration = sketch.random.int(110_000...260_000)
                rowStacks = stacks.itemBodyCached
            }
            let row = sketch.update(.viewBody, view: "LandmarkListItemView", start: time, duration: duration, group: group, allocations: 42)
            sketch.edge(creation, row.node!, .creation, at: time, group: group)
            sketch.sample(start: time, duration: duration, stacks: rowStacks)
            if index < 2 {
                // The app's own signposts around its image decoding (category "Images", not Points of Interest).
                sketch.signpost("Decode Image", start: time + 40_000, end: time + duration - 40_000, id: UInt64(100 + index),
                                category: "Images", message: visibleLandmarks[index])
            }
            time += duration + 25_000
        }
        sketch.update(.other, view: "List", module: "SwiftUI", start: time, duration: 420_000, group: group, nodeKind: nil)
        time += 440_000
        sketch.addGroup(group, start: 180_000_000, end: time, label: "App Launch")
        sketch.sample(start: time, duration: 1_600_000, stacks: [sketch.commitStack])
        // Points of Interest: the app marks loading its landmarks, from reading the JSON to the first frame.
        sketch.signpost("Load Landmarks", start: 150_000_000, end: time + 1_600_000, id: 1,
                        message: "\(visibleLandmarks.count) of 15 landmarks visible", endMessage: "first frame committed")
        return time + 1_600_000
    }

    /// Three seconds of flinging the list: rows scroll in a few at a time (the list prepares
    /// them in batches), each needing a body update.
    static func scroll(name: String, cachedDistance: Bool) -> Trace {
        var sketch = TraceSketch(name: name, app: "Landmarks", pid: 2741, seed: cachedDistance ? 21 : 20, end: 4_600_000_000)
        let stacks = LandmarksStacks(&sketch)
        _ = launch(&sketch, stacks: stacks, formattingInBody: !cachedDistance)
        let frames = 360
        let scrollStart: Nanoseconds = 1_000_000_000
        sketch.signpost("Scroll Began", start: scrollStart, id: 2, message: "flick down the list")
        for frame in 0..<frames {
            let frameStart = scrollStart + Nanoseconds(frame) * TraceSketch.frameInterval
            var time = frameStart + sketch.random.int(300_000...600_000)
            let group = sketch.nextGroup
            let groupStart = time
            let scrollDuration = sketch.random.int(40_000...90_000)
            sketch.update(.other, view: "ScrollView", module: "SwiftUI", start: time, duration: scrollDuration, group: group, nodeKind: nil)
            time += scrollDuration + 10_000
            // Fast at first, slowing down: more rows per batch early in the fling.
            let batchEvery = frame < 200 ? 5 : 9
            if frame % batchEvery == 0 && frame < 330 {
                let rows = frame < 120 ? sketch.random.int(2..<6) : sketch.random.int(1..<3)
                let creation = sketch.node(.viewCreation, "View Creation / Reuse", isAppCode: false, at: time)
                for _ in 0..<rows {
                    let duration = cachedDistance ? sketch.random.int(120_000...280_000) : sketch.random.int(800_000...3_000_000)
                    let row = sketch.update(.viewBody, view: "LandmarkListItemView", start: time, duration: duration, group: group, allocations: 42)
                    sketch.edge(creation, row.node!, .creation, at: time, group: group)
                    sketch.sample(start: time, duration: duration, stacks: cachedDistance ? stacks.itemBodyCached : stacks.itemBodyFormatting)
                    time += duration + 20_000
                }
                let layoutDuration = sketch.random.int(60_000...150_000)
                sketch.update(.layout, view: "HStack", module: "SwiftUI", start: time, duration: layoutDuration, group: group, nodeKind: nil)
                time += layoutDuration
            }
            sketch.addGroup(group, start: groupStart, end: time, label: "Frame Update")
            let commit = sketch.random.int(250_000...700_000)
            sketch.sample(start: time, duration: commit, stacks: [sketch.commitStack])
            time += commit
            // The frame had to be ready one refresh interval after it started (less the render
            // server's share); later means the previous frame stays on screen: a hitch.
            let deadline = frameStart + TraceSketch.frameInterval - 1_500_000
            if time > deadline {
                let late = time - deadline
                let missed = (late + TraceSketch.frameInterval - 1) / TraceSketch.frameInterval
                sketch.hitch(start: frameStart + TraceSketch.frameInterval, duration: missed * TraceSketch.frameInterval)
            }
        }
        return sketch.build()
    }

    /// Two taps on favorite buttons (Muir Woods, then Mount Fuji) while the list shows twelve rows.
    static func favorites(name: String, perLandmarkModels: Bool) -> Trace {
        var sketch = TraceSketch(name: name, app: "Landmarks", pid: 2741, seed: perLandmarkModels ? 31 : 30, end: 4_200_000_000)
        let stacks = LandmarksStacks(&sketch)
        _ = launch(&sketch, stacks: stacks, formattingInBody: false)
        let app = "Landmarks"
        let gestureStack = sketch.stack(parent: noRow, [
            ("start", "dyld"), ("main", app), ("UIApplicationMain", "UIKitCore"), ("GSEventRunModal", "GraphicsServices"),
            ("CFRunLoopRunSpecific", "CoreFoundation"), ("__CFRunLoopDoSources0", "CoreFoundation"),
            ("-[UIApplication sendEvent:]", "UIKitCore"), ("-[UIGestureEnvironment _updateForEvent:window:]", "UIKitCore"),
            ("-[UIGestureRecognizer _updateGestureForActiveEvents]", "UIKitCore"),
            ("closure #1 in PrimitiveButtonStyleConfiguration.Trigger.callAsFunction()", "SwiftUI"),
            ("closure #1 in FavoriteButton.body.getter", app),
            ("LandmarkDetailView.toggleFavorite()", app),
        ])
        let setterStack = perLandmarkModels
            ? sketch.stack(parent: gestureStack, [("LandmarkViewModel.isFavorite.setter", app), ("ObservationRegistrar.withMutation<A, B, C>(of:keyPath:_:)", "libswiftObservation.dylib")])
            : sketch.stack(parent: gestureStack, [("LandmarkCollection.landmarks.setter", app), ("ObservationRegistrar.withMutation<A, B, C>(of:keyPath:_:)", "libswiftObservation.dylib")])

        for (tapTime, landmark, row) in [(Nanoseconds(1_400_000_000), "Muir Woods", 4), (2_950_000_000, "Mount Fuji", 9)] {
            var time = tapTime
            let gesture = sketch.node(.gesture, "Button Gesture", isAppCode: false, at: time)
            sketch.sample(start: time - 400_000, duration: 900_000, stacks: [setterStack, gestureStack])
            time += 60_000
            let group = sketch.nextGroup
            let groupStart = time
            let observable: UInt32
            let property: String
            if perLandmarkModels {
                observable = sketch.node(.observable, "@Observable LandmarkViewModel", owner: "LandmarkViewModel", isAppCode: true, at: time)
                property = "isFavorite"
                sketch.builder.addStateChange(
                    timestamp: time, node: observable, description: sketch.builder.intern("isFavorite: false → true (\(landmark))"),
                    backtrace: setterStack, thread: sketch.mainThread
                )
            } else {
                observable = sketch.node(.observable, "@Observable ModelData.favoritesCollection", owner: "ModelData", isAppCode: true, at: time)
                property = "landmarks"
                sketch.builder.addStateChange(
                    timestamp: time, node: observable,
                    description: sketch.builder.intern("landmarks: appended \(landmark)"),
                    backtrace: setterStack, thread: sketch.mainThread
                )
            }
            sketch.edge(gesture, observable, .update, at: time, group: group)
            time += 240_000
            // A shared collection invalidates every row that read it; a per-row model only its row.
            let rows = perLandmarkModels ? [row] : Array(visibleLandmarks.indices)
            for _ in rows {
                let duration = sketch.random.int(140_000...420_000)
                let update = sketch.update(.viewBody, view: "LandmarkListItemView", start: time, duration: duration, group: group, allocations: 18)
                sketch.edge(observable, update.node!, .update, property: property, at: time, group: group)
                sketch.sample(start: time, duration: duration, stacks: stacks.itemBodyCached)
                time += duration + 20_000
            }
            let layoutDuration = sketch.random.int(60_000...120_000)
            sketch.update(.layout, view: "HStack", module: "SwiftUI", start: time, duration: layoutDuration, group: group, nodeKind: nil)
            time += layoutDuration
            sketch.addGroup(group, start: groupStart, end: time, label: "Tap Gesture")
            sketch.sample(start: time, duration: 600_000, stacks: [sketch.commitStack])
            sketch.signpost("Favorite Tap", start: tapTime - 400_000, end: time + 600_000, id: UInt64(10 + row),
                            message: landmark, endMessage: perLandmarkModels ? "1 row updated" : "\(rows.count) rows updated")
        }
        return sketch.build()
    }

    /// The system switches to dark mode (and back): the External Environment changes.
    static func environment(name: String) -> Trace {
        var sketch = TraceSketch(name: name, app: "EnvironmentDemo", pid: 3120, seed: 40, end: 3_800_000_000)
        let accessor = sketch.stack(parent: sketch.graphUpdateStack, [("ViewBodyAccessor.updateBody(of:changed:)", "SwiftUICore")])
        let view1Stack = sketch.stack(parent: accessor, [("View1.body.getter", "EnvironmentDemo")])
        let resolveStack = sketch.stack(parent: sketch.graphUpdateStack, [("Color.resolve(in:)", "SwiftUICore")])

        var time: Nanoseconds = 150_000_000
        let launch = sketch.nextGroup
        let app = sketch.update(.viewBody, view: "EnvironmentDemoApp", start: time, duration: 190_000, group: launch)
        time += 210_000
        let content = sketch.update(.viewBody, view: "ContentView", start: time, duration: 140_000, group: launch)
        sketch.edge(app.node!, content.node!, .creation, at: time, group: launch)
        time += 160_000
        for view in ["View1", "View2"] {
            let body = sketch.update(.viewBody, view: view, start: time, duration: 120_000, group: launch)
            sketch.edge(content.node!, body.node!, .creation, at: time, group: launch)
            time += 140_000
        }
        sketch.addGroup(launch, start: 150_000_000, end: time, label: "App Launch")

        for (changeTime, scheme) in [(Nanoseconds(1_200_000_000), "dark"), (2_800_000_000, "light")] {
            time = changeTime
            let group = sketch.nextGroup
            let external = sketch.node(.externalEnvironment, "External Environment", isAppCode: false, at: time)
            let externalEvent = sketch.lastEventID
            let colorSchemeWriter = sketch.node(.environmentWriter, "EnvironmentWriter: ColorScheme", isAppCode: false, at: time)
            let styleWriter = sketch.node(.environmentWriter, "EnvironmentWriter: ForegroundStyle", isAppCode: false, at: time)
            sketch.edge(external, colorSchemeWriter, .update, property: "colorScheme", at: time, group: group)
            sketch.edge(colorSchemeWriter, styleWriter, .update, property: "colorScheme", at: time, group: group)
            time += 80_000
            // View1 reads \.colorScheme: it runs. View2 reads \.dynamicTypeSize: notified, skipped.
            let view1 = sketch.update(.viewBody, view: "View1", start: time, duration: 160_000, group: group)
            sketch.edge(styleWriter, view1.node!, .update, property: "colorScheme", at: time, group: group)
            // View1 also reads colorScheme itself: the same External Environment event reaches it
            // directly, a second node of one update (hovering either lights up both).
            let externalAgain = sketch.node(.externalEnvironment, "External Environment", isAppCode: false, at: time, sameEventAs: externalEvent)
            sketch.edge(externalAgain, view1.node!, .update, property: "colorScheme", at: time, group: group)
            sketch.sample(start: time, duration: 160_000, stacks: [view1Stack])
            time += 180_000
            let view2 = sketch.node(.viewBody, "View2", isAppCode: true, at: time)
            sketch.edge(styleWriter, view2, .update, property: "colorScheme", at: time, group: group)
            sketch.update(.other, view: "Color (\(scheme))", module: "SwiftUI", start: time, duration: 70_000, group: group, nodeKind: nil)
            sketch.sample(start: time, duration: 70_000, stacks: [resolveStack])
            time += 90_000
            sketch.update(.layout, view: "VStack", module: "SwiftUI", start: time, duration: 55_000, group: group, nodeKind: nil)
            time += 55_000
            sketch.addGroup(group, start: changeTime, end: time, label: "Environment Change")
            sketch.sample(start: time, duration: 900_000, stacks: [sketch.commitStack])
        }
        return sketch.build()
    }
}

extension SampleTraces {
    /// Samples are small enough to commit as plain JSON (readable in a diff).
    public static func fileName(of name: String) -> String { "\(name).json" }

    /// The exact bytes of the committed sample file.
    public static func fileContents(of name: String) -> [UInt8] {
        NativeTraceWriter.encode(trace(named: name))
    }
}
