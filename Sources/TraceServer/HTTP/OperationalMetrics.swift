import Foundation
import Metrics
import Prometheus
import Hummingbird
import Logging
import ServiceLifecycle
import TraceFormats

/// What an operator watches beside the request metrics, read at each scrape of `/metrics`: the
/// process (memory, CPU, descriptors), the build, the model memory against its budget, the loads
/// and queries queued, the stored traces against the quota and the disk, and readiness. The
/// sweep and refused connections count as they happen (`TraceStore.sweepUnnamedBlobs`, `recountTraces`,
/// `ConnectionCounter`); they are made here at zero so that dashboards and alerts see them from the start.
struct OperationalMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    let store: TraceStore
    let readiness: Readiness
    let queries: WorkGate
    static let processStart = Date()

    init(registry: PrometheusCollectorRegistry, store: TraceStore, readiness: Readiness, queries: WorkGate) {
        self.registry = registry
        self.store = store
        self.readiness = readiness
        self.queries = queries
        _ = Self.processStart
        gauge("tracesvc_build_info", 1, [("parser", "\(TraceImporter.parserVersion)"), ("answers", "\(ImmutableAnswerMiddleware.answersVersion)")])
        for limit in ["server", "address", "share"] { Counter(label: "tracesvc_connections_refused_total", dimensions: [("limit", limit)]).increment(by: 0) }
        for what in ["blob", "upload"] { Counter(label: "tracesvc_sweep_removed_total", dimensions: [("what", what)]).increment(by: 0) }
        Counter(label: "tracesvc_sweep_repaired_total", dimensions: [("what", "trace_counts")]).increment(by: 0)
        Counter(label: "tracesvc_sweep_runs_total").increment(by: 0)
        Counter(label: "tracesvc_sweep_failures_total").increment(by: 0)
        Counter(label: "tracesvc_audit_failures_total").increment(by: 0)
    }

    /// The registry's text, with every gauge read now.
    func emit() async -> [UInt8] {
        await refresh()
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        return bytes
    }

    private func gauge(_ name: String, _ value: Double, _ labels: [(String, String)] = []) {
        registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: ""), labels: labels).set(to: value)
    }

    private func refresh() async {
        let process = ProcessFigures.read()
        gauge("process_resident_memory_bytes", process.residentBytes)
        gauge("process_cpu_seconds_total", process.cpuSeconds)
        gauge("process_open_fds", process.openDescriptors)
        gauge("process_max_fds", process.maxDescriptors)
        gauge("process_start_time_seconds", Self.processStart.timeIntervalSince1970)
        let memory = store.memory
        gauge("tracesvc_model_memory_bytes", Double(memory.used))
        gauge("tracesvc_model_memory_budget_bytes", Double(memory.limit))
        gauge("tracesvc_model_memory_peak_bytes", Double(memory.peakUsed))
        gauge("tracesvc_model_loads_waiting", Double(memory.waiting))
        let loads = await store.loadGate.load
        gauge("tracesvc_model_loads_running", Double(loads.running))
        let queries = await queries.load
        gauge("tracesvc_queries_running", Double(queries.running))
        gauge("tracesvc_queries_waiting", Double(queries.waiting))
        let quota = store.quota
        gauge("tracesvc_catalog_traces", Double(quota.storedTraces))
        gauge("tracesvc_stored_bytes", Double(quota.storedBytes))
        gauge("tracesvc_upload_reserved_bytes", Double(quota.reservedBytes))
        gauge("tracesvc_stored_bytes_limit", Double(quota.limits.maxStoredBytes))
        gauge("tracesvc_stored_traces_limit", Double(quota.limits.maxTraces))
        gauge("tracesvc_disk_free_bytes", quota.freeDiskBytes().map(Double.init) ?? -1)
        let report = await readiness.check()
        gauge("tracesvc_ready", report.ready ? 1 : 0)
        for service in report.services { gauge("tracesvc_ready_service", service.ok ? 1 : 0, [("service", service.name)]) }
    }
}

/// The process's own figures from /proc (Linux); zero where it cannot be read.
struct ProcessFigures {
    var residentBytes = 0.0
    var cpuSeconds = 0.0
    var openDescriptors = 0.0
    var maxDescriptors = 0.0

    static func read() -> ProcessFigures {
        var figures = ProcessFigures()
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
            let fields = statm.split(separator: " ")
            if fields.count > 1, let pages = Double(fields[1]) { figures.residentBytes = pages * pageSize }
        }
        // /proc/self/stat: the fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
        if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") {
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            if fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]), ticks > 0 {
                figures.cpuSeconds = (user + system) / ticks
            }
        }
        figures.openDescriptors = Double((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0)
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { figures.maxDescriptors = Double(limit.rlim_cur) }
        return figures
    }
}

/// `serve --metrics-listen HOST:PORT`: `/metrics` alone on a private address (then not on the
/// public port), so that a proxy in front of the public one need not hide it.
func metricsApplication(_ address: (host: String, port: Int)?, metrics: OperationalMetrics, logger: Logger) -> [any Service] {
    guard let address else { return [] }
    let router = Router(context: TraceRequestContext.self)
    MetricsRoutes(metrics: metrics).add(to: router)
    var logger = logger
    logger[metadataKey: "listener"] = "metrics"
    return [Application(router: router, configuration: .init(address: .hostname(address.host, port: address.port), serverName: "tracesvc-metrics"), logger: logger)]
}
