import ArgumentParser
import Foundation
import TraceFormats
import TraceModel
import TraceServer
import TraceStorage

/// `check` with a server's history: the baseline is the latest trace with some tags
/// (`--baseline-tags`), and the checked trace goes up with its tags and its verdict (`--upload`),
/// so the history page shows pass or fail per build.
extension Check {
    func validateServerOptions() throws {
        if baselineTags != nil || upload, server == nil {
            throw ValidationError("--baseline-tags and --upload need --server URL")
        }
        if baselineTags != nil, !baseline.isEmpty {
            throw ValidationError("give --baseline FILE or --baseline-tags, not both")
        }
        if !tags.isEmpty, !upload { throw ValidationError("--tag goes with --upload") }
        if token != nil, tokenFile != nil { throw ValidationError("give --token or --token-file, not both") }
        do {
            _ = try uploadTags()
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// `--baseline-tags a=b,c=d` (at least one).
    func parsedBaselineTags() throws(TagError) -> [TraceTag] {
        guard let baselineTags else { return [] }
        let texts = baselineTags.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !texts.isEmpty else { throw TagError(tag: baselineTags, reason: "--baseline-tags needs key=value pairs, e.g. branch=main,scenario=scroll") }
        return try TraceTag.parseAll(texts, separator: "=")
    }

    /// The uploaded trace's tags: the baseline's, with the keys of `--tag` taking their new values.
    func uploadTags() throws(TagError) -> [TraceTag] {
        let given = try TraceTag.parseAll(tags, separator: "=")
        let keys = Set(given.map(\.key))
        return (try parsedBaselineTags().filter { !keys.contains($0.key) } + given).sorted()
    }

    func serverToken() throws -> String? {
        do {
            return try ServerClient.token(file: tokenFile, given: token)
        } catch let failure as ServerClient.Failure {
            Self.printError(failure.description)
            throw ExitCode(2)
        }
    }

    /// The latest trace on the server with `--baseline-tags` other than the checked trace,
    /// downloaded and read; nil (and a note) when the server has none yet.
    func serverBaseline(_ server: ServerClient, tags text: String) async throws -> (trace: Trace, id: String)? {
        let tags = try parsedBaselineTags()
        let ownID = try? TraceStore.uploadID(ofFile: URL(fileURLWithPath: trace))
        do {
            guard let found = try await server.latest(tags: tags, excluding: ownID) else {
                Self.printError("no trace on \(server.server) has the tags \(text): checked without a baseline")
                return nil
            }
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-baseline-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let run = try await server.download(found.id, to: scratch)
            let baseline = try Self.load { () throws(TraceFormatError) in try TraceImporter.importTrace(at: scratch, displayName: found.name, run: run) }
            return (baseline, found.id)
        } catch let failure as ServerClient.Failure {
            Self.printError("cannot get the baseline: \(failure.description)")
            throw ExitCode(2)
        }
    }

    /// The run-to-run noise of the traces on the server with `--baseline-tags` (other than the
    /// checked trace): the baseline's spread when one baseline cannot measure its own. Nil, with
    /// a note, when the server cannot say (the default prior then stands, and the report says so).
    func serverNoise(_ server: ServerClient) async throws -> EarlierNoise? {
        let ownID = try? TraceStore.uploadID(ofFile: URL(fileURLWithPath: trace))
        do {
            return try await server.earlierNoise(tags: try parsedBaselineTags(), excluding: ownID)
        } catch let failure as ServerClient.Failure {
            Self.printError("cannot get the run-to-run noise of the baseline's tags: \(failure.description); using the default prior")
            return nil
        }
    }

    /// Uploads the checked trace with its tags and records the verdict; the report's links.
    func uploadWithVerdict(_ server: ServerClient, report: CheckReport, baselineID: String?) async throws -> ShareLinks {
        let uploaded = try await server.upload(trace, tags: try uploadTags())
        try await server.recordVerdict(
            traceID: uploaded.id, passed: report.passed, failedRules: report.failures.count, rules: report.results.count,
            baselineID: baselineID, summary: report.verdict
        )
        return ShareLinks(server: server.server, traceID: uploaded.id, baselineIDs: baselineID.map { [$0] } ?? [])
    }
}

extension ServerClient {
    /// Uploads the checked trace and its baselines (`check --server` without `--upload`): the
    /// report links to them there (the same content gets the same id).
    func uploadForLinks(trace: String, baselines: [String]) async throws -> ShareLinks {
        let traceID = try await upload(trace).id
        var baselineIDs: [String] = []
        for baseline in baselines { baselineIDs.append(try await upload(baseline).id) }
        return ShareLinks(server: server, traceID: traceID, baselineIDs: baselineIDs)
    }
}
