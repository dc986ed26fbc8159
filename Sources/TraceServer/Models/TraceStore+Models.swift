extension TraceStore {
    /// Claims at once the memory of every trace among `ids` that must be loaded (a compare's
    /// sides), before the caller holds any of them: a compare gets the memory of all its sides or
    /// waits holding none, so compares over traces that do not all fit never wait for each other
    /// in a ring. Nil when every one is in memory or being loaded. The loads take their share
    /// (`loaded(id:alongside:reservation:)`); what is left is given back with the claim.
    func reserveMemory(forLoading ids: [String]) async throws(StoreError) -> MemoryBudget.Claim? {
        var total = 0
        var seen: Set<String> = []
        for id in ids where seen.insert(id).inserted {
            total = total.addingReportingOverflow(try await loadEstimate(of: id) ?? 0).partialValue
        }
        guard total > 0 else { return nil }
        do { return try await memory.claim(total) } catch { throw Self.storeError(error) }
    }

    /// The server is stopping: loads waiting for memory are refused now rather than holding the
    /// shutdown past its grace.
    nonisolated func refuseWaitingLoads() {
        memory.close()
    }
}
