import TraceModel

/// "Pantry", a shopping-list app that is not Landmarks, for the comparison's tests: its names,
/// subsystem, labels, refresh rate and shapes differ from the samples' so a rule that only holds
/// for Landmarks fails on it. Not listed among the samples; `tracesvc generate --scenario`.
///
/// Each recording: launch (14 shelf rows), ten "Add to Cart" taps (an os_signpost interval of
/// the app's own subsystem and category, not Points of Interest; update groups labelled
/// "Button Tap"), then a second of scrolling at 60 Hz ("Frame Update" groups).
/// - slow: every tap changes `@Observable Pantry.items`, which all 14 `ItemRowView`s read (a
///   collection fan-out), runs a 2-4 ms `PriceTagView` body (long bodies), hitches, and writes
///   `\.cartCount` into the environment, which notifies 20 `AisleHeader` bodies that do not read
///   it (environment churn, skipped bodies).
/// - fixed: a per-item model runs one `ItemRowView` body a tap (each a little slower: it now
///   formats its own price), no long bodies, no hitches, no environment write.
/// `run` varies the timings as re-recording the same scenario would (a different seed).
public enum PantryTraces {
    public static let scenarios = ["pantry-slow", "pantry-fixed"]

    public static let rows = 14
    public static let taps = 10
    public static let skippedHeaders = 20
    static let subsystem = "com.example.pantry"
    static let category = "UserActions"

    /// The recording of `scenario` ("pantry-slow" / "pantry-fixed"), re-recorded as `run`.
    public static func trace(scenario: String, run: UInt64) -> Trace {
        precondition(scenarios.contains(scenario), "unknown scenario \(scenario); scenarios: \(scenarios.joined(separator: ", "))")
        return trace(slow: scenario == "pantry-slow", run: run)
    }

