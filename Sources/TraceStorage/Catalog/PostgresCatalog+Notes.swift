import Foundation
import Logging
import PostgresNIO
import TraceModel

// Notes on a trace's evidence, in PostgreSQL.
extension PostgresCatalog {
    public func addNote(_ note: TraceNote, maxPerTrace: Int) async throws -> NoteAddition {
        let target = note.targetColumns
        return try await call("add note") {
            try await self.client.withTransaction(logger: self.logger) { connection in
                // The trace's row lock orders concurrent adds (on any replica): each counts after the
                // one before it committed. One statement could not: its count would be of the snapshot
                // taken before it waited for the lock.
                var found = false
                for try await _ in try await connection.query("SELECT id FROM traces WHERE id = \(note.traceID) FOR UPDATE", logger: self.logger) {
                    found = true
                }
                guard found else { return .unknownTrace }
                var count: Int64 = 0
                for try await value in try await connection.query("SELECT COUNT(*) FROM trace_notes WHERE trace_id = \(note.traceID)", logger: self.logger)
                    .decode(Int64.self) { count = value }
                guard count < Int64(maxPerTrace) else { return .full }
                try await connection.query("""
                    INSERT INTO trace_notes (\(unescaped: CatalogSchema.noteColumns))
                    VALUES (\(note.id), \(note.traceID), \(target.kind), \(target.update), \(target.start), \(target.end), \(target.finding), \(note.text), \(note.createdAtMicros))
                    """, logger: self.logger)
                return .added
            }
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
