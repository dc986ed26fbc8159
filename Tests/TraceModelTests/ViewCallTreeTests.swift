import Testing
@testable import TraceModel

/// "CPU of all updates of a view" on a recipes app (not the Landmarks samples): samples inside the
/// view's updates only, rooted at its body frame, system libraries hidden, frames charged to callers.
@Suite struct ViewCallTreeTests {
    /// RecipeCardView runs twice (0-4 ms and 10-13 ms, overlapping a second, nested card update at
    /// 11-12 ms); RecipeListView runs at 20-22 ms. Main-thread samples every ms; one worker sample
    /// inside the first card update must not count.
    private func recipes() throws -> Trace {
        var b = TraceBuilder(metadata: TraceMetadata(name: "recipes", app: "Recipes", start: 0, end: 40_000_000, sourceFormat: "test"))
        let process = b.addProcess(TraceProcess(pid: 7, name: "Recipes"))
        let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
        let worker = b.addThread(TraceThread(tid: 2, name: "Worker", process: process, isMain: false))
        let app = b.intern("Recipes"), ui = b.intern("SwiftUICore"), foundation = b.intern("Foundation")
        func frame(_ name: String, _ binary: StringRef) -> UInt32 { b.addFrame(name: b.intern(name), binary: binary, isAppCode: binary == app) }
        let graphUpdate = frame("ViewGraph.updateOutputs()", ui)
        let body = frame("RecipeCardView.body.getter", app)
        let price = frame("RecipeCardView.priceText.getter", app)
        let formatter = frame("NumberFormatter.string(from:)", foundation)
        let icu = frame("unum_formatDouble", b.intern("libicucore.A.dylib"))
        let image = frame("Image.init(_:bundle:)", ui)
        let layout = frame("HStack.placeSubviews()", ui)
        let lookAlike = frame("MyRecipeCardView.body.getter", app)
        let listBody = frame("RecipeListView.body.getter", app)
        let priceStack = UInt32(b.addStack(rootToLeaf: [graphUpdate, body, price, formatter, icu]))
        let imageStack = UInt32(b.addStack(rootToLeaf: [graphUpdate, body, image]))
        let layoutStack = UInt32(b.addStack(rootToLeaf: [graphUpdate, layout]))
        let lookAlikeStack = UInt32(b.addStack(rootToLeaf: [graphUpdate, lookAlike]))
        let listStack = UInt32(b.addStack(rootToLeaf: [graphUpdate, listBody, price]))
        let card = b.intern("RecipeCardView"), list = b.intern("RecipeListView")
        for (start, duration, view) in [(Nanoseconds(0), Nanoseconds(4_000_000), card), (10_000_000, 3_000_000, card),
                                        (11_000_000, 1_000_000, card), (20_000_000, 2_000_000, list)] {
            _ = b.addUpdate(start: start, duration: duration, kind: .viewBody, module: app, viewName: view, thread: main)
        }
        func sample(_ ms: Nanoseconds, _ stack: UInt32, thread: Int32? = nil) {
            b.addSample(time: ms * 1_000_000 + 500_000, thread: thread ?? main, weight: 1_000_000, stack: stack)
        }
        // First card update: price, price, image, layout (outside the body); a worker sample at 1 ms.
        for (ms, stack) in [(Nanoseconds(0), priceStack), (1, priceStack), (2, imageStack), (3, layoutStack)] { sample(ms, stack) }
        sample(1, imageStack, thread: worker)
        // Second card update (the nested one inside it must not count its 11 ms sample twice).
        for (ms, stack) in [(Nanoseconds(10), priceStack), (11, priceStack), (12, lookAlikeStack)] { sample(ms, stack) }
        // Between updates, and the list's update: not the card's.
        sample(6, imageStack)
        sample(20, listStack)
        sample(21, imageStack)
        return try b.build()
    }

