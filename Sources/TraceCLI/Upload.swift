import ArgumentParser
import Foundation
import TraceAgent
import TraceStorage

struct Upload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Upload a trace to a tracesvc server with its tags, and print its link.",
        discussion: """
            Tags say what the trace is, so the server's list and history can find it: branch, commit, \
            commit-time, build, scenario, device, os, app-version, or any key of your own (lowercase \
            letters, digits, . _ -); a word without = is a label. Values have letters, digits and \
            . _ - / : + @ # (docs/api.md, "Tags").

            Sending the same file again is safe: its id is its content's hash, so the server keeps one \
            trace and adds the tags given; standard error says what became of them. A tag that would \
            change a key the trace has (build=1 to build=2) is refused unless --retag; a sample's \
            bytes take no tags. A connection failure or a 502, 503 or 504 is retried.

            Exit codes:
              0  uploaded (or already there) with every tag given
              1  the server refused it or its tags, or could not be reached
                 (one line on standard error says why)
              2  usage error or a bad tag

            tracesvc upload run.json --server https://tracesvc.example.com \\
              --tag branch=main --tag commit=$GITHUB_SHA --tag scenario=scroll
            """
    )

    @Argument(help: "The trace file: native JSON (.json / .json.gz), xctrace export XML or its .xctrace.tar.gz.")
    var file: String

    @OptionGroup var connection: ServerConnection

    @Option(name: .customLong("tag"), help: ArgumentHelp("A tag, key=value (repeatable); a word alone is a label.", valueName: "key=value"))
    var tags: [String] = []

    @Option(help: "The server's write token (default: $TRACESVC_TOKEN).")
    var token: String?

    @Flag(help: "Let the tags change the values of keys the same file, stored before, has (build=1 to build=2).")
    var retag = false

    @Option(help: "Which run of a several-run xctrace export to read.")
    var run: Int?

    @Option(help: "text (the trace's link) or json.")
    var format: UploadFormat = .text

    @Option(help: "Attempts after a connection failure or a 502/503/504.")
    var retries: Int = 3

    func validate() throws {
        do {
            _ = try TraceTag.parseAll(tags, separator: "=")
        } catch {
            throw ValidationError("--tag: \(error.description)")
        }
        if token != nil, connection.tokenFile != nil { throw ValidationError("give --token or --token-file, not both") }
        if let run, run < 1 { throw ValidationError("--run must be a whole number from 1") }
        guard (0...10).contains(retries) else { throw ValidationError("--retries must be between 0 and 10") }
    }

    func run() async throws {
        let client: ServerClient
        do {
            client = ServerClient(server: connection.server, token: try connection.token(given: token), retries: retries)
        } catch let failure as ServerClient.Failure {
            CommandContext.printError("tracesvc upload: \(failure.description)")
            throw ExitCode(2)
        }
        do {
            let uploaded = try await client.upload(file, tags: try TraceTag.parseAll(tags, separator: "="), run: run, retag: retag)
            let link = client.server + ShareLink.trace(uploaded.id, .init(pane: "findings"))
            if let outcome = uploaded.tagOutcome, !uploaded.isNew, !tags.isEmpty {
                CommandContext.printError("tracesvc upload: \(file) was stored before as trace \(uploaded.id); " + Self.said(outcome))
            }
            switch format {
            case .text:
                CommandContext.print(link)
            case .json:
                var object: [String: Any] = ["id": uploaded.id, "name": uploaded.name, "url": link, "isNew": uploaded.isNew, "tags": uploaded.tags]
                object["tagOutcome"] = uploaded.tagOutcome.flatMap { try? JSONSerialization.jsonObject(with: $0.json) }
                try Self.printJSON(object)
            }
        } catch let failure as ServerClient.Failure {
            CommandContext.printError("tracesvc upload: \(failure.description)")
            // Refused tags: the trace the bytes are, and what became of the tags, for scripts too.
            if format == .json, let outcome = failure.tagOutcome {
                try Self.printJSON([
                    "id": outcome.traceID, "url": client.server + ShareLink.trace(outcome.traceID, .init(pane: "findings")), "isNew": false,
                    "tagOutcome": (try? JSONSerialization.jsonObject(with: outcome.json)) ?? [:],
                ])
            }
            throw ExitCode(1)
        }
    }

    /// What became of the tags of a file stored before, in words.
    static func said(_ outcome: ServerClient.TagOutcome) -> String {
        var parts = ["tags stored: " + (outcome.stored.isEmpty ? "none" : outcome.stored.joined(separator: ", "))]
        if !outcome.moved.isEmpty { parts.append("moved (--retag): " + outcome.moved.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }

    static func printJSON(_ object: [String: Any]) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        CommandContext.print(String(decoding: data, as: UTF8.self))
    }
}

enum UploadFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
