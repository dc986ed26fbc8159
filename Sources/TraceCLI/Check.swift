import ArgumentParser
import Foundation
import TraceFormats
import TraceModel

struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fail a CI run when a trace goes over its performance budget or regressed against a baseline.",
        // One line per paragraph: ArgumentParser wraps them at words to the terminal's width.
        discussion: """
            Budgets are a JSON file (docs/ci.md, docs/budgets.schema.json): limits on red/orange updates, view body time, hangs, hitches, cause fan-out, findings and the Main Actor. With --baseline, a view whose body count or time grew beyond the budget's tolerance (default +\(Int(BaselineTolerance.defaultCount * 100)) % count, +\(Int(BaselineTolerance.defaultTime * 100)) % time) with a significant change is a regression. Times are written as everywhere in tracesvc: "16ms", "1.5 s", "500 µs".

            Exit codes:
              0  within budget (and no regression)
              1  over budget or regressed
              2  usage error, or a trace or budget file that cannot be read

            Examples:
              tracesvc check run.json --budget budget.json
              tracesvc check run.json --baseline main.json --format junit --output out.xml
              tracesvc check run.json --budget budget.json --format markdown > comment.md
              tracesvc check run.json --budget budget.json --format github \\
                  --server https://tracesvc.example.com
              tracesvc check run.json --server https://tracesvc.example.com \\
                  --baseline-tags branch=main,scenario=scroll \\
                  --upload --tag commit=$GITHUB_SHA
            """
    )

    @Argument(help: "The trace to check: native JSON (.json / .json.gz) or xctrace export XML.")
    var trace: String

    @Option(help: "Budget file (JSON).")
    var budget: String?

    @Option(help: ArgumentHelp(
        "An older trace of the same scenario: fail when views regressed against it. Repeat for several recordings of the baseline, pooled.",
        valueName: "old-trace"
    ))
    var baseline: [String] = []

    @Option(help: "text (readable), json, junit (JUnit XML, one test case per rule), markdown (a pull request comment, as compare's) or github (Actions annotations and a job summary in $GITHUB_STEP_SUMMARY).")
    var format: CheckFormat = .text

    @Option(help: "Write the report to this file (the readable text still goes to standard output).")
    var output: String?

    @Option(help: "A running tracesvc to upload the traces to; the report links to the evidence there.")
    var server: String?

    @Option(help: "Bearer token for uploading to --server (default: $TRACESVC_TOKEN).")
    var token: String?

    @Option(help: "A file whose first line is the write token of --server (instead of --token).")
    var tokenFile: String?

    @Option(help: ArgumentHelp(
        "Take as baseline the latest trace on --server with these tags (other than this one).", valueName: "key=value,key=value"
    ))
    var baselineTags: String?

    @Flag(help: "Upload the trace to --server with its tags (--baseline-tags, overridden by --tag) and record the verdict there.")
    var upload = false

    @Option(name: .customLong("tag"), help: ArgumentHelp("A tag of the uploaded trace, key=value (repeatable).", valueName: "key=value"))
    var tags: [String] = []

    @Option(help: "The app's folder on the recording machine (e.g. /Users/dev/Trips): GitHub annotations of a finding whose frame has a source point at its file below it and line.")
    var sourceRoot: String?

    func validate() throws {
        guard budget != nil || !baseline.isEmpty || baselineTags != nil else {
            throw ValidationError("nothing to check: give --budget FILE, --baseline OLD_TRACE (or --baseline-tags), or both")
        }
        try validateServerOptions()
        if let server {
            guard ServerClient.isServerURL(server) else {
                throw ValidationError("--server must be an http:// or https:// URL, e.g. http://127.0.0.1:8080")
            }
        }
    }

    func run() async throws {
        let current = try Self.load { () throws(TraceFormatError) in try TraceImporter.importTrace(at: URL(fileURLWithPath: trace), displayName: trace) }
        var old = try baseline.map { path in
            try Self.load { () throws(TraceFormatError) in try TraceImporter.importTrace(at: URL(fileURLWithPath: path), displayName: path) }
        }
        let rules = try budget.map { path in
            try Self.load { () throws(TraceFormatError) in try BudgetReader.read(at: URL(fileURLWithPath: path), displayName: path) }
        } ?? Budget()

        let server = try server.map { ServerClient(server: $0, token: try serverToken()) }
        var baselineID: String?
        var earlier: EarlierNoise?
        if let server, let baselineTags, let found = try await serverBaseline(server, tags: baselineTags) {
            (old, baselineID) = ([found.trace], found.id)
            earlier = try await serverNoise(server)
        }

        var results = current.evaluate(rules)
        if !old.isEmpty {
            results += current.baselineResults(against: old, tolerance: rules.baseline, window: rules.window, earlier: earlier)
        }
        var report = CheckReport(
            trace: current.metadata.name, baseline: old.isEmpty ? nil : old.map(\.metadata.name).joined(separator: ", "),
            budgetFile: budget, results: results, sourceRoot: sourceRoot
        )
        if let server {
            do {
                if upload {
                    report.links = try await uploadWithVerdict(server, report: report, baselineID: baselineID)
                } else {
                    report.links = try await server.uploadForLinks(trace: trace, baselines: baseline)
                    if let baselineID { report.links?.baselineIDs = [baselineID] }
                }
            } catch {
                // The verdict stands without links; say why they are missing.
                Self.printError("could not upload to \(server.server): \(error)")
            }
        }

        let text = report.text(colors: output == nil && format == .text && CommandContext.current.outputIsTerminal)
        let rendered: String = switch format {
        case .text: text
        case .json: report.json
        case .junit: report.junit
        case .markdown: report.markdown
        case .github: report.githubAnnotations
        }
        if let output {
            do {
                try Data(rendered.utf8).write(to: URL(fileURLWithPath: output))
            } catch {
                Self.printError("cannot write --output \(output): \(error.localizedDescription)")
                throw ExitCode(2)
            }
            CommandContext.print(text)
        } else {
            CommandContext.current.writeOutput(rendered.hasSuffix("\n") ? rendered : rendered + "\n")
        }
        if format == .github, let summary = CommandContext.current.environment["GITHUB_STEP_SUMMARY"], !summary.isEmpty {
            Self.append(report.markdown, to: summary)
        }
        if !report.passed { throw ExitCode(1) }
    }

    /// Reads an input or exits 2 with the reader's `file:line:column: what is wrong`.
    static func load<T>(_ read: () throws(TraceFormatError) -> T) throws -> T {
        do {
            return try read()
        } catch {
            printError(error.description)
            throw ExitCode(2)
        }
    }

    private static func append(_ text: String, to path: String) {
        guard let handle = FileHandle(forWritingAtPath: path) ?? (FileManager.default.createFile(atPath: path, contents: nil) ? FileHandle(forWritingAtPath: path) : nil) else {
            printError("cannot write the job summary to $GITHUB_STEP_SUMMARY (\(path))")
            return
        }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(text.utf8))
    }

    static func printError(_ message: String) {
        CommandContext.printError("tracesvc check: \(message)")
    }
}

enum CheckFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, junit, markdown, github
}
