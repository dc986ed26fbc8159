import Foundation
import Testing

/// `inspect` of a recording in Instruments 27's shape (the Trips fixtures): the layout updates,
/// downstream cost and hang risks print, pinned in `Expected/inspect-trips-27.txt`.
@Suite struct Instruments27OutputTests {
    @Test func inspectPrintsLayoutDownstreamAndTheHangsFileRead() async throws {
        let folder = try Folder()
        let tables = ["swiftui-updates", "SwiftUILayoutUpdates2", "time-profile", "potential-hangs", "hang-risks"]
        let bytes = try tables.map { try Data(contentsOf: Golden.fixtures.appendingPathComponent("xctrace-27/\($0).xml")) }.reduce(Data(), +)
        let file = folder.path("trips-27.xml")
        try bytes.write(to: URL(fileURLWithPath: file))
        let run = try await Golden.run(["inspect", file], pinnedAs: "inspect-trips-27", folder: folder)
        #expect(run.output.contains("2.40 ms  red  LazyVStack: _LazyVStackLayout: sizeThatFits((402.0, nil)) → (402.0, 2310.0), self 1.90 ms, depth 0, not cached"))
        #expect(run.output.contains("TripCard made 8 updates run, 9.60 ms"))
        #expect(run.output.contains("Hang of 320 ms at 3.000 s: Main thread performed file I/O: read 4.1 MB from trips.json in TripStore.load(), TripStore.swift:57"))
        #expect(run.output.contains("flagged  TripStore.load() (Trips) — TripStore.swift:57 ← TripListView.body.getter — TripListView.swift:31"))
        #expect(run.output.contains("at 3.900 s  Main thread performed synchronous IPC"), "a risk at the recording's last instant")
    }
}
