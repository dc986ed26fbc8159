import Foundation
import Testing
import TraceCLI
import TraceFormats
import TraceModel

/// Issue 43's first target end to end on an export of another app in Instruments 27's shape:
/// Ledger, a bookkeeping app built on a CI runner (Fixtures/xctrace-27-ledger: every table the
/// SwiftUI template of 27.0 records, its own views, process, paths and lines). Nothing is skipped
/// but the duplicate of the layout table, and `inspect`, `compare` and `check` (Markdown and
/// GitHub annotations) say the file and line of the frames they name.
@Suite struct Instruments27LedgerTests {
    static let tables = [
        "toc", "swiftui-updates", "swiftui-full-causes", "SwiftUILayoutUpdates2", "swiftui-layout-updates",
        "time-profile", "potential-hangs", "hang-risks",
    ]

    /// The export as one file; `slower` triples the CPU samples' weights (a second recording).
    static func export(in folder: Folder, slower: Bool = false) throws -> String {
        var text = try tables.map {
            try String(contentsOf: Golden.fixtures.appendingPathComponent("xctrace-27-ledger/\($0).xml"), encoding: .utf8)
        }.joined()
        if slower {
            let fast = #"<weight id="9" fmt="1.00 ms">1000000</weight>"#
            #expect(text.contains(fast))
            text = text.replacingOccurrences(of: fast, with: #"<weight id="9" fmt="3.00 ms">3000000</weight>"#)
        }
        let file = folder.path(slower ? "ledger-27-slower.xml" : "ledger-27.xml")
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    @Test func inspectReadsEveryTableAndSaysFileAndLine() async throws {
        let folder = try Folder()
        let run = await TraceSvc.capture(["inspect", try Self.export(in: folder)])
        #expect(run.status == 0, "\(run.error)")
        let skipped = run.output.split(separator: "\n").filter { $0.contains("Skipped table") }
        #expect(skipped.count == 1 && skipped[0].contains("swiftui-layout-updates: its layout updates are those of SwiftUILayoutUpdates2"), "\(skipped)")
        // The layout pass (2.4 ms, red), the downstream cost, the hang's file read, each with its line.
        #expect(run.output.contains("2.40 ms  red  LazyVStack: _LazyVStackLayout: sizeThatFits((402.0, nil)) → (402.0, 2310.0), self 1.90 ms, depth 0, not cached"))
        #expect(run.output.contains("EntryRow made 8 updates run, 9.60 ms"))
        #expect(run.output.contains("Hang of 320 ms at 3.000 s: Main thread performed file I/O: read 9.7 MB from journal.sqlite in JournalStore.load(), JournalStore.swift:203"))
        #expect(run.output.contains("flagged  JournalStore.load() (Ledger) — JournalStore.swift:203 ← JournalScreen.body.getter — JournalScreen.swift:64"))
        #expect(run.output.contains("[Medium] Main thread waited on a semaphore in JournalStore.save(), JournalStore.swift:219"))
        // A view body row says where its body is; the layout rows of the same name do not.
        #expect(run.output.contains("EntryRow (Ledger, Update) — EntryRow.swift:142"), "\(run.output)")
        #expect(run.output.contains("EntryRow (SwiftUI)\n"))
        // LazyVStack's 2.4 ms pass holds EntryRow's 0.7 ms one: the total counts it once.
        #expect(run.output.contains("Updates: 6, 6.09 ms in total"))
    }

    @Test func inspectNamesALayoutPassAmongTheCausesAsTheCauseGraphDoes() async throws {
        let folder = try Folder()
        let file = try Self.export(in: folder)
        let run = await TraceSvc.capture(["inspect", file])
        #expect(run.status == 0, "\(run.error)")
        // EntryRow's body made two of EntryRow's layout passes run, and JournalScreen's LazyVStack's.
        #expect(run.output.contains("  EntryRow.body → EntryRow · layout (sizeThatFits) ×2 per event: 1 event\n"), "\(run.output)")
        #expect(run.output.contains("  JournalScreen.body → LazyVStack · layout (sizeThatFits) ×1 per event: 1 event\n"))
        #expect(run.output.contains("  JournalScreen.body → EntryRow.body ×1 per event: 1 event\n"), "a body stays a body")
        // The cause graph of that pass names its node the same.
        let trace = try TraceImporter.importTrace(at: URL(fileURLWithPath: file), displayName: "ledger-27.xml")
        let pass = try #require((0..<trace.updates.count).first { trace.updates.kind[$0] == .layout && trace.string(trace.updates.viewName[$0]) == "EntryRow" })
        let graph = try #require(trace.causeGraph(ofUpdate: pass))
        #expect(graph.nodes.first { $0.focus }?.title == "EntryRow · layout (sizeThatFits)")
    }

    @Test func compareSaysTheFileAndLineOfASlowerFunction() async throws {
        let folder = try Folder()
        let run = await TraceSvc.capture(["compare", try Self.export(in: folder), try Self.export(in: folder, slower: true)])
        #expect(run.output.contains("+4.00 ms  2.00 ms → 6.00 ms  EntryRow.body.getter (Ledger) — EntryRow.swift:142"), "\(run.output)")
        // The updates' time counts the nested layout pass once, as the summary does.
        #expect(run.output.contains("Updates             6 → 6  6.09 ms → 6.09 ms"), "\(run.output)")
    }

    @Test func checkMarkdownAndGitHubAnnotationsPointAtFileAndLine() async throws {
        let folder = try Folder()
        let file = try Self.export(in: folder)
        let budget = try folder.file("ledger.json", """
            {"version": 1, "rules": [
              {"metric": "body-time-total", "views": "EntryRow", "max": "1ms"},
              {"metric": "findings", "kinds": ["hang-explained"], "max": 0}
            ]}
            """)
        let markdown = await TraceSvc.capture(["check", file, "--budget", budget, "--format", "markdown"])
        #expect(markdown.status == 1)
        #expect(markdown.output.contains("EntryRow (Ledger) — EntryRow.swift:142: 3.20 ms"), "\(markdown.output)")
        #expect(markdown.output.contains("JournalStore.swift:203"), "\(markdown.output)")

        let github = await TraceSvc.capture(["check", file, "--budget", budget, "--format", "github", "--source-root", "/Users/runner/work/ledger"])
        let lines = github.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("::error file=App/Sources/Rows/EntryRow.swift,line=142,title=tracesvc check%3A body-time-total of EntryRow") }, "\(github.output)")
        #expect(lines.contains { $0.hasPrefix("::error file=App/Sources/Storage/JournalStore.swift,line=203,") }, "\(github.output)")
    }
}