    private func cardTree(_ configure: (inout CallTreeQuery) -> Void = { _ in }) throws -> CallTree {
        var query = CallTreeQuery(minPercent: 0, view: .init(name: "RecipeCardView", module: "Recipes"))
        configure(&query)
        return try recipes().callTree(query)
    }

    @Test func onlySamplesInsideTheViewsUpdatesOnTheirThreadEachOnce() throws {
        let tree = try cardTree()
        #expect(tree.updateCount == 3)
        #expect(tree.sampleCount == 7 && tree.totalWeight == 7_000_000)
    }

    @Test func rootedAtTheBodyFrameWithTheFormatterHeaviest() throws {
        let tree = try cardTree()
        // A body-looking frame of another view (MyRecipeCardView) is not this view's body.
        #expect(tree.roots.map(\.name) == ["RecipeCardView.body.getter", "Outside RecipeCardView.body"])
        let body = tree.roots[0]
        #expect(body.total == 5_000_000 && body.isAppCode)
        #expect(body.children.map(\.name) == ["RecipeCardView.priceText.getter", "Image.init(_:bundle:)"])
        #expect(body.children[0].children.map(\.name) == ["NumberFormatter.string(from:)"])
        #expect(tree.roots[1].total == 2_000_000)
        #expect(tree.roots[1].children.first?.name == "ViewGraph.updateOutputs()")
    }

    @Test func hidingSystemLibrariesChargesThemToTheAppCaller() throws {
        let tree = try cardTree { $0.hideSystemLibraries = true; $0.mode = .bottomUp }
        // Bottom-up: app frames on CPU. priceText called the formatter 4 times; body called Image once.
        #expect(tree.roots.first?.name == "RecipeCardView.priceText.getter" && tree.roots.first?.total == 4_000_000)
        #expect(tree.roots.first { $0.name == "RecipeCardView.body.getter" }?.selfWeight == 1_000_000)
        #expect(!tree.roots.contains { !$0.isAppCode && $0.name != "Outside RecipeCardView.body" && $0.name != "System libraries" })
        #expect(tree.roots.reduce(0) { $0 + $1.total } == tree.totalWeight)
    }

    @Test func chargingAFrameToItsCallerMovesItsTimeUp() throws {
        let tree = try cardTree { $0.chargedToCaller = ["RecipeCardView.priceText.getter"] }
        let body = try #require(tree.roots.first)
        #expect(body.children.map(\.name) == ["NumberFormatter.string(from:)", "Image.init(_:bundle:)"])
        #expect(body.children[0].total == 4_000_000)
    }

    @Test func rangeClipsTheUpdatesAndUnknownViewsAreEmpty() throws {
        let clipped = try cardTree { $0.range = TimeRange(start: 0, end: 2_000_000) }
        #expect(clipped.updateCount == 1 && clipped.sampleCount == 2)
        let none = try recipes().callTree(CallTreeQuery(view: .init(name: "NoSuchView", module: nil)))
        #expect(none.updateCount == 0 && none.sampleCount == 0 && none.roots.isEmpty)
        // Without a module, every module's updates of the view count.
        let anyModule = try recipes().callTree(CallTreeQuery(minPercent: 0, view: .init(name: "RecipeListView", module: nil)))
        #expect(anyModule.updateCount == 1 && anyModule.roots.map(\.name).sorted() == ["Outside RecipeListView.body", "RecipeListView.body.getter"])
    }

    @Test(arguments: [
        ("RecipeCardView.body.getter", true), ("Recipes.RecipeCardView.body.getter", true),
        ("closure #1 in RecipeCardView.body.getter", true), ("RecipeCardView<A>.body.getter", true),
        ("RecipeCardView<Array<Int>>.body.getter", true), ("MyRecipeCardView.body.getter", false),
        ("RecipeCardView.bodyText.getter", false), ("RecipeCardView.priceText.getter", false), ("RecipeCardView<A.body", false),
    ])
    func bodyFrameNames(_ symbol: String, _ matches: Bool) {
        #expect(BodyFrameName.matches(symbol, view: "RecipeCardView") == matches)
    }
}
