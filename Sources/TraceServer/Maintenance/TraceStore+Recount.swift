import Foundation
import Metrics
import TraceStorage

extension TraceStore {
    /// Counts the catalog's traces per tag again and repairs the counts that drifted (a list's
    /// total and the quotas read them): a replica older than the counts stores, retags and
    /// deletes without keeping them, while a rolling upgrade runs. Returns how many scopes were
    /// repaired; each is logged and counted as `tracesvc_sweep_repaired_total{what="trace_counts"}`.
    @discardableResult
    public func recountTraces() async -> Int {
        let repairs: [TraceCountRepair]
        do {
            repairs = try await storage.catalog.recountTraces()
        } catch {
            // The catalog's failures are counted by its calls; the next pass tries again.
            logger.warning("sweep: cannot recount the traces: \(error)")
            return 0
        }
        guard !repairs.isEmpty else { return 0 }
        let shown = repairs.prefix(5).map(\.description).joined(separator: "; ")
        logger.warning(
            "sweep: repaired the counts of \(repairs.count) scope(s) that drifted from the rows (a replica older than this catalog's schema wrote without counting?): \(shown)\(repairs.count > 5 ? "; …" : "")"
        )
        Counter(label: "tracesvc_sweep_repaired_total", dimensions: [("what", "trace_counts")]).increment(by: repairs.count)
        // One process owns an embedded catalog: its storage quota was read from the counts at start.
        if !storage.isShared { try? await refreshQuota() }
        return repairs.count
    }
}
