import Foundation
import Logging
import TraceCatalog
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

    /// Who uploaded the trace last (the audit trail's newest upload of it); nil for a sample, and
    /// when the trail has none (uploaded before it was kept) or cannot answer now.
    nonisolated func uploader(of record: TraceRecord) async -> String? {
        guard !record.isSample else { return nil }
        return try? await storage.catalog.auditEvents(AuditQuery(traceID: record.id, action: .upload), limit: 1, after: nil).first?.actor
    }

    // MARK: The writes, recorded

    func add(_ received: ReceivedUpload, run: Int?, tags: [TraceTag], retag: Bool, by actor: String) async throws(StoreError) -> Added {
        let added = try await add(received, run: run, tags: tags, retag: retag)
        let given = tags.isEmpty ? "" : "; tags: " + tags.map(\.text).joined(separator: ", ")
        await audit([AuditEvent(actor: actor, action: .upload, traceID: added.record.id, traceName: added.record.name,
                                detail: (added.isNew ? "new" : "already stored") + given)])
        return added
    }

    func setTags(_ tags: [TraceTag], of record: TraceRecord, by actor: String) async throws(StoreError) -> TraceRecord {
        let tagged = try await setTags(tags, id: record.id)
        await audit([AuditEvent(actor: actor, action: .tags, traceID: record.id, traceName: tagged.name,
                                detail: "tags: " + (tagged.tags.isEmpty ? "none" : tagged.tags.joined(separator: ", ")))])
        return tagged
    }

    func delete(id: TraceID, by actor: String) async throws(StoreError) {
        let name = try? await record(id: id).name
        try await delete(id: id.text)
        await audit([AuditEvent(actor: actor, action: .delete, traceID: id.text, traceName: name, detail: "")])
    }

    func addNote(to record: TraceRecord, target: TraceNote.Target, text: String, by actor: String) async throws(StoreError) -> TraceNote {
        let note = try await addNote(traceID: record.id, target: target, text: text)
        await audit([AuditEvent(actor: actor, action: .note, traceID: record.id, traceName: record.name,
                                detail: "note \(note.id) on \(target.kind): \(text.prefix(120))")])
        return note
    }

    /// False when the trace has no such note (nothing is recorded).
    func deleteNote(id: String, traceID: String, by actor: String) async throws(StoreError) -> Bool {
        guard try await deleteNote(id: id, traceID: traceID) else { return false }
        let name = try? await record(id: traceID).name
        await audit([AuditEvent(actor: actor, action: .noteDeleted, traceID: traceID, traceName: name, detail: "note \(id)")])
        return true
    }
}

extension TraceRequestContext {
    /// The audit trail's "who" of this request.
    var actor: String { identity?.name ?? AccessIdentity.open.name }
}
