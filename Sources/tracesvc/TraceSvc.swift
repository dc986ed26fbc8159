import ArgumentParser

@main
struct TraceSvc: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracesvc",
        abstract: "Look at recorded SwiftUI performance traces in the browser, and share links to them.",
        subcommands: [Serve.self, Inspect.self, Compare.self, Generate.self, Bench.self, BenchTimeline.self, ExportXCTrace.self, BenchXCTrace.self, BenchCompare.self]
    )
}
