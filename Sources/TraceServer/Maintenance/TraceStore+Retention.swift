import Foundation
import Logging
import ServiceLifecycle
import TraceCatalog
import TraceStorage

/// A trace that a retention rule or a delete by query removes (or would remove, in a dry run).
public struct DeletionCandidate: Sendable, Equatable {
    public var entry: CatalogEntry
    /// The retention rule that expired it; nil for a delete by query.
    public var rule: String?
}

extension TraceStore {
    /// Traces deleted per catalog transaction: a batch holds the catalog's write lock briefly,
    /// and reads (in memory, or the catalog's readers) go on between batches.
    static let deletionBatch = 250

    /// The uploads `policy` expires at `now` (µs), oldest first.
    public nonisolated func retentionCandidates(_ policy: RetentionPolicy, now: Int64 = CatalogEntry.nowMicros()) async throws(StoreError) -> [DeletionCandidate] {
        guard let before = policy.oldestKeptAfter(now: now) else { return [] }
        return try await matching(CatalogQuery(uploadedBefore: before, sort: .uploaded, descending: false)) { entry in
            policy.expiring(entry, now: now).map { DeletionCandidate(entry: entry, rule: $0.description) }
        }
    }

    /// The uploads `query` matches, oldest first, that `keep` turns into candidates.
    nonisolated func matching(_ query: CatalogQuery, _ candidate: (CatalogEntry) -> DeletionCandidate?) async throws(StoreError) -> [DeletionCandidate] {
        let catalog = storage.catalog
        var found: [DeletionCandidate] = []
        var cursor: CatalogCursor?
        repeat {
            let after = cursor
            let page = try await service { try await catalog.page(query, limit: 1000, after: after) }
            found += page.entries.compactMap(candidate)
            cursor = page.next
        } while cursor != nil
        return found
    }

    /// Deletes the candidates in batches, each recorded in the audit trail as `actor`'s before it is
    /// deleted; returns those deleted. A batch the audit log cannot record is not deleted, and the
    /// deleting stops there (`.auditUnavailable`): no trace goes without a record. (Another replica
    /// may delete some of a batch between its record and its delete: those are then recorded twice,
    /// once by each, and counted once, by the one that deleted them.)
    public func deleteAll(_ candidates: [DeletionCandidate], actor: String, detail: String) async throws(StoreError) -> [CatalogEntry] {
        let catalog = storage.catalog
        var deleted: [CatalogEntry] = []
        var index = 0
        while index < candidates.count {
            let batch = candidates[index..<min(candidates.count, index + Self.deletionBatch)]
            index += batch.count
            try await audit(batch.map { candidate in
                let because = candidate.rule.map { "retention rule \($0)" } ?? detail
                return AuditEvent(actor: actor, action: .delete, traceID: candidate.entry.id, traceName: candidate.entry.name, detail: because)
            }, outcome: "not made (the batch's \(batch.count) traces are kept, and the deleting stopped after \(deleted.count))")
            let ids = batch.map(\.entry.id)
            let removed = try await service { try await catalog.delete(ids: ids) }
            for entry in removed { await forgetDeleted(entry) }
            deleted += removed
            await Task.yield()
        }
        return deleted
    }

    /// One pass of the retention sweep: deletes what `policy` expires now; returns how many.
    @discardableResult
    public func applyRetention(_ policy: RetentionPolicy, now: Int64 = CatalogEntry.nowMicros()) async -> Int {
        guard policy.deletes else { return 0 }
        do {
            let started = ContinuousClock.now
            let candidates = try await retentionCandidates(policy, now: now)
            guard !candidates.isEmpty else { return 0 }
            let deleted = try await deleteAll(candidates, actor: RetentionSweep.actor, detail: "retention")
            logger.info("retention: deleted \(deleted.count) expired trace(s) in \(ContinuousClock.now - started)")
            return deleted.count
        } catch {
            logger.warning("retention: sweep stopped: \(error)")
            return 0
        }
    }
}

/// Applies the retention policy while the server runs: at start, then once per sweep interval.
struct RetentionSweep: Service {
    /// The audit trail's "who" of a retention delete.
    static let actor = "retention"

    let store: TraceStore
    let policy: RetentionPolicy
    let interval: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await store.applyRetention(policy)
                try? await Task.sleep(for: interval)
            }
        }
    }
}

extension TraceStore {
    /// After the catalog deleted the row: its quota, model and (embedded) bytes go too.
    func forgetDeleted(_ removed: CatalogEntry) async {
        quota.remove(bytes: removed.sizeBytes)
        await models.evict(removed.id, deleted: true)
        // One process owns embedded storage: the bytes go now, unless an upload of them is under way.
        // Shared storage: the sweep removes them after its grace period.
        if !storage.isShared {
            _ = await sweepBlob(removed.storedBlobKey, writtenAt: 0, cutoff: .max)
        }
    }
}
