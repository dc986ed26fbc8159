import Metrics

/// What the server counts for `/metrics` (swift-metrics; Prometheus names once exported).
/// Handles are made per use, not kept in statics: one made before `MetricsSystem.bootstrap`
/// would count nowhere for good.
enum TraceMetrics {
    static var cacheHits: Counter { Counter(label: "tracesvc_model_cache_hits_total") }
    static var cacheLoads: Counter { Counter(label: "tracesvc_model_cache_loads_total") }
    static var cacheEvictions: Counter { Counter(label: "tracesvc_model_cache_evictions_total") }
    static var importDuration: Metrics.Timer { Metrics.Timer(label: "tracesvc_import_duration_seconds", preferredDisplayUnit: .seconds) }

    enum UploadResult: String { case stored, duplicate, refused }

    static func uploads(_ result: UploadResult, bytes: Int64 = 0) {
        Counter(label: "tracesvc_uploads_total", dimensions: [("result", result.rawValue)]).increment()
        if result == .stored { Recorder(label: "tracesvc_upload_bytes", aggregate: true).record(bytes) }
    }

    /// Changes the audit trail could not record (each one refused, undone or, for a batch
    /// already deleted, logged in full instead).
    static func auditFailures(_ events: Int) {
        Counter(label: "tracesvc_audit_failures_total").increment(by: Int64(events))
    }

    /// Time a piece of work waited for a slot of a gate (queries, trace loads).
    static func gateWait(_ gate: String, _ waited: Duration) {
        Metrics.Timer(label: "tracesvc_gate_wait_seconds", dimensions: [("gate", gate)], preferredDisplayUnit: .seconds).record(duration: waited)
    }
}
