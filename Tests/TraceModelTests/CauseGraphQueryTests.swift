import Testing
@testable import TraceModel

/// Graphs shaped like the sample stories, built with `TraceBuilder`.
struct LandmarksGraphFixture {
    var trace: Trace
    /// Update rows (after sorting) of the list items, per tap.
    var itemUpdates: [[Int]]
    var observableNodes: [UInt32]

    /// `taps` gestures, each changing ModelData.favoritesCollection, which updates `items` list item bodies.
    init(taps: Int, items: Int) throws {
        var b = TraceBuilder(metadata: TraceMetadata(name: "landmarks", sourceFormat: "test"))
        let module = b.intern("Landmarks")
        let itemView = b.intern("LandmarkListItemView")
        let gestureName = b.intern("TapGesture")
        let property = b.intern("favoritesCollection")
        let observableName = b.intern("@Observable ModelData.favoritesCollection")
        let modelData = b.intern("ModelData")
        let toggle = b.addFrame(name: b.intern("ModelData.toggleFavorite(_:)"), binary: module, isAppCode: true)
        let button = b.addFrame(name: b.intern("FavoriteButton.body.getter"), binary: module, isAppCode: true)
        let main = b.addFrame(name: b.intern("main"), binary: b.intern("Landmarks"), isAppCode: true)
        let stack = b.addStack(rootToLeaf: [main, button, toggle])
        var event: Int64 = 1
        var provisional: [[Int32]] = []
        var observables: [UInt32] = []
        for tap in 0..<taps {
            let t = Nanoseconds(tap) * 100_000_000
            let group = b.addUpdateGroup(start: t, duration: 5_000_000, label: b.intern("Transaction"))
            let gesture = b.addNode(kind: .gesture, name: gestureName, isAppCode: false, eventID: event, timestamp: t)
            event += 1
            let observable = b.addNode(kind: .observable, name: observableName, owner: modelData, isAppCode: true, eventID: event, timestamp: t + 10)
            event += 1
            observables.append(observable)
            b.addEdge(source: gesture, target: observable, label: .update, timestamp: t + 10, group: group)
            b.addStateChange(timestamp: t + 10, node: observable, description: property, backtrace: stack)
            var rows: [Int32] = []
            for item in 0..<items {
                let start = t + 1_000 + Nanoseconds(item) * 20_000
                let update = b.addUpdate(start: start, duration: 600_000, kind: .viewBody, module: module, viewName: itemView, group: group)
                rows.append(update)
                let node = b.addNode(kind: .viewBody, name: itemView, isAppCode: true, eventID: event, timestamp: start, update: update)
                event += 1
                b.addEdge(source: observable, target: node, label: .update, changedProperty: property, timestamp: start, group: group)
            }
            provisional.append(rows)
        }
        trace = try b.build()
        observableNodes = observables
        // Updates are added in start order, so provisional rows are final rows.
        itemUpdates = provisional.map { $0.map(Int.init) }
    }
}

