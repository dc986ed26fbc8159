import Foundation
import Logging
import TraceCatalog
import TraceStorage

extension TraceStore {
    /// Records changes in the audit trail: no change stands unrecorded. A failure is counted
    /// (`tracesvc_audit_failures_total`), logged with the whole events (so that they are not
    /// lost), and thrown as `.auditUnavailable`, naming the audit log and saying what `outcome`
    /// the caller gives the change (not made, undone, or made).
    nonisolated func audit(_ events: [AuditEvent], outcome: String) async throws(StoreError) {
        guard !events.isEmpty else { return }
        do {
            try await storage.catalog.recordAudit(events)
        } catch {
            TraceMetrics.auditFailures(events.count)
            let listed = events.prefix(20).map { "\($0.action.rawValue) \($0.traceID ?? "-") by \($0.actor)" }.joined(separator: "; ")
            logger.error("audit: \(events.count) change(s) not recorded, \(outcome) (\(listed)\(events.count > 20 ? "; …" : "")): \(error)")
            throw .auditUnavailable("The audit log (the audit_events table of the \(storage.catalog.serviceName)) could not record this change, so it was \(outcome): \(String(describing: error).prefix(300)). Try again when the catalog accepts writes.")
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
    // What cannot be recorded is not done: a delete is recorded before it is made; an addition
    // after, and undone when its record fails.

    func add(_ received: ReceivedUpload, run: Int?, tags: [TraceTag], retag: Bool, by actor: String) async throws(StoreError) -> Added {
        let added = try await add(received, run: run, tags: tags, retag: retag)
        let given = tags.isEmpty ? "" : "; tags: " + tags.map(\.text).joined(separator: ", ")
        let event = AuditEvent(actor: actor, action: .upload, traceID: added.record.id, traceName: added.record.name,
                               detail: (added.isNew ? "new" : "already stored") + given)
        do {
            try await audit([event], outcome: added.isNew ? "not kept" : "not recorded (its bytes were stored before)")
        } catch {
            if added.isNew { try? await delete(id: added.record.id) }
            throw error
        }
        return added
    }

    func setTags(_ tags: [TraceTag], of record: TraceRecord, by actor: String) async throws(StoreError) -> TraceRecord {
        let tagged = try await setTags(tags, id: record.id)
        do {
            try await audit([AuditEvent(actor: actor, action: .tags, traceID: record.id, traceName: tagged.name,
                                        detail: "tags: " + (tagged.tags.isEmpty ? "none" : tagged.tags.joined(separator: ", ")))],
                            outcome: "undone (the earlier tags are back)")
        } catch {
            // The earlier tags come back whatever the quotas say now: they held them a moment ago.
            if let earlier = try? TraceTag.parseAll(record.tags) { _ = try? await storage.catalog.setTags(earlier, id: record.id) }
            throw error
        }
        return tagged
    }

    func delete(id: TraceID, by actor: String) async throws(StoreError) {
        // A sample or an unknown id is refused before anything is recorded.
        try refuseSample(id.text)
        let name = try await record(id: id).name
        try await audit([AuditEvent(actor: actor, action: .delete, traceID: id.text, traceName: name, detail: "")], outcome: "not made (the trace is kept)")
        try await delete(id: id.text)
    }

    func addNote(to record: TraceRecord, target: TraceNote.Target, text: String, by actor: String) async throws(StoreError) -> TraceNote {
        let note = try await addNote(traceID: record.id, target: target, text: text)
        do {
            try await audit([AuditEvent(actor: actor, action: .note, traceID: record.id, traceName: record.name,
                                        detail: "note \(note.id) on \(target.kind): \(text.prefix(120))")],
                            outcome: "undone (the note is not kept)")
        } catch {
            _ = try? await deleteNote(id: note.id, traceID: record.id)
            throw error
        }
        return note
    }

    /// False when the trace has no such note (nothing is recorded).
    func deleteNote(id: String, traceID: String, by actor: String) async throws(StoreError) -> Bool {
        try refuseSample(traceID)
        guard try await notes(traceID: traceID).contains(where: { $0.id == id }) else { return false }
        let name = try? await record(id: traceID).name
        try await audit([AuditEvent(actor: actor, action: .noteDeleted, traceID: traceID, traceName: name, detail: "note \(id)")],
                        outcome: "not made (the note is kept)")
        return try await deleteNote(id: id, traceID: traceID)
    }
}

extension TraceRequestContext {
    /// The audit trail's "who" of this request.
    var actor: String { identity?.name ?? AccessIdentity.open.name }
}
