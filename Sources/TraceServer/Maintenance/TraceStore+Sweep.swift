import Foundation
import Metrics
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
    /// How often the sweep runs: once per grace period, but at least every 10 minutes and at most
    /// every minute (a grace of 0 would otherwise list the bucket and its uploads without pause).
    static func sweepInterval(grace: Duration) -> Duration {
        min(.seconds(600), max(.seconds(60), grace))
    }

    /// Deletes blobs older than the grace period that no row names; returns how many.
    public func sweepUnnamedBlobs() async -> Int {
        let cutoff = CatalogEntry.nowMicros() - Int64(configuration.sweepGrace.components.seconds) * 1_000_000
        let blobs: [StoredBlob]
        do {
            blobs = try await storage.blobs.list()
        } catch {
            logger.warning("sweep: cannot list blobs: \(error)")
            Counter(label: "tracesvc_sweep_failures_total").increment()
            return 0
        }
        var removed = 0
        for blob in blobs {
            let writtenAt = Int64(blob.modified.timeIntervalSince1970 * 1_000_000)
            guard writtenAt < cutoff else { continue }
            if await sweepBlob(blob.key, writtenAt: writtenAt, cutoff: cutoff) { removed += 1 }
        }
        if removed > 0 { logger.info("sweep: removed \(removed) blob(s) that no trace names") }
        let aborted = await abortAbandonedUploads(before: cutoff)
        Counter(label: "tracesvc_sweep_runs_total").increment()
        Counter(label: "tracesvc_sweep_removed_total", dimensions: [("what", "blob")]).increment(by: removed)
        Counter(label: "tracesvc_sweep_removed_total", dimensions: [("what", "upload")]).increment(by: aborted)
        Gauge(label: "tracesvc_sweep_last_run_timestamp_seconds").record(Date().timeIntervalSince1970)
        return removed + aborted
    }

    /// Aborts streamed uploads started before `cutoff` (microseconds) and never completed nor
    /// aborted (their replica died mid-upload); returns how many. One whose body is still arriving
    /// here is kept however slow it is (`StreamedBlob.isInProgress`), and so is one whose last
    /// part arrived after `cutoff` (another replica is still sending it); when the store cannot
    /// say, the upload is kept until the next sweep.
    func abortAbandonedUploads(before cutoff: Int64) async -> Int {
        guard let blobs = storage.blobs as? any StreamingBlobStore else { return 0 }
        let pending: [PendingUpload]
        do {
            pending = try await blobs.pendingUploads()
        } catch {
            logger.warning("sweep: cannot list unfinished uploads: \(error)")
            return 0
        }
        var aborted = 0
        for upload in pending where Int64(upload.initiated.timeIntervalSince1970 * 1_000_000) < cutoff && blobsBeingWritten[upload.key] == nil
            && !StreamedBlob.isInProgress(upload.key) {
            do {
                if let last = try await blobs.lastPartUploaded(key: upload.key, uploadID: upload.uploadID),
                   Int64(last.timeIntervalSince1970 * 1_000_000) >= cutoff { continue }
            } catch {
                logger.warning("sweep: cannot list the parts of the unfinished upload of \(upload.key), kept: \(error)")
                continue
            }
            do {
                try await blobs.abortMultipartUpload(key: upload.key, uploadID: upload.uploadID)
                aborted += 1
            } catch {
                logger.warning("sweep: cannot abort the unfinished upload of \(upload.key): \(error)")
            }
        }
        if aborted > 0 { logger.info("sweep: aborted \(aborted) unfinished upload(s)") }
        return aborted
    }

    func sweepBlob(_ key: String, writtenAt: Int64, cutoff: Int64) async -> Bool {
        guard blobsBeingWritten[key] == nil, !blobsBeingSwept.contains(key) else { return false }
        blobsBeingSwept.insert(key)
        defer { blobsBeingSwept.remove(key) }
        let blobs = storage.blobs
        do {
            return try await storage.catalog.releaseBlob(key, writtenAt: writtenAt, cutoff: cutoff) { try await blobs.delete(key: key) }
        } catch {
            logger.warning("sweep: cannot remove blob \(key): \(error)")
            return false
        }
    }
}
