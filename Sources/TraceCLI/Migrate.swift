import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TraceServer
import TraceStorage

/// `tracesvc migrate --from DATA_DIR --catalog … --blobs …`: copies every trace of an embedded
/// data directory into team mode's catalog and bucket. Each trace is its blob then its row, as an
/// upload is, so running it again (after an interruption, or twice) copies only what is missing.
/// `tracesvc migrate --schema-only --catalog … --blobs …`: the catalog's schema migrations alone
/// (an upgrade's step before the replicas of the new release start; they wait for it, alive).
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy every trace of a data directory into team mode's catalog and bucket (idempotent: run it again to resume).",
        discussion: "A data directory of an earlier release is first moved into its own catalog, as `serve` does at start. With --schema-only: the catalog's schema migrations alone, nothing copied (run it before starting the replicas of a new release)."
    )

    @Option(help: "The data directory of `tracesvc serve` (embedded mode) to copy from.")
    var from: String?

    @Flag(help: "Run the catalog's schema migrations only (no --from); replicas starting meanwhile wait for them.")
    var schemaOnly = false

    @OptionGroup(title: "Team mode (where to copy to)")
    var team: TeamStorageOptions

    func validate() throws {
        guard team.isTeamMode else { throw ValidationError("give --catalog and --blobs: where the traces are copied to") }
        guard schemaOnly == (from == nil) else { throw ValidationError(schemaOnly ? "--schema-only copies nothing: no --from" : "give --from (the data directory to copy) or --schema-only") }
    }

    func run() async throws {
        var logger = Logger(label: "tracesvc")
        logger.logLevel = CommandContext.current.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        guard let from else {
            let started = ContinuousClock.now
            try await team.migrateSchema(logger: logger)
            let elapsed = (ContinuousClock.now - started).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            CommandContext.print("migrate: the catalog's schema is at version \(CatalogSchema.version) (\(String(format: "%.1f", seconds)) s)")
            return
        }
        let directory = URL(fileURLWithPath: from, isDirectory: true).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--from: \(from) is not a folder")
        }
        let source = try await MigrationSource.open(directory, logger: logger)
        defer { source.close() }
        guard let (target, services) = try await team.open(logger: logger) else { return }
        let running = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for service in services { group.addTask { try await service.run() } }
                try await group.waitForAll()
            }
        }
        defer { running.cancel() }

        let entries = try await source.catalog.all()
        CommandContext.print("migrate: \(entries.count) trace(s) in \(directory.path) (read only, never changed)")
        // History figures the source made with this release's measuring; older ones are made again by the replicas.
        let current = Set(entries.map(\.id)).subtracting(try await source.catalog.unmeasured(version: TraceStore.measuredVersion, limit: .max).map(\.id))
        let unmeasuredInTarget = Set(try await target.catalog.unmeasured(version: TraceStore.measuredVersion, limit: .max).map(\.id))
        var traces = MigrationCount(), notes = MigrationCount(), verdicts = MigrationCount(), figures = MigrationCount()
        for (index, entry) in entries.enumerated() {
            do {
                let measurements = current.contains(entry.id) ? try await source.catalog.measurements(of: [entry.id], views: .all)[entry.id] : nil
                if try await target.catalog.entry(id: entry.id) != nil {
                    traces.present += 1
                    // A run stopped between the row and its figures: they come now.
                    if let measurements, unmeasuredInTarget.contains(entry.id) {
                        _ = try await target.catalog.storeMeasurements(measurements, id: entry.id, measuredVersion: TraceStore.measuredVersion, parserVersion: entry.parserVersion)
                        figures.copied += 1
                    } else if measurements != nil {
                        figures.present += 1
                    }
                } else {
                    let file = try await source.blobs.localFile(key: entry.storedBlobKey, sha256: entry.sha256, scratch: source.snapshot)
                    defer { if file.isTemporary { try? FileManager.default.removeItem(at: file.url) } }
                    guard try sha256OfFile(file.url).hex == entry.sha256 else {
                        throw StorageError.corruptBlob(key: entry.sha256)
                    }
                    try await target.catalog.claimBlob(entry.sha256)
                    _ = try await target.blobs.put(key: entry.sha256, file: file.url, size: entry.sizeBytes)
                    // Stored under its content hash in the target, whatever key it had in the source; its
                    // tags and history figures in the same insert.
                    var copy = entry
                    copy.blobKey = nil
                    _ = try await target.catalog.insert(copy, measurements: measurements, measuredVersion: measurements == nil ? 0 : TraceStore.measuredVersion)
                    traces.copied += 1
                    if measurements != nil { figures.copied += 1 }
                    CommandContext.print("migrate: [\(index + 1)/\(entries.count)] \(entry.id) \(entry.name) (\(entry.sizeBytes) bytes)")
                }
            } catch {
                traces.failed += 1
                CommandContext.printError("migrate: \(entry.id) \(entry.name): \(error)")
                continue
            }
            do {
                let have = Set(try await target.catalog.notes(traceID: entry.id).map(\.id))
                for note in try await source.catalog.notes(traceID: entry.id) {
                    try await notes.add(present: have.contains(note.id)) { try await target.catalog.addNote(note, maxPerTrace: .max) == .added }
                }
            } catch {
                notes.fail(entry.id, entry.name, "notes", error)
            }
            do {
                if let verdict = try await source.catalog.verdicts(of: [entry.id])[entry.id] {
                    // The target's own, if as recent (a check recorded there after a first run), is kept.
                    let kept = try await target.catalog.verdicts(of: [entry.id])[entry.id]
                    try await verdicts.add(present: kept.map { $0.checkedAtMicros >= verdict.checkedAtMicros } ?? false) {
                        try await target.catalog.recordVerdict(verdict)
                    }
                }
            } catch {
                verdicts.fail(entry.id, entry.name, "check verdict", error)
            }
        }
        CommandContext.print(traces.line("traces"))
        CommandContext.print(notes.line("notes"))
        CommandContext.print(verdicts.line("check verdicts"))
        CommandContext.print(figures.line("history figures") + " (\(entries.count - current.count) not current in the source: the replicas make them)")
        if traces.failed + notes.failed + verdicts.failed + figures.failed > 0 { throw ExitCode(1) }
    }
}
