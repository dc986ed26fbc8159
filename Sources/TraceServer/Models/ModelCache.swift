import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
    /// Most parses and loads that ran at once since the store opened.
    public var peakConcurrentLoads: Int { get async { await loadGate.peakRunning } }

    /// Whether a trace is in memory now (for tests and diagnostics).
    public func isInMemory(id: String) -> Bool { cache[id] != nil }

    /// Whether every trace of `ids` is stored (without loading any): a model in memory answers
    /// without asking the catalog.
    func containsAll(_ ids: [String]) async throws(StoreError) -> Bool {
        for id in ids where cache[id] == nil && samples[id] == nil {
            guard try await service({ try await self.storage.catalog.entry(id: id) }) != nil else { return false }
        }
        return true
    }

    func touch(_ id: String) {
        useCounter += 1
        cache[id]?.lastUse = useCounter
    }

    /// Bytes of trace models alive and loads in flight, now and at most since the store opened.
    public nonisolated var memoryInUse: Int { memory.used }
    public nonisolated var peakMemoryInUse: Int { memory.peakUsed }
    /// Loads waiting until the models that requests still hold are let go.
    public nonisolated var loadsWaitingForMemory: Int { memory.waiting }

    func insert(_ loaded: LoadedTrace, id: String) {
        prepareExtras(of: loaded, id: id, measure: false)
        useCounter += 1
        cache[id] = CacheSlot(loaded: loaded, lastUse: useCounter)
        if samples[id] == nil { footprints[id] = loaded.memory.bytes }
        evictOverBudget(keeping: id)
        evictForWaitingLoads()
    }

    /// Least recently used first, until every trace alive fits the budget; `keeping` (the trace
    /// just loaded) stays even if alone over budget. An evicted trace a request still uses is
    /// counted until the request ends.
    func evictOverBudget(keeping: String? = nil) {
        while memory.used > memory.limit, let victim = leastRecentlyUsed(except: keeping) {
            evict(victim)
        }
    }

    /// Loads are waiting for memory: evict what the cache alone holds for them.
    func evictForWaitingLoads() {
        while memory.isHoldingBackLoads, let victim = leastRecentlyUsed(except: nil) {
            evict(victim)
        }
    }

    func leastRecentlyUsed(except kept: String?) -> String? {
        cache.filter { $0.key != kept }.min { $0.value.lastUse < $1.value.lastUse }?.key
    }

    func evict(_ id: String) {
        guard let slot = cache.removeValue(forKey: id) else { return }
        TraceMetrics.cacheEvictions.increment()
        logger.debug("evicted trace \(id) (\(slot.loaded.memory.bytes) bytes) from memory")
    }
}
