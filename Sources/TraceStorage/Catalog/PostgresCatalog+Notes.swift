import Foundation
import Logging
import PostgresNIO
import TraceModel

// Notes on a trace's evidence, in PostgreSQL.
extension PostgresCatalog {
    public func addNote(_ note: TraceNote) async throws -> Bool {
        let target = note.targetColumns
        return try await call("add note") {
            var added = false
            // Inserted only while its trace exists (the foreign key would refuse it anyway, as a server error).
            for try await _ in try await self.client.query("""
                INSERT INTO trace_notes (\(unescaped: CatalogSchema.noteColumns))
                SELECT \(note.id), id, \(target.kind), \(target.update), \(target.start), \(target.end), \(target.finding), \(note.text), \(note.createdAtMicros)
                FROM traces WHERE id = \(note.traceID) RETURNING id
                """, logger: self.logger) { added = true }
            return added
        }
    }

    public func notes(traceID: String) async throws -> [TraceNote] {
        try await call("notes") {
            var notes: [TraceNote] = []
            for try await (id, trace, kind, update, start, end, finding, text, createdAt) in try await self.client.query("""
                SELECT \(unescaped: CatalogSchema.noteColumns) FROM trace_notes WHERE trace_id = \(traceID) ORDER BY created_at_us, id COLLATE "C"
                """, logger: self.logger).decode((String, String, String, Int64?, Int64?, Int64?, String?, String, Int64).self) {
                if let note = TraceNote(id: id, traceID: trace, kind: kind, update: update, start: start, end: end, finding: finding, text: text,
                                        createdAtMicros: createdAt) {
                    notes.append(note)
                }
            }
            return notes
        }
    }

    public func deleteNote(id: String, traceID: String) async throws -> Bool {
        try await call("delete note") {
            var deleted = false
            for try await _ in try await self.client.query("DELETE FROM trace_notes WHERE id = \(id) AND trace_id = \(traceID) RETURNING id", logger: self.logger) {
                deleted = true
            }
            return deleted
        }
    }
}
