import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
    /// Follows the other replicas' deletes (evicting their models here), sweeps blobs that no
    /// row names, repairs the trace counts that drifted from the rows and measures traces whose
    /// history figures are missing or old, until cancelled.
    /// Runs in the server's service group.
    public func maintain() async {
        let changes = storage.catalog.changes()
        let interval = Self.sweepInterval(grace: configuration.sweepGrace)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await change in changes { await self.apply(change) }
            }
            group.addTask {
                while !Task.isCancelled {
                    _ = await self.sweepUnnamedBlobs()
                    await self.recountTraces()
                    try? await Task.sleep(for: interval)
                }
            }
            group.addTask { await self.measureInBackground() }
            await group.waitForAll()
        }
    }

    func apply(_ change: CatalogChange) async {
        switch change {
        case let .deleted(id):
            if await models.evict(id, deleted: true) { logger.info("trace \(id) was deleted on another replica: dropped from memory") }
        case .resync:
            // Deletes said while the listener was disconnected were lost: ask about every model in memory.
            for id in await models.idsInMemory where samples[id] == nil {
                do {
                    if try await storage.catalog.entry(id: id) == nil { await models.evict(id, deleted: true) }
                } catch {
                    // A catalog that does not answer now keeps the model: the next re-check decides.
                }
            }
        }
    }
}
