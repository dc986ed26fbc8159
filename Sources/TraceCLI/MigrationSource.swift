import Foundation
import Logging
import TraceServer
import TraceStorage

/// The data directory `tracesvc migrate` copies from, opened so that it is only ever read: its
/// catalog is opened as a copy in a folder of our own (SQLite writes beside a database it opens,
/// and would migrate one of an older release in place), its blobs are read where they are. A
/// directory of the layout before the catalog is copied whole, and the copy is moved into a catalog
/// as `serve` would move the original.
struct MigrationSource {
    let catalog: any Catalog
    let blobs: any BlobStore
    /// Our copy, removed by `close`.
    let snapshot: URL

    static func open(_ directory: URL, logger: Logger) async throws -> MigrationSource {
        let files = FileManager.default
        let snapshot = files.temporaryDirectory.appendingPathComponent("tracesvc-migrate-\(UUID().uuidString)", isDirectory: true)
        try files.createDirectory(at: snapshot, withIntermediateDirectories: true)
        do {
            let catalogFile = directory.appendingPathComponent("catalog.sqlite")
            guard files.fileExists(atPath: catalogFile.path) else {
                let copy = snapshot.appendingPathComponent("data", isDirectory: true)
                try files.copyItem(at: directory, to: copy)
                let store = try await TraceStore.open(.init(dataDirectory: copy, samplesDirectory: nil, memoryBudgetBytes: 256 << 20), logger: logger)
                return MigrationSource(catalog: store.storage.catalog, blobs: store.storage.blobs, snapshot: snapshot)
            }
            for suffix in ["", "-wal", "-shm"] where files.fileExists(atPath: catalogFile.path + suffix) {
                try files.copyItem(atPath: catalogFile.path + suffix, toPath: snapshot.appendingPathComponent("catalog.sqlite" + suffix).path)
            }
            // The blobs are read where they are, through a link in our folder.
            let blobFolder = directory.appendingPathComponent("blobs", isDirectory: true)
            if files.fileExists(atPath: blobFolder.path) {
                try files.createSymbolicLink(at: snapshot.appendingPathComponent("blobs"), withDestinationURL: blobFolder)
            }
            let storage = try TraceStore.Storage.embedded(in: snapshot)
            return MigrationSource(catalog: storage.catalog, blobs: storage.blobs, snapshot: snapshot)
        } catch {
            try? files.removeItem(at: snapshot)
            throw error
        }
    }

    func close() {
        try? FileManager.default.removeItem(at: snapshot)
    }
}

/// What `tracesvc migrate` did with one kind of thing, for its report.
struct MigrationCount {
    var copied = 0
    var present = 0
    var failed = 0

    func line(_ kind: String) -> String {
        "migrate: \(kind): \(copied) copied, \(present) already there, \(failed) failed"
    }

    /// One row: already in the target, else copied when `copy` says it was stored, else failed.
    mutating func add(present isPresent: Bool, copy: () async throws -> Bool) async rethrows {
        if isPresent { present += 1 } else if try await copy() { copied += 1 } else { failed += 1 }
    }

    /// A part of a trace that could not be read or written: counted, and named on standard error.
    mutating func fail(_ id: String, _ name: String, _ part: String, _ error: any Error) {
        failed += 1
        CommandContext.printError("migrate: \(id) \(name): \(part): \(error)")
    }
}
