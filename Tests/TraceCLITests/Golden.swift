import Foundation
import Testing
import TraceCLI

/// Pinned command output: each run's exit status, standard output and standard error, compared
/// byte for byte with a file in `Expected/`. After a deliberate change of the output, run the
/// tests with `TRACESVC_RECORD=1` to rewrite the files, and review their diff.
enum Golden {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let expected = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Expected")
    static let samples = packageRoot.appendingPathComponent("SampleTraces")
    static let fixtures = packageRoot.appendingPathComponent("Tests/TraceFormatsTests/Fixtures")

    static func sample(_ name: String) -> String { samples.appendingPathComponent("\(name).json").path }

    /// Runs `tracesvc ARGUMENTS` in process and checks the run against `Expected/NAME.txt`.
    @discardableResult
    static func run(
        _ arguments: [String], environment: [String: String] = [:], pinnedAs name: String, folder: Folder? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> CommandRun {
        let run = await TraceSvc.capture(arguments, environment: environment)
        let text = transcript(arguments, run, folder: folder)
        try compare(text, with: name, sourceLocation: sourceLocation)
        return run
    }

    /// The run as one readable text, with the machine's paths replaced by `<package>` and `<folder>`.
    static func transcript(_ arguments: [String], _ run: CommandRun, folder: Folder?) -> String {
        var text = "$ tracesvc \(arguments.joined(separator: " "))\nexit status \(run.status)\n"
        text += "--- standard output\n\(run.output)"
        if !run.error.isEmpty { text += "--- standard error\n\(run.error)" }
        if let folder { text = text.replacingOccurrences(of: folder.url.path, with: "<folder>") }
        return text.replacingOccurrences(of: packageRoot.path, with: "<package>")
    }

    static func compare(_ actual: String, with name: String, sourceLocation: SourceLocation) throws {
        let url = expected.appendingPathComponent("\(name).txt")
        if ProcessInfo.processInfo.environment["TRACESVC_RECORD"] == "1" {
            try FileManager.default.createDirectory(at: expected, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url)
            return
        }
        guard let pinned = try? String(contentsOf: url, encoding: .utf8) else {
            Issue.record("no Expected/\(name).txt: run with TRACESVC_RECORD=1 to write it", sourceLocation: sourceLocation)
            return
        }
        guard actual != pinned else { return }
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false), p = pinned.split(separator: "\n", omittingEmptySubsequences: false)
        let line = zip(a, p).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, p.count)
        Issue.record(
            """
            Expected/\(name).txt differs at line \(line + 1):
              pinned: \(line < p.count ? String(p[line]) : "(end)")
              actual: \(line < a.count ? String(a[line]) : "(end)")
            (TRACESVC_RECORD=1 rewrites it after a deliberate change)
            """,
            sourceLocation: sourceLocation
        )
    }
}

/// A scratch folder for generated traces, budgets and outputs.
final class Folder {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-cli-tests-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func file(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    func read(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }
}
