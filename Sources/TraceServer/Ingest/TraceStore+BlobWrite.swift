import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
    /// Blob, then row. The blob is claimed first, so a sweep running meanwhile (here or on
    /// another replica) keeps it; a crash between the two leaves an unnamed blob for the sweep.
    func commit(_ entry: CatalogEntry, measurements: TraceMeasurements? = nil, file: URL) async throws(StoreError) -> (entry: CatalogEntry, isNew: Bool) {
        let write = await beginBlobWrite(key: entry.sha256, file: file, size: entry.sizeBytes)
        return try await finish(write, entry: entry, measurements: measurements)
    }

    /// A blob being written (claimed, then put) in a task of its own, so an upload's import runs
    /// meanwhile. Counted in `blobsBeingWritten` until `finish` or `abandon`, so no sweep here
    /// removes it in between.
    struct BlobWrite: Sendable {
        /// The key claimed in `blobsBeingWritten`.
        let key: String
        /// The key the row will name, and whether this write stored the bytes (false: they were there already).
        let task: Task<(key: String, stored: Bool), any Error>
    }

    func beginBlobWrite(key: String, file: URL, size: Int64) async -> BlobWrite {
        while blobsBeingSwept.contains(key) { try? await Task.sleep(for: .milliseconds(10)) }
        blobsBeingWritten[key, default: 0] += 1
        let storage = storage
        // Detached: the put must not run on this actor (a local store's fsync would hold it).
        let logger = logger
        return BlobWrite(key: key, task: Task.detached { () async throws -> (key: String, stored: Bool) in
            try await storage.catalog.claimBlob(key)
            let started = ContinuousClock.now
            let stored = try await storage.blobs.put(key: key, file: file, size: size)
            logger.debug("blob \(key.prefix(12)) stored in \((ContinuousClock.now - started).wholeMilliseconds) ms")
            return (key, stored)
        })
    }

    /// Starts sending an upload's blob while it arrives, when the blob store can (team mode) and
    /// the body is bigger than one part; nil otherwise (the blob is written once it is whole).
    nonisolated func beginStreamedBlob(file: URL, declaredLength: Int64) -> StreamedBlob? {
        guard let blobs = storage.blobs as? any StreamingBlobStore, declaredLength > Int64(blobs.partBytes) else { return nil }
        return StreamedBlob(store: blobs, file: file, logger: logger)
    }

    /// The end of a streamed blob, once its content hash is known: when a row already names a
    /// blob of that content, the stream is dropped and that blob is named (claimed first, so a
    /// sweep keeps it); otherwise the stream is completed under its own key (claimed first too).
    /// Any failure drops the stream: nothing stored.
    func beginStreamedBlobWrite(_ streamed: StreamedBlob, sha256: String) -> BlobWrite {
        blobsBeingWritten[streamed.key, default: 0] += 1
        let catalog = storage.catalog
        return BlobWrite(key: streamed.key, task: Task.detached { () async throws -> (key: String, stored: Bool) in
            do {
                try await streamed.partsSent()
                if let existing = try await catalog.blobKey(ofContent: sha256) {
                    try await catalog.claimBlob(existing)
                    // Still named after the claim: no sweep removes it before this upload's row names it too.
                    if try await catalog.blobKey(ofContent: sha256) == existing {
                        await streamed.abort()
                        return (existing, false)
                    }
                }
                try await catalog.claimBlob(streamed.key)
                try await streamed.complete()
                return (streamed.key, true)
            } catch {
                await streamed.abort()
                throw error
            }
        })
    }

    /// Row after blob: waits for the write, then names it. A streamed blob that ends up unnamed
    /// (the same trace was stored meanwhile, or the row could not be written) is removed now:
    /// no other upload knows its key.
    func finish(_ write: BlobWrite, entry: CatalogEntry, measurements: TraceMeasurements?) async throws(StoreError) -> (entry: CatalogEntry, isNew: Bool) {
        defer { endBlobWrite(write.key) }
        let storage = storage, quotas = configuration.tagQuotas
        return try await service {
            let (key, stored) = try await write.task.value
            var entry = entry
            entry.blobKey = key == entry.sha256 ? nil : key
            let inserted: (entry: CatalogEntry, isNew: Bool)
            do {
                inserted = try await storage.catalog.insert(entry, measurements: measurements, measuredVersion: measurements == nil ? 0 : Self.measuredVersion,
                                                            within: quotas)
            } catch {
                if stored, isStreamedBlobKey(key) { try? await storage.blobs.delete(key: key) }
                throw error
            }
            if !inserted.isNew, stored, isStreamedBlobKey(key) { try? await storage.blobs.delete(key: key) }
            return inserted
        }
    }

    /// An upload that will not be stored: its blob write stops, and bytes it stored are removed
    /// now when this process owns the storage, or when they are under a streamed upload's own key.
    /// Otherwise (shared storage, content key) the sweep removes them after the claim's grace
    /// period, since another replica may be storing the same bytes meanwhile.
    func abandon(_ write: BlobWrite) async {
        write.task.cancel()
        let result = try? await write.task.value
        endBlobWrite(write.key)
        guard let result, result.stored else { return }
        if isStreamedBlobKey(result.key) {
            try? await storage.blobs.delete(key: result.key)
        } else if !storage.isShared {
            _ = await sweepBlob(result.key, writtenAt: 0, cutoff: .max)
        }
    }

    func endBlobWrite(_ key: String) {
        blobsBeingWritten[key, default: 1] -= 1
        if blobsBeingWritten[key] == 0 { blobsBeingWritten[key] = nil }
    }
}
