import Foundation
import Logging
import PostgresNIO
import TraceModel

// The history's figures and check verdicts, in PostgreSQL.
extension PostgresCatalog {
    static func writeMeasurements(_ connection: PostgresConnection, _ measurements: TraceMeasurements, id: String, version: Int, logger: Logger) async throws {
        let totals = measurements.totals
        try await connection.query("""
            INSERT INTO trace_totals (trace_id, updates, hitches, hitch_ns, hangs, hang_ns, main_actor_busy_ns, main_actor_wait_ns, cpu_samples, cpu_weight)
            VALUES (\(id), \(totals.updates), \(totals.hitches), \(totals.hitchNs), \(totals.hangs), \(totals.hangNs), \(totals.mainActorBusyNs),
                    \(totals.mainActorWaitNs), \(totals.cpuSamples), \(totals.cpuWeight))
            """, logger: logger)
        // One statement per table, whatever the number of rows.
        let views = measurements.views
        try await connection.query("""
            INSERT INTO view_measurements (trace_id, module, view, bodies, total_ns, p95_ns, orange, red, widest_fan_out)
            SELECT \(id), * FROM UNNEST(\(views.map(\.module))::text[], \(views.map(\.view))::text[], \(views.map(\.bodies))::bigint[],
                \(views.map(\.totalNs))::bigint[], \(views.map(\.p95Ns))::bigint[], \(views.map(\.orange))::bigint[], \(views.map(\.red))::bigint[],
                \(views.map(\.widestFanOut))::bigint[])
            """, logger: logger)
        let findings = measurements.findings
        try await connection.query("""
            INSERT INTO trace_findings (trace_id, finding_id, kind, subject, severity, cost_ns)
            SELECT \(id), * FROM UNNEST(\(findings.map(\.id))::text[], \(findings.map(\.kind))::text[], \(findings.map(\.subject))::text[],
                \(findings.map(\.severity))::text[], \(findings.map(\.costNs))::bigint[])
            """, logger: logger)
        try await connection.query("UPDATE traces SET measured_version = \(Int32(version)) WHERE id = \(id)", logger: logger)
    }

    public func storeMeasurements(_ measurements: TraceMeasurements, id: String, measuredVersion: Int, parserVersion: Int) async throws -> Bool {
        try await call("store measurements") {
            try await self.client.withTransaction(logger: self.logger) { connection in
                var found = false
                for try await _ in try await connection.query("UPDATE traces SET parser_version = \(Int32(parserVersion)) WHERE id = \(id) RETURNING id", logger: self.logger) {
                    found = true
                }
                guard found else { return false }
                try await connection.query("DELETE FROM trace_totals WHERE trace_id = \(id)", logger: self.logger)
                try await connection.query("DELETE FROM view_measurements WHERE trace_id = \(id)", logger: self.logger)
                try await connection.query("DELETE FROM trace_findings WHERE trace_id = \(id)", logger: self.logger)
                try await Self.writeMeasurements(connection, measurements, id: id, version: measuredVersion, logger: self.logger)
                return true
            }
        }
    }

    public func unmeasured(version: Int, limit: Int) async throws -> [CatalogEntry] {
        try await call("unmeasured") {
            try await Self.entries(try await self.client.query("""
                SELECT \(unescaped: CatalogSchema.columns) FROM traces WHERE measured_version <> \(Int32(version)) ORDER BY uploaded_at_us, id LIMIT \(Int64(limit))
                """, logger: self.logger))
        }
    }