@Suite struct CauseGraphQueryTests {
    @Test func updateGraphShowsTheCauseChainAndEverythingTheSharedCauseUpdated() throws {
        let fixture = try LandmarksGraphFixture(taps: 1, items: 8)
        let selected = fixture.itemUpdates[0][3]
        let graph = try #require(fixture.trace.causeGraph(ofUpdate: selected))
        #expect(graph.nodes.count == 10)  // gesture, observable, 8 items
        let gesture = try #require(graph.nodes.first { $0.kind == "gesture" })
        let observable = try #require(graph.nodes.first { $0.kind == "observable" })
        #expect(gesture.title == "TapGesture" && !gesture.isAppCode)
        #expect(observable.title == "@Observable ModelData.favoritesCollection" && observable.isAppCode)
        let items = graph.nodes.filter { $0.kind == "view-body" }
        #expect(items.count == 8)
        #expect(items.filter(\.focus).map(\.updates) == [[selected]])
        #expect(graph.edges.contains { $0.from == gesture.id && $0.to == observable.id && $0.label == "update" })
        #expect(graph.edges.filter { $0.from == observable.id }.count == 8)
        #expect(graph.edges.first { $0.from == observable.id }?.property == "favoritesCollection")
        // Read left to right: gesture, then the change, then the bodies.
        for item in items { #expect(observable.x + observable.width < item.x) }
        #expect(gesture.x + gesture.width < observable.x)
    }

    @Test func writeOfAnObservableValueCarriesItsBacktraceLeafFirst() throws {
        let fixture = try LandmarksGraphFixture(taps: 1, items: 2)
        let graph = try #require(fixture.trace.causeGraph(ofUpdate: fixture.itemUpdates[0][0]))
        let observable = try #require(graph.nodes.first { $0.kind == "observable" })
        #expect(observable.backtrace?.map(\.name) == ["ModelData.toggleFavorite(_:)", "FavoriteButton.body.getter", "main"])
        #expect(observable.backtrace?.first?.binary == "Landmarks")
        #expect(graph.nodes.first { $0.kind == "view-body" }?.backtrace == nil)
    }

    @Test func largeFanOutIsFoldedIntoOneExpandableGroup() throws {
        let fixture = try LandmarksGraphFixture(taps: 1, items: 40)
        let selected = fixture.itemUpdates[0][30]
        let graph = try #require(fixture.trace.causeGraph(ofUpdate: selected))
        let group = try #require(graph.nodes.first { $0.collapsed != nil })
        #expect(group.title == "+ 35 more LandmarkListItemView")
        #expect(group.collapsed?.more == 35)
        #expect(group.collapsed?.members.count == 35)
        #expect(group.count == 35 && group.updates.count == 35)
        // The selected update stays visible next to the group; 5 items in all plus the group.
        #expect(graph.nodes.filter { $0.kind == "view-body" && $0.collapsed == nil }.count == 5)
        #expect(graph.nodes.contains { $0.focus && $0.updates == [selected] })
        #expect(!(group.collapsed?.members.flatMap(\.updates).contains(selected) ?? true))
        #expect(graph.edges.first { $0.to == group.id }?.count == 35)

        let expanded = try #require(fixture.trace.causeGraph(ofUpdate: selected, expand: [group.collapsed!.key]))
        #expect(expanded.nodes.count == 42)
        #expect(!expanded.nodes.contains { $0.collapsed != nil })
        // Ids do not move when a group opens, so a selected node stays selected.
        let before = Dictionary(uniqueKeysWithValues: graph.nodes.map { ($0.id, $0.title) })
        for node in expanded.nodes { if let title = before[node.id] { #expect(title == node.title) } }
    }

    @Test func viewGraphMergesUpdatesWithCounts() throws {
        let fixture = try LandmarksGraphFixture(taps: 2, items: 6)
        let graph = fixture.trace.causeGraph(ofView: "LandmarkListItemView", module: "Landmarks")
        #expect(graph.nodes.count == 3)
        let item = try #require(graph.nodes.first { $0.kind == "view-body" })
        #expect(item.count == 12 && item.focus && !item.dimmed)
        #expect(item.updates == fixture.itemUpdates.flatMap { $0 }.sorted())
        let observable = try #require(graph.nodes.first { $0.kind == "observable" })
        #expect(observable.count == 2)
        let edge = try #require(graph.edges.first { $0.from == observable.id && $0.to == item.id })
        #expect(edge.count == 12 && edge.label == "update" && edge.property == "favoritesCollection")
        #expect(graph.edges.first { $0.to == observable.id }?.count == 2)
    }

    @Test func viewGraphOnlyMergesUpdatesInTheRange() throws {
        let fixture = try LandmarksGraphFixture(taps: 3, items: 4)
        let graph = fixture.trace.causeGraph(ofView: "LandmarkListItemView", module: "Landmarks", in: TimeRange(start: 90_000_000, end: 150_000_000))
        let item = try #require(graph.nodes.first { $0.kind == "view-body" })
        #expect(item.updates == fixture.itemUpdates[1])
        #expect(fixture.trace.causeGraph(ofView: "LandmarkListItemView", module: "Other").nodes.isEmpty)
    }

    @Test func notifiedBodyThatDidNotRunIsDimmed() throws {
        var b = TraceBuilder(metadata: TraceMetadata(name: "env", sourceFormat: "test"))
        let module = b.intern("App")
        let view1 = b.intern("View1"), view2 = b.intern("View2")
        let update = b.addUpdate(start: 100, duration: 50_000, kind: .viewBody, module: module, viewName: view1)
        let environment = b.addNode(kind: .externalEnvironment, name: b.intern("External Environment"), isAppCode: false, eventID: 1, timestamp: 90)
        let ran = b.addNode(kind: .viewBody, name: view1, isAppCode: true, eventID: 2, timestamp: 100, update: update)
        let notRun = b.addNode(kind: .viewBody, name: view2, isAppCode: true, eventID: 3, timestamp: 100)
        b.addEdge(source: environment, target: ran, label: .update, timestamp: 100)
        b.addEdge(source: environment, target: notRun, label: .update, timestamp: 100)
        let trace = try b.build()
        let graph = try #require(trace.causeGraph(ofUpdate: 0))
        #expect(graph.nodes.map(\.title) == ["External Environment", "View1", "View2"])
        #expect(graph.nodes.map(\.dimmed) == [false, false, true])
        #expect(graph.nodes[2].subtitle == "body not run")
        #expect(graph.nodes[0].subtitle == "System")  // the title already says what it is
        #expect(trace.causeGraph(ofUpdate: 1) == nil)
    }

    @Test func viewGraphIncludesTheViewsNotifiedButNotRunAppearances() throws {
        // A settings screen: Toggle's body is created once, later notified twice by a locale change without running.
        var b = TraceBuilder(metadata: TraceMetadata(name: "settings", sourceFormat: "test"))
        let module = b.intern("Settings"), toggle = b.intern("NotificationToggle"), screen = b.intern("SettingsScreen")
        let created = b.addUpdate(start: 100, duration: 1_000, kind: .viewBody, module: module, viewName: toggle)
        let screenUpdate = b.addUpdate(start: 50, duration: 1_000, kind: .viewBody, module: module, viewName: screen)
        let screenNode = b.addNode(kind: .viewBody, name: screen, isAppCode: true, eventID: 1, timestamp: 50, update: screenUpdate)
        let toggleNode = b.addNode(kind: .viewBody, name: toggle, isAppCode: true, eventID: 2, timestamp: 100, update: created)
        b.addEdge(source: screenNode, target: toggleNode, label: .creation, timestamp: 100)
        for (event, time) in [(Int64(3), Nanoseconds(5_000)), (5, 9_000)] {
            let locale = b.addNode(kind: .externalEnvironment, name: b.intern("External Environment"), isAppCode: false, eventID: event, timestamp: time)
            let notified = b.addNode(kind: .viewBody, name: toggle, isAppCode: true, eventID: event + 1, timestamp: time)
            b.addEdge(source: locale, target: notified, label: .update, changedProperty: b.intern("locale"), timestamp: time)
        }
        let trace = try b.build()
        let graph = trace.causeGraph(ofView: "NotificationToggle", module: "Settings")
        #expect(Set(graph.nodes.map(\.title)) == ["SettingsScreen", "NotificationToggle", "External Environment"])
        let node = try #require(graph.nodes.first { $0.title == "NotificationToggle" })
        #expect(node.count == 3 && node.subtitle == "body ran 1 of 3" && node.focus && !node.dimmed)
        #expect(graph.edges.contains { $0.label == "update" && $0.count == 2 && $0.property == "locale" })
        // A range holding only the second notification shows it (dimmed: it did not run there).
        let late = trace.causeGraph(ofView: "NotificationToggle", module: "Settings", in: TimeRange(start: 8_000, end: 10_000))
        #expect(late.nodes.map(\.title) == ["External Environment", "NotificationToggle"])
        #expect(late.nodes[1].dimmed && late.nodes[1].focus)
    }

    @Test func appearancesOfTheSameUpdateShareAHighlightKey() throws {
        // A body that appears twice: once as the effect of a State change, once as the cause of a child's creation.
        var b = TraceBuilder(metadata: TraceMetadata(name: "same", sourceFormat: "test"))
        let module = b.intern("App")
        let parent = b.intern("ParentView"), child = b.intern("ChildView")
        let parentUpdate = b.addUpdate(start: 100, duration: 1_000, kind: .viewBody, module: module, viewName: parent)
        let childUpdate = b.addUpdate(start: 200, duration: 1_000, kind: .viewBody, module: module, viewName: child)
        let state = b.addNode(kind: .state, name: b.intern("@State count"), owner: parent, isAppCode: true, eventID: 1, timestamp: 90)
        let parentA = b.addNode(kind: .viewBody, name: parent, isAppCode: true, eventID: 2, timestamp: 100, update: parentUpdate)
        let parentB = b.addNode(kind: .viewBody, name: parent, isAppCode: true, eventID: 2, timestamp: 100, update: parentUpdate)
        let creation = b.addNode(kind: .viewCreation, name: b.intern("View Creation / Reuse"), isAppCode: false, eventID: 3, timestamp: 150)
        let childNode = b.addNode(kind: .viewBody, name: child, isAppCode: true, eventID: 4, timestamp: 200, update: childUpdate)
        b.addEdge(source: state, target: parentA, label: .update, timestamp: 100)
        b.addEdge(source: parentB, target: creation, label: .creation, timestamp: 150)
        b.addEdge(source: creation, target: childNode, label: .creation, timestamp: 200)
        let trace = try b.build()
        let graph = try #require(trace.causeGraph(ofUpdate: 1))
        let parents = graph.nodes.filter { $0.title == "ParentView" }
        #expect(parents.count == 1)  // parentA is not a cause of the child: only parentB's chain is walked
        let both = try #require(trace.causeGraph(ofUpdate: 0))
        #expect(both.nodes.first { $0.kind == "state" }?.subtitle == "ParentView")
        // Opening the parent's update shows both appearances, highlighted together.
        let keys = both.nodes.filter { $0.title == "ParentView" }.map(\.sameUpdateKey)
        #expect(keys == ["u0", "u0"])
        #expect(both.nodes.filter { $0.title != "ParentView" }.allSatisfy { $0.sameUpdateKey == nil })
        #expect(both.edges.contains { $0.label == "creation" })
    }

    @Test func fiveHundredItemsStayReadable() throws {
        let fixture = try LandmarksGraphFixture(taps: 1, items: 520)
        let graph = try #require(fixture.trace.causeGraph(ofUpdate: fixture.itemUpdates[0][0]))
        #expect(graph.nodes.count == 2 + 5 + 1)
        #expect(graph.height < 600)
    }
}

@Suite struct CauseGraphThinningTests {
    @Test func veryDenseMergedGraphsKeepTheStrongestEdges() throws {
        // 450 different @State values each caused some LandmarkRow updates; value k caused k+1 of them.
        var b = TraceBuilder(metadata: TraceMetadata(name: "dense", sourceFormat: "test"))
        let module = b.intern("App"), row = b.intern("LandmarkRow")
        var event: Int64 = 0
        var time: Nanoseconds = 0
        for k in 0..<450 {
            let state = b.addNode(kind: .state, name: b.intern("@State value\(k)"), owner: row, isAppCode: true, eventID: event, timestamp: time)
            event += 1
            for _ in 0...(k % 3) {
                time += 1_000
                let update = b.addUpdate(start: time, duration: 100, kind: .viewBody, module: module, viewName: row)
                let body = b.addNode(kind: .viewBody, name: row, isAppCode: true, eventID: event, timestamp: time, update: update)
                event += 1
                b.addEdge(source: state, target: body, label: .update, timestamp: time)
            }
        }
        let trace = try b.build()
        // At first: the strongest causes, the other 427 folded into one node the user can open.
        let first = trace.causeGraph(ofView: "LandmarkRow", module: "App")
        let limit = CauseGraphMetrics.maxViewGraphNodes
        #expect(first.nodes.count == limit + 1)
        let fold = try #require(first.nodes.first { $0.collapsed != nil })
        #expect(fold.title == "+ \(450 - (limit - 1)) other causes" && fold.subtitle == "@State")
        #expect(first.edges.filter { $0.from != fold.id }.allSatisfy { $0.count == 3 })
        #expect(first.edges.first { $0.from == fold.id }?.count == (0..<450).reduce(0) { $0 + $1 % 3 + 1 } - 3 * (limit - 1))
        // Opened, every cause is there again, thinned to the strongest edges.
        let graph = trace.causeGraph(ofView: "LandmarkRow", module: "App", expand: [try #require(fold.collapsed?.key)])
        #expect(graph.edges.count == CauseGraphMetrics.maxEdges)
        #expect(graph.omittedEdges == 450 - CauseGraphMetrics.maxEdges)
        // The strongest causes (count 3) all stay; every drawn node is connected.
        #expect(graph.edges.filter { $0.count == 3 }.count == 150)
        let linked = Set(graph.edges.flatMap { [$0.from, $0.to] })
        #expect(graph.nodes.allSatisfy { linked.contains($0.id) })
        #expect(graph.nodes.count == CauseGraphMetrics.maxEdges + 1)
    }

    /// Issue 41: opening "+ N other causes" of a view whose causes are also its effects (views that
    /// update each other) drew the opened causes among the effects, right of the view.
    @Test func openedCausesThatAreAlsoEffectsStayLeftOfTheView() throws {
        var b = TraceBuilder(metadata: TraceMetadata(name: "mutual", sourceFormat: "test"))
        let module = b.intern("App"), focusName = b.intern("FeedView")
        var event: Int64 = 0
        var time: Nanoseconds = 0
        func body(_ name: StringRef) -> UInt32 {
            time += 1_000
            event += 1
            let update = b.addUpdate(start: time, duration: 100, kind: .viewBody, module: module, viewName: name)
            return b.addNode(kind: .viewBody, name: name, isAppCode: true, eventID: event, timestamp: time, update: update)
        }
        for k in 0..<60 {
            let other = b.intern("Row\(k)")
            // Row k updates the feed, which updates Row k again.
            let row = body(other), feed = body(focusName), again = body(other)
            b.addEdge(source: row, target: feed, label: .update, timestamp: time)
            b.addEdge(source: feed, target: again, label: .update, timestamp: time)
        }
        let trace = try b.build()
        let first = trace.causeGraph(ofView: "FeedView", module: "App")
        let fold = try #require(first.nodes.first { $0.collapsed != nil && $0.title.contains("other causes") })
        let graph = trace.causeGraph(ofView: "FeedView", module: "App", expand: [try #require(fold.collapsed?.key)])
        let focus = try #require(graph.nodes.first { $0.focus })
        let causes = Set(graph.edges.filter { $0.to == focus.id }.map(\.from))
        #expect(causes.count >= 50)
        let right = graph.nodes.filter { causes.contains($0.id) && $0.x > focus.x }
        #expect(right.isEmpty, "\(right.count) of \(causes.count) opened causes drawn right of the view")
    }

    @Test func aGraphKeepsTheNodesNearestItsFocusUpToItsLimit() throws {
        // One update that 3,000 body nodes stand for (a hostile file), one of them caused by a gesture.
        var b = TraceBuilder(metadata: TraceMetadata(name: "flood", sourceFormat: "test"))
        let view = b.intern("FloodView"), module = b.intern("Flood")
        let update = b.addUpdate(start: 1_000, duration: 100, kind: .viewBody, module: module, viewName: view)
        let gesture = b.addNode(kind: .gesture, name: b.intern("Tap"), isAppCode: true, eventID: 0, timestamp: 0)
        for k in 0..<3000 {
            let body = b.addNode(kind: .viewBody, name: b.intern("Body\(k)"), isAppCode: true, eventID: Int64(k + 1), timestamp: 1_000, update: update)
            if k == 2500 { b.addEdge(source: gesture, target: body, label: .update, timestamp: 1_000) }
        }
        let trace = try b.build()
        let graph = try #require(trace.causeGraph(ofUpdate: 0))
        #expect(graph.nodes.count == CauseGraphMetrics.maxNodes && graph.omittedNodes == 3001 - CauseGraphMetrics.maxNodes)
        #expect(graph.nodes.allSatisfy { $0.focus })
        #expect(graph.nodes.map(\.id) == (0..<CauseGraphMetrics.maxNodes).map { "n\($0 + 1)" }, "the first focus nodes, in order")
    }
}
