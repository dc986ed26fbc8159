import Foundation
import Logging
import TraceStorage

/// The data directory layout before the catalog: `traces/<id>.trace`, committed by a sidecar
/// `traces/<id>.json` (a `TraceRecord`). At start every such trace moves into the catalog and
/// the blob store with nothing lost: its name, run and upload time come from the sidecar; a
/// missing or damaged sidecar is rebuilt from the file when the file is what its name says;
/// what cannot be explained goes to `quarantine/`, never deleted. Each trace's old files go only
/// after its row is in, so an interrupted start resumes where it stopped.
struct LegacyDataDirectory {
    let store: TraceStore
    let dataDirectory: URL
    let logger: Logger

    var tracesDirectory: URL { dataDirectory.appendingPathComponent("traces", isDirectory: true) }

    func migrate() async throws {
        let files = FileManager.default
        guard let names = try? files.contentsOfDirectory(atPath: tracesDirectory.path) else { return }
        var moved = 0
        for name in names.sorted() where name.hasSuffix(".trace") {
            let id = String(name.dropLast(".trace".count))
            let file = tracesDirectory.appendingPathComponent(name)
            let sidecar = tracesDirectory.appendingPathComponent("\(id).json")
            let (sha256, size) = try sha256OfFile(file)
            var record = files.contents(atPath: sidecar.path).flatMap { try? JSONDecoder().decode(TraceRecord.self, from: $0) }
            // The record must be this file's: its id, its size, and an id that the bytes (and run) give.
            if let found = record, found.id != id || found.sizeBytes != size || TraceStore.uploadID(content: String(sha256.prefix(32)), run: found.run) != id {
                record = nil
            }
            if record == nil { record = await rebuild(id: id, file: file, sha256: sha256, size: size) }
            guard let record else {
                store.quarantine(file, reason: "it is not a readable trace with the content its name says")
                store.quarantine(sidecar, reason: "its trace was set aside")
                continue
            }
            // The record's description with this file's bytes; no tags (the layout predates them).
            var entry = record.stored
            (entry.sizeBytes, entry.sha256, entry.blobKey, entry.tags, entry.parserVersion) = (size, sha256, nil, [], 0)
            if entry.uploadedAtMicros == 0 { entry.uploadedAtMicros = Self.modificationMicros(file) }
            do {
                _ = try await store.commit(entry, file: file)
            } catch {
                logger.error("cannot move stored trace \(id) into the catalog (it stays in traces/ for the next start): \(error)")
                throw error
            }
            try? files.removeItem(at: file)
            try? files.removeItem(at: sidecar)
            moved += 1
        }
        // Sidecars without their trace file commit nothing.
        for name in (try? files.contentsOfDirectory(atPath: tracesDirectory.path)) ?? [] where name.hasSuffix(".json") {
            store.quarantine(tracesDirectory.appendingPathComponent(name), reason: "its trace file is missing")
        }
        if ((try? files.contentsOfDirectory(atPath: tracesDirectory.path)) ?? []).allSatisfy({ $0.hasPrefix(".") }) {
            try? files.removeItem(at: tracesDirectory)
        }
        if moved > 0 { logger.info("moved \(moved) stored trace(s) of the earlier data directory layout into the catalog") }
    }

    /// A record from the file itself, when its bytes give its id: the content's hash for run 1,
    /// or the hash of the content and one of the runs the file holds (`?run=N` uploads).
    private func rebuild(id: String, file: URL, sha256: String, size: Int64) async -> TraceRecord? {
        let content = String(sha256.prefix(32))
        guard var trace = try? await store.parse(file, displayName: id) else { return nil }
        var run: Int?
        if content != id {
            guard let found = trace.metadata.runs.first(where: { $0 != 1 && TraceStore.uploadID(content: content, run: $0) == id }),
                  let ofRun = try? await store.parse(file, displayName: id, run: found) else { return nil }
            (trace, run) = (ofRun, found)
        }
        logger.warning("rebuilt the damaged or missing record of stored trace \(id) from its file")
        return TraceRecord(entry: CatalogEntry(id: id, trace: trace, sizeBytes: size, sha256: sha256, run: run, uploadedAtMicros: Self.modificationMicros(file), parserVersion: 0))
    }

    static func modificationMicros(_ file: URL) -> Int64 {
        let date = (try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date) ?? Date()
        return Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }
}