    /// Each table's rows of `ids` by one probe of its key per id: the ids unnested, each joined
    /// LATERAL to its rows (OFFSET 0 keeps the subquery a probe). `trace_id = ANY(2,000 ids)` was
    /// planned as a scan of every row (view_measurements: 250,000 rows at 50,000 traces, 215 ms
    /// against 6-17 ms; trace_totals 92 against 22 ms), each trace's few rows sorted together.
    public func measurements(of ids: [String], views: MeasuredViews) async throws -> [String: TraceMeasurements] {
        guard !ids.isEmpty else { return [:] }
        let ids = Array(Set(ids))
        return try await call("measurements") {
            var found: [String: TraceMeasurements] = [:]
            found.reserveCapacity(ids.count)
            for try await (id, updates, hitches, hitchNs, hangs, hangNs, busy, waiting, samples, weight) in try await self.client.query("""
                SELECT x.trace_id, updates, hitches, hitch_ns, hangs, hang_ns, main_actor_busy_ns, main_actor_wait_ns, cpu_samples, cpu_weight
                FROM unnest(\(ids)::text[]) AS j(id) CROSS JOIN LATERAL (SELECT * FROM trace_totals t WHERE t.trace_id = j.id OFFSET 0) AS x
                """, logger: self.logger).decode((String, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64).self) {
                var totals = TraceMeasurements.Totals()
                (totals.updates, totals.hitches, totals.hitchNs, totals.hangs, totals.hangNs) = (updates, hitches, hitchNs, hangs, hangNs)
                (totals.mainActorBusyNs, totals.mainActorWaitNs, totals.cpuSamples, totals.cpuWeight) = (busy, waiting, samples, weight)
                found[id] = TraceMeasurements(totals: totals, views: [], findings: [])
            }
            let viewRows: PostgresRowSequence? = switch views {
            case .none: nil
            case let .named(view):
                try await self.client.query("""
                    SELECT x.trace_id, module, view, bodies, total_ns, p95_ns, orange, red, widest_fan_out FROM unnest(\(ids)::text[]) AS j(id)
                    CROSS JOIN LATERAL (SELECT * FROM view_measurements t WHERE t.trace_id = j.id AND t.view = \(view)
                        ORDER BY total_ns DESC, module COLLATE "C" OFFSET 0) AS x
                    """, logger: self.logger)
            case .all:
                try await self.client.query("""
                    SELECT x.trace_id, module, view, bodies, total_ns, p95_ns, orange, red, widest_fan_out FROM unnest(\(ids)::text[]) AS j(id)
                    CROSS JOIN LATERAL (SELECT * FROM view_measurements t WHERE t.trace_id = j.id
                        ORDER BY total_ns DESC, view COLLATE "C", module COLLATE "C" OFFSET 0) AS x
                    """, logger: self.logger)
            }
            if let viewRows {
                for try await (id, module, name, bodies, totalNs, p95Ns, orange, red, widest) in viewRows
                    .decode((String, String, String, Int64, Int64, Int64, Int64, Int64, Int64).self) {
                    found[id]?.views.append(TraceMeasurements.View(
                        module: module, view: name, bodies: bodies, totalNs: totalNs, p95Ns: p95Ns, orange: orange, red: red, widestFanOut: widest
                    ))
                }
            }
            for try await (id, finding, kind, subject, severity, cost) in try await self.client.query("""
                SELECT x.trace_id, finding_id, kind, subject, severity, cost_ns FROM unnest(\(ids)::text[]) AS j(id)
                CROSS JOIN LATERAL (SELECT * FROM trace_findings t WHERE t.trace_id = j.id ORDER BY cost_ns DESC, finding_id COLLATE "C" OFFSET 0) AS x
                """, logger: self.logger).decode((String, String, String, String, String, Int64).self) {
                found[id]?.findings.append(TraceMeasurements.FindingMark(id: finding, kind: kind, subject: subject, severity: severity, costNs: cost))
            }
            return found
        }
    }

    public func topViews(of ids: [String], limit: Int) async throws -> [ViewTotal] {
        guard !ids.isEmpty, limit > 0 else { return [] }
        return try await call("top views") {
            var views: [ViewTotal] = []
            // The sum is NUMERIC (never overflows), clamped to BIGINT.
            for try await (module, view, total) in try await self.client.query("""
                SELECT module, view, LEAST(SUM(total_ns), 9223372036854775807)::bigint AS total FROM view_measurements
                WHERE trace_id = ANY(\(ids)) GROUP BY module, view ORDER BY total DESC, view COLLATE "C", module COLLATE "C" LIMIT \(Int64(limit))
                """, logger: self.logger).decode((String, String, Int64).self) {
                views.append(ViewTotal(module: module, view: view, totalNs: total))
            }
            return views
        }
    }

    public func recordVerdict(_ verdict: CheckVerdict) async throws -> Bool {
        try await call("record verdict") {
            var recorded = false
            for try await _ in try await self.client.query("""
                INSERT INTO check_verdicts (trace_id, passed, failed_rules, rules, baseline_id, summary, checked_at_us)
                SELECT id, \(Int32(verdict.passed ? 1 : 0)), \(Int32(verdict.failedRules)), \(Int32(verdict.rules)), \(verdict.baselineID),
                       \(verdict.summary), \(verdict.checkedAtMicros) FROM traces WHERE id = \(verdict.traceID)
                ON CONFLICT (trace_id) DO UPDATE SET passed = EXCLUDED.passed, failed_rules = EXCLUDED.failed_rules, rules = EXCLUDED.rules,
                    baseline_id = EXCLUDED.baseline_id, summary = EXCLUDED.summary, checked_at_us = EXCLUDED.checked_at_us
                RETURNING trace_id
                """, logger: self.logger) { recorded = true }
            return recorded
        }
    }

    public func verdicts(of ids: [String]) async throws -> [String: CheckVerdict] {
        guard !ids.isEmpty else { return [:] }
        let ids = Array(Set(ids))
        return try await call("verdicts") {
            var found: [String: CheckVerdict] = [:]
            for try await (id, passed, failed, rules, baseline, summary, checkedAt) in try await self.client.query("""
                SELECT x.trace_id, passed, failed_rules, rules, baseline_id, summary, checked_at_us FROM unnest(\(ids)::text[]) AS j(id)
                CROSS JOIN LATERAL (SELECT * FROM check_verdicts t WHERE t.trace_id = j.id OFFSET 0) AS x
                """, logger: self.logger).decode((String, Int32, Int32, Int32, String?, String, Int64).self) {
                found[id] = CheckVerdict(traceID: id, passed: passed != 0, failedRules: Int(failed), rules: Int(rules), baselineID: baseline,
                                         summary: summary, checkedAtMicros: checkedAt)
            }
            return found
        }
    }
}