    public static func trace(slow: Bool, run: UInt64) -> Trace {
        let app = "Pantry"
        var sketch = TraceSketch(name: "\(slow ? "pantry-slow" : "pantry-fixed")-\(run)", app: app, pid: 6210, seed: (slow ? 700 : 800) + run, end: 5_600_000_000)
        sketch.builder.metadata.device = "iPhone 15"
        sketch.builder.metadata.osVersion = "iOS 26.0"
        sketch.builder.metadata.refreshRate = 60
        let frame: Nanoseconds = 16_666_667
        let accessor = sketch.stack(parent: sketch.graphUpdateStack, [("ViewBodyAccessor.updateBody(of:changed:)", "SwiftUICore")])
        let rowStack = sketch.stack(parent: accessor, [("ItemRowView.body.getter", app)])
        let priceStack = sketch.stack(parent: accessor, [("PriceTagView.body.getter", app), ("Decimal.FormatStyle.Currency.format(_:)", "Foundation")])

        // Launch: the app, the shelf, and its rows.
        var time: Nanoseconds = 220_000_000
        let launch = sketch.nextGroup
        let appBody = sketch.update(.viewBody, view: "PantryApp", start: time, duration: 180_000, group: launch)
        time += 200_000
        let shelf = sketch.update(.viewBody, view: "ShelfView", start: time, duration: 640_000, group: launch)
        sketch.edge(appBody.node!, shelf.node!, .creation, at: time, group: launch)
        time += 660_000
        for _ in 0..<rows {
            let duration = sketch.random.int(150_000...400_000)
            let row = sketch.update(.viewBody, view: "ItemRowView", start: time, duration: duration, group: launch)
            sketch.edge(shelf.node!, row.node!, .creation, at: time, group: launch)
            sketch.sample(start: time, duration: duration, stacks: [rowStack])
            time += duration + 15_000
        }
        sketch.addGroup(launch, start: 220_000_000, end: time, label: "App Launch")

        // Ten taps on "Add to Cart", a third of a second apart.
        for tap in 0..<taps {
            let tapTime = 1_000_000_000 + Nanoseconds(tap) * 330_000_000 + sketch.random.int(0...20_000_000)
            time = tapTime
            let group = sketch.nextGroup
            let gesture = sketch.node(.gesture, "Add to Cart Button", isAppCode: true, at: time)
            time += 50_000
            let rowsRun: Int
            let property: String
            let model: UInt32
            if slow {
                model = sketch.node(.observable, "@Observable Pantry.items", owner: "Pantry", isAppCode: true, at: time)
                (rowsRun, property) = (rows, "items")
            } else {
                model = sketch.node(.observable, "@Observable ItemModel", owner: "ItemModel", isAppCode: true, at: time)
                (rowsRun, property) = (1, "inCart")
            }
            sketch.edge(gesture, model, .update, at: time, group: group)
            time += 120_000
            for _ in 0..<rowsRun {
                let duration = slow ? sketch.random.int(150_000...400_000) : sketch.random.int(320_000...620_000)
                let row = sketch.update(.viewBody, view: "ItemRowView", start: time, duration: duration, group: group)
                sketch.edge(model, row.node!, .update, property: property, at: time, group: group)
                sketch.sample(start: time, duration: duration, stacks: [rowStack])
                time += duration + 10_000
            }
            let badgeDuration = sketch.random.int(60_000...110_000)
            let badge = sketch.update(.viewBody, view: "CartBadge", start: time, duration: badgeDuration, group: group)
            sketch.edge(model, badge.node!, .update, property: "count", at: time, group: group)
            time += badgeDuration + 10_000
            if slow {
                let priceDuration = sketch.random.int(2_000_000...4_000_000)
                let price = sketch.update(.viewBody, view: "PriceTagView", start: time, duration: priceDuration, group: group)
                sketch.edge(model, price.node!, .update, property: "items", at: time, group: group)
                sketch.sample(start: time, duration: priceDuration, stacks: [priceStack])
                time += priceDuration + 10_000
                // The cart count goes into the environment: every aisle header is notified, none reads it.
                let writer = sketch.node(.environmentWriter, "EnvironmentWriter: CartCount", isAppCode: false, at: time)
                sketch.edge(model, writer, .update, property: "cartCount", at: time, group: group)
                for _ in 0..<skippedHeaders {
                    let header = sketch.node(.viewBody, "AisleHeader", isAppCode: true, at: time)
                    sketch.edge(writer, header, .update, property: "cartCount", at: time, group: group)
                }
                time += 900_000  // checking twenty views that need not run
            }
            let layout = sketch.random.int(80_000...160_000)
            sketch.update(.layout, view: "LazyVStack", module: "SwiftUI", start: time, duration: layout, group: group, nodeKind: nil)
            time += layout
            sketch.addGroup(group, start: tapTime + 50_000, end: time, label: "Button Tap")
            sketch.sample(start: time, duration: 400_000, stacks: [sketch.commitStack])
            // The app ends the interval when the updated row is on screen: a frame late in slow.
            var shown = time + 400_000
            if slow {
                sketch.hitch(start: tapTime + frame, duration: frame)
                shown = tapTime + 2 * frame + 1_000_000
            }
            sketch.signpost("Add to Cart", start: tapTime, end: shown, id: UInt64(50 + tap), subsystem: subsystem, category: category,
                            message: "item \(tap + 1)", endMessage: slow ? "\(rows) rows updated" : "1 row updated")
        }

        // A second of scrolling: a scroll update every frame, a row body now and then.
        let scrollStart: Nanoseconds = 4_400_000_000
        for index in 0..<60 {
            let frameStart = scrollStart + Nanoseconds(index) * frame
            time = frameStart + sketch.random.int(200_000...400_000)
            let group = sketch.nextGroup
            let start = time
            let scroll = sketch.random.int(30_000...70_000)
            sketch.update(.other, view: "ScrollPosition", module: "SwiftUI", start: time, duration: scroll, group: group, nodeKind: nil)
            time += scroll + 10_000
            if index % 6 == 0 {
                let duration = sketch.random.int(150_000...400_000)
                let creation = sketch.node(.viewCreation, "View Creation / Reuse", isAppCode: false, at: time)
                let row = sketch.update(.viewBody, view: "ItemRowView", start: time, duration: duration, group: group)
                sketch.edge(creation, row.node!, .creation, at: time, group: group)
                time += duration
            }
            sketch.addGroup(group, start: start, end: time, label: "Frame Update")
        }
        return sketch.build()
    }
}
