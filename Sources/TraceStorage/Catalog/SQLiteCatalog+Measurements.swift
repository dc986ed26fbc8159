import Foundation
import GRDB
import TraceModel

// The history's figures and check verdicts, in SQLite.
extension SQLiteCatalog {
    public func storeMeasurements(_ measurements: TraceMeasurements, id: String, measuredVersion: Int, parserVersion: Int) async throws -> Bool {
        try await call {
            try await self.pool.write { db in
                try db.execute(sql: "UPDATE traces SET parser_version = ? WHERE id = ?", arguments: [parserVersion, id])
                guard db.changesCount > 0 else { return false }
                for table in ["trace_totals", "view_measurements", "trace_findings"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE trace_id = ?", arguments: [id])
                }
                try Self.writeMeasurements(db, measurements, id: id, version: measuredVersion)
                return true
            }
        }
    }

    static func writeMeasurements(_ db: Database, _ measurements: TraceMeasurements, id: String, version: Int) throws {
        let totals = measurements.totals
        try db.execute(sql: """
            INSERT INTO trace_totals (trace_id, updates, hitches, hitch_ns, hangs, hang_ns, main_actor_busy_ns, main_actor_wait_ns, cpu_samples, cpu_weight)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [id, totals.updates, totals.hitches, totals.hitchNs, totals.hangs, totals.hangNs,
                             totals.mainActorBusyNs, totals.mainActorWaitNs, totals.cpuSamples, totals.cpuWeight])
        let view = try db.makeStatement(sql: """
            INSERT INTO view_measurements (trace_id, module, view, bodies, total_ns, p95_ns, orange, red, widest_fan_out) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for row in measurements.views {
            try view.execute(arguments: [id, row.module, row.view, row.bodies, row.totalNs, row.p95Ns, row.orange, row.red, row.widestFanOut])
        }
        let finding = try db.makeStatement(sql: "INSERT INTO trace_findings (trace_id, finding_id, kind, subject, severity, cost_ns) VALUES (?, ?, ?, ?, ?, ?)")
        for mark in measurements.findings {
            try finding.execute(arguments: [id, mark.id, mark.kind, mark.subject, mark.severity, mark.costNs])
        }
        try db.execute(sql: "UPDATE traces SET measured_version = ? WHERE id = ?", arguments: [version, id])
    }

    public func unmeasured(version: Int, limit: Int) async throws -> [CatalogEntry] {
        try await call {
            try await self.pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT \(CatalogSchema.columns) FROM traces WHERE measured_version <> ? ORDER BY uploaded_at_us, id LIMIT ?
                    """, arguments: [version, limit]).map(Self.entry(from:))
            }
        }
    }

    public func measurements(of ids: [String], views: MeasuredViews) async throws -> [String: TraceMeasurements] {
        guard !ids.isEmpty else { return [:] }
        return try await call {
            try await self.pool.read { db in
                var found: [String: TraceMeasurements] = [:]
                found.reserveCapacity(ids.count)
                let list = Self.idList(ids)
                // Cursors: each row read off the statement, not copied first (a history reads 2,000 traces' rows).
                let totalsRows = try Row.fetchCursor(db, sql: """
                    SELECT x.trace_id, updates, hitches, hitch_ns, hangs, hang_ns, main_actor_busy_ns, main_actor_wait_ns, cpu_samples, cpu_weight
                    \(Self.joiningIDList("trace_totals"))
                    """, arguments: [list])
                while let row = try totalsRows.next() {
                    var totals = TraceMeasurements.Totals()
                    (totals.updates, totals.hitches, totals.hitchNs, totals.hangs, totals.hangNs) = (row[1], row[2], row[3], row[4], row[5])
                    (totals.mainActorBusyNs, totals.mainActorWaitNs, totals.cpuSamples, totals.cpuWeight) = (row[6], row[7], row[8], row[9])
                    found[row[0]] = TraceMeasurements(totals: totals, views: [], findings: [])
                }
                if views != .none {
                    var arguments: StatementArguments = [list]
                    var viewFilter = ""
                    if case let .named(view) = views {
                        viewFilter = " AND x.view = ?"
                        arguments += [view]
                    }
                    let viewRows = try Row.fetchCursor(db, sql: """
                        SELECT x.trace_id, module, view, bodies, total_ns, p95_ns, orange, red, widest_fan_out \(Self.joiningIDList("view_measurements"))\(viewFilter)
                        """, arguments: arguments)
                    while let row = try viewRows.next() {
                        found[row[0]]?.views.append(TraceMeasurements.View(
                            module: row[1], view: row[2], bodies: row[3], totalNs: row[4], p95Ns: row[5], orange: row[6], red: row[7], widestFanOut: row[8]
                        ))
                    }
                }
                let findingRows = try Row.fetchCursor(db, sql: """
                    SELECT x.trace_id, finding_id, kind, subject, severity, cost_ns \(Self.joiningIDList("trace_findings"))
                    """, arguments: [list])
                while let row = try findingRows.next() {
                    found[row[0]]?.findings.append(TraceMeasurements.FindingMark(id: row[1], kind: row[2], subject: row[3], severity: row[4], costNs: row[5]))
                }
                for index in found.values.indices { found.values[index].putInReadOrder() }
                return found
            }
        }
    }

    public func topViews(of ids: [String], limit: Int) async throws -> [ViewTotal] {
        guard !ids.isEmpty, limit > 0 else { return [] }
        return try await call {
            try await self.pool.read { db in
                let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
                // TOTAL (a double) never fails on overflow as SUM does; the figure is clamped to Int64.
                return try Row.fetchAll(db, sql: """
                    SELECT module, view, TOTAL(total_ns) AS total FROM view_measurements WHERE trace_id IN (\(marks))
                    GROUP BY module, view ORDER BY total DESC, view, module LIMIT ?
                    """, arguments: StatementArguments(ids) + [limit]).map { row in
                    let total: Double = row[2]
                    return ViewTotal(module: row[0], view: row[1], totalNs: total >= 9.2e18 ? Int64.max : Int64(total))
                }
            }
        }
    }

    public func recordVerdict(_ verdict: CheckVerdict) async throws -> Bool {
        try await call {
            try await self.pool.write { db in
                guard try Self.fetch(db, id: verdict.traceID) != nil else { return false }
                try db.execute(sql: """
                    INSERT INTO check_verdicts (trace_id, passed, failed_rules, rules, baseline_id, summary, checked_at_us) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (trace_id) DO UPDATE SET passed = excluded.passed, failed_rules = excluded.failed_rules, rules = excluded.rules,
                        baseline_id = excluded.baseline_id, summary = excluded.summary, checked_at_us = excluded.checked_at_us
                    """, arguments: [verdict.traceID, verdict.passed ? 1 : 0, verdict.failedRules, verdict.rules, verdict.baselineID, verdict.summary,
                                     verdict.checkedAtMicros])
                return true
            }
        }
    }

    public func verdicts(of ids: [String]) async throws -> [String: CheckVerdict] {
        guard !ids.isEmpty else { return [:] }
        return try await call {
            try await self.pool.read { db in
                var found: [String: CheckVerdict] = [:]
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT x.trace_id, passed, failed_rules, rules, baseline_id, summary, checked_at_us \(Self.joiningIDList("check_verdicts"))
                    """, arguments: [Self.idList(ids)])
                while let row = try rows.next() {
                    let passed: Int = row[1]
                    found[row[0]] = CheckVerdict(traceID: row[0], passed: passed != 0, failedRules: row[2], rules: row[3], baselineID: row[4],
                                                 summary: row[5], checkedAtMicros: row[6])
                }
                return found
            }
        }
    }

    /// `ids` once each, as the JSON array `joiningIDList` binds: one parameter, however many
    /// ids (a history asks for 2,000), where a list of `?` was parsed and bound 500 at a time.
    /// Written here: JSONEncoder spent 12 % of a 2,000-trace history's CPU on three such lists.
    static func idList(_ ids: [String]) -> String {
        var seen = Set<String>(minimumCapacity: ids.count)
        var json = "["
        json.reserveCapacity(ids.count * 35 + 2)
        for id in ids where seen.insert(id).inserted {
            if seen.count > 1 { json += "," }
            json += "\""
            // Trace ids are hex; anything else is escaped as JSON wants it.
            if id.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
                json += id
            } else {
                for scalar in id.unicodeScalars {
                    switch scalar {
                    case "\"": json += "\\\""
                    case "\\": json += "\\\\"
                    case ..<" ": json += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
                    default: json.unicodeScalars.append(scalar)
                    }
                }
            }
            json += "\""
        }
        return json + "]"
    }

    /// `FROM …` of `table`'s rows (aliased `x`) of the ids bound as an `idList`: each id probes
    /// the table's key, outermost (CROSS JOIN keeps that order), where `trace_id IN (…)` first
    /// built a temporary index of the list (a third of these reads' CPU at 2,000 ids).
    static func joiningIDList(_ table: String) -> String {
        "FROM json_each(?) AS j CROSS JOIN \(table) AS x WHERE x.trace_id = j.value"
    }
}

extension TraceMeasurements {
    /// The order every catalog reads a trace's rows in: views by body time, the most first, ties
    /// by view and module name; findings by cost, ties by id (names in byte order, as SQLite's
    /// BINARY collation sorts them). Sorted per trace here: a few rows each, where an ORDER BY
    /// sorted every trace's rows together.
    fileprivate mutating func putInReadOrder() {
        if views.count > 1 {
            views.sort { a, b in
                if a.totalNs != b.totalNs { return a.totalNs > b.totalNs }
                if !a.view.utf8.elementsEqual(b.view.utf8) { return a.view.utf8.lexicographicallyPrecedes(b.view.utf8) }
                return a.module.utf8.lexicographicallyPrecedes(b.module.utf8)
            }
        }
        if findings.count > 1 {
            findings.sort { a, b in a.costNs != b.costNs ? a.costNs > b.costNs : a.id.utf8.lexicographicallyPrecedes(b.id.utf8) }
        }
    }
}
