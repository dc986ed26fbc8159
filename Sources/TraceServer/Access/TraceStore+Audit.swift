import Foundation
import Logging
import TraceStorage

extension TraceStore {
    /// Records changes in the audit trail. The change is made by then: a catalog that cannot
    /// record it takes nothing back, and the failure is logged as an error.
    nonisolated func audit(_ events: [AuditEvent]) async {
        guard !events.isEmpty else { return }
        do {
            try await storage.catalog.recordAudit(events)
        } catch {
            logger.error("audit: \(events.count) change(s) made but not recorded (\(events.first?.action.rawValue ?? "") by \(events.first?.actor ?? "")): \(error)")
        }
    }

    /// Newest first, at most `limit`, and where the next page starts.
    nonisolated func auditPage(_ query: AuditQuery, limit: Int, after cursor: AuditCursor?) async throws(StoreError) -> (events: [AuditEvent], next: AuditCursor?) {
        let catalog = storage.catalog
        let events = try await service { try await catalog.auditEvents(query, limit: limit + 1, after: cursor) }
        let page = Array(events.prefix(limit))
        return (page, events.count > limit ? page.last.map(AuditCursor.init(after:)) : nil)
    }

    /// Who uploaded the trace last (the audit trail's newest upload of it); nil when the trail
    /// has none (uploaded before it was kept) or cannot answer now.
    nonisolated func uploader(of id: String) async -> String? {
        try? await storage.catalog.auditEvents(AuditQuery(traceID: id, action: .upload), limit: 1, after: nil).first?.actor
    }
}

extension TraceRequestContext {
    /// The audit trail's "who" of this request.
    var actor: String { identity?.name ?? AccessIdentity.open.name }
}
