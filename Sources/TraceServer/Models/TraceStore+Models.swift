import Foundation
import TraceModel
import TraceStorage

/// The store's face of its model cache (`ModelCache`, an actor of its own): none of these waits
/// for the store's actor, so a cache hit never queues behind upload or catalog bookkeeping.
extension TraceStore {
    /// The trace with this id, loading it if needed.
    public nonisolated func trace(id: String) async throws(StoreError) -> Trace {
        try await models.loaded(id: id).trace
    }

    /// The model of `id` from memory or loaded (`ModelCache.loaded`); `alongside`: models the
    /// caller keeps using meanwhile (a compare's sides loaded before this one).
    public nonisolated func loaded(id: String, alongside held: [LoadedTrace] = []) async throws(StoreError) -> LoadedTrace {
        try await models.loaded(id: id, alongside: held)
    }

    /// Whether a trace is in memory now (for tests and diagnostics).
    public nonisolated func isInMemory(id: String) async -> Bool { await models.isInMemory(id: id) }

    /// Loads started since the store opened (concurrent requests share one).
    public nonisolated var loadsStarted: Int { get async { await models.loadsStarted } }

    /// Most parses and loads that ran at once since the store opened.
    public nonisolated var peakConcurrentLoads: Int { get async { await loadGate.peakRunning } }

    /// Every trace model alive and every load in flight.
    nonisolated var memory: MemoryBudget { models.memory }
    nonisolated var loadGate: WorkGate { models.loadGate }

    /// Bytes of trace models alive and loads in flight, now and at most since the store opened.
    public nonisolated var memoryInUse: Int { memory.used }
    public nonisolated var peakMemoryInUse: Int { memory.peakUsed }
    /// Loads waiting until the models that requests still hold are let go.
    public nonisolated var loadsWaitingForMemory: Int { memory.waiting }

    /// A compressed upload may inflate to at most this many times its size (`ModelCache.maxInflationRatio`).
    public static var maxInflationRatio: Int64 { ModelCache.maxInflationRatio }

    nonisolated func memoryEstimate(ofFile file: URL, size: Int64? = nil) -> Int { models.memoryEstimate(ofFile: file, size: size) }
    nonisolated func maxInflatedBytes(ofUpload size: Int64) -> Int64 { models.maxInflatedBytes(ofUpload: size) }

    /// A compare's memory, claimed before any of its sides is held (`ModelCache.reserveMemory`).
    nonisolated func reserveMemory(forLoading ids: [String]) async throws(StoreError) -> MemoryBudget.Claim? {
        try await models.reserveMemory(forLoading: ids)
    }

    nonisolated func prepareExtras(of loaded: LoadedTrace, id: String, measure: Bool) async {
        await models.prepareExtras(of: loaded, id: id, measure: measure)
    }

    /// The server is stopping: the extras being built in the background stop (`ModelCache.cancelBackgroundBuilds`).
    nonisolated func cancelBackgroundBuilds() async {
        await models.cancelBackgroundBuilds()
    }

    nonisolated func waitForExtras(of ids: [String]) async throws(StoreError) {
        try await models.waitForExtras(of: ids)
    }

    /// Whether every trace of `ids` is stored (without loading any): a model in memory answers
    /// without asking the catalog, and nothing waits for the store's actor (the 304 path).
    nonisolated func containsAll(_ ids: [String]) async throws(StoreError) -> Bool {
        for id in ids where samples[id] == nil {
            guard await !models.isInMemory(id: id) else { continue }
            guard try await service({ try await self.storage.catalog.entry(id: id) }) != nil else { return false }
        }
        return true
    }

    /// The server is stopping: loads waiting for memory are refused now rather than holding the
    /// shutdown past its grace.
    nonisolated func refuseWaitingLoads() {
        memory.close()
    }
}
