import ArgumentParser
import Foundation
import TraceAgent
import TraceServer
import TraceStorage

/// `tracesvc delete --tag branch=feature-x --older-than 30d [--dry-run]`: deletes the traces a
/// query matches, on the server (`DELETE /api/traces?…`, the `delete` scope), which records each
/// in the audit trail under the token's name.
struct DeleteByQuery: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete the traces a query matches on a server (--dry-run lists them); each delete is in the audit trail.",
        discussion: "The token needs the delete scope."
    )

    @OptionGroup var connection: ServerConnection

    @Option(name: .customLong("tag"), help: ArgumentHelp("Only traces with this tag, key=value (repeatable: all of them).", valueName: "key=value"))
    var tags: [String] = []

    @Option(help: "Only traces uploaded longer ago than this: 30d, 12h, 2w, 90m.")
    var olderThan: String?

    @Option(help: "Only traces whose name contains this.")
    var name: String?

    @Flag(help: "List what would be deleted; delete nothing.")
    var dryRun = false

    func validate() throws {
        do {
            _ = try TraceTag.parseAll(tags, separator: "=")
        } catch {
            throw ValidationError("--tag: \(error.description)")
        }
        if let olderThan, RetentionRule.seconds(olderThan) == nil {
            throw ValidationError("--older-than: '\(olderThan)' is not a whole number of m, h, d or w (30d, 12h, 2w)")
        }
        guard !tags.isEmpty || olderThan != nil || name != nil else {
            throw ValidationError("give at least one of --tag, --older-than, --name: a delete by query never deletes everything")
        }
    }

    func run() async throws {
        let parsed = try TraceTag.parseAll(tags, separator: "=")
        var query = parsed.map { "tag=\(ShareLink.encode($0.text))" }
        if let olderThan { query.append("older-than=\(ShareLink.encode(olderThan))") }
        if let name { query.append("name=\(ShareLink.encode(name))") }
        if dryRun { query.append("dry-run=true") }
        try await DeletionReport.ask(
            connection, "/api/traces?" + query.joined(separator: "&"), method: "DELETE",
            what: dryRun ? "listing what the query matches" : "deleting by query"
        )
    }
}

/// `tracesvc retention --server URL --dry-run`: what the server's retention policy (`serve
/// --retain`) deletes now; without `--dry-run`, applies it now (the `admin` scope).
struct Retention: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List what a server's retention policy (serve --retain) would delete now (--dry-run), or apply it now.",
        discussion: "Applying it needs a token with the admin scope."
    )

    @OptionGroup var connection: ServerConnection

    @Flag(help: "List what would be deleted; delete nothing (needs the read scope).")
    var dryRun = false

    func run() async throws {
        try await DeletionReport.ask(
            connection, "/api/retention", method: dryRun ? "GET" : "POST",
            what: dryRun ? "asking what retention would delete" : "applying retention"
        )
    }
}

/// A deletion's answer (`DELETE /api/traces`, `/api/retention`) as lines for a terminal.
enum DeletionReport {
    /// Sends the deletion (or its dry run) once, no retries, and prints its report; a failure
    /// prints one line naming it and exits 1.
    static func ask(_ connection: ServerConnection, _ path: String, method: String, what: String) async throws {
        let client = ServerClient(server: connection.server, token: try connection.token(), retries: 0)
        do {
            let (data, response) = try await client.send(try client.request(path, method: method), what: what)
            CommandContext.print(text(try client.object(data, status: response?.statusCode ?? 0, what: what)))
        } catch let failure as ServerClient.Failure {
            CommandContext.printError("tracesvc: \(failure.description)")
            throw ExitCode(1)
        }
    }

    static func text(_ json: [String: Any]) -> String {
        let dryRun = json["dryRun"] as? Bool ?? false
        let matched = json["matched"] as? Int ?? 0, deleted = json["deleted"] as? Int ?? 0
        let traces = json["traces"] as? [[String: Any]] ?? []
        var lines: [String] = []
        if let rules = json["rules"] as? [String] {
            lines.append(rules.isEmpty ? "retention: no --retain rule: every trace is kept" : "retention rules (first match wins): " + rules.joined(separator: ", "))
        }
        lines.append(dryRun ? "would delete \(matched) trace(s)" : "deleted \(deleted) of \(matched) matching trace(s)")
        for trace in traces {
            let tags = (trace["tags"] as? [String] ?? []).joined(separator: ",")
            let rule = (trace["rule"] as? String).map { "  (\($0))" } ?? ""
            lines.append("\(trace["id"] as? String ?? "?")  \(trace["uploadedAt"] as? String ?? "")  \(ServerClient.printable(trace["name"] as? String ?? ""))  [\(tags)]\(rule)")
        }
        if traces.count < (dryRun ? matched : deleted) { lines.append("… and \((dryRun ? matched : deleted) - traces.count) more") }
        return lines.joined(separator: "\n")
    }
}
