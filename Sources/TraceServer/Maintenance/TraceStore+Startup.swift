import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
    func start() async throws {
        let files = FileManager.default
        // Uploads and fetches cut off by a shutdown or crash are discarded whole: they were never committed.
        for directory in [incomingDirectory, scratchDirectory] {
            for leftover in (try? files.contentsOfDirectory(atPath: directory.path)) ?? [] {
                try? files.removeItem(at: directory.appendingPathComponent(leftover))
            }
        }
        try await LegacyDataDirectory(store: self, dataDirectory: configuration.dataDirectory, logger: logger).migrate()
        // A shared catalog answers only once the server runs its client; every upload reads the
        // totals before it is received anyway.
        if !storage.isShared { try await refreshQuota() }
        try await scanSamples()
    }

    /// Moves a stored file the server cannot explain out of the way; it is never deleted.
    nonisolated func quarantine(_ file: URL, reason: String) {
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        try? FileManager.default.createDirectory(at: quarantineDirectory, withIntermediateDirectories: true)
        let target = quarantineDirectory.appendingPathComponent("\(Int(Date.now.timeIntervalSince1970))-\(file.lastPathComponent)")
        do {
            try FileManager.default.moveItem(at: file, to: target)
            logger.warning("moved \(file.lastPathComponent) to \(target.path): \(reason)")
        } catch {
            logger.error("cannot move \(file.path) aside (\(reason)): \(error)")
        }
    }

    /// Parses a file within the load gate (for the migration of the earlier layout).
    func parse(_ file: URL, displayName: String, run: Int? = nil) async throws -> Trace {
        try await loadGate.run { try TraceImporter.importTrace(at: file, displayName: displayName, run: run) }
    }
}
