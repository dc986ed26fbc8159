import Foundation
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle
import TraceModel
import TraceStorage

/// How `tracesvc serve` is set up.
public struct ServerOptions: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var dataDirectory: URL
    public var samplesDirectory: URL?
    public var webRoot: URL?
    public var maxUploadBytes: Int64 = 2048 << 20
    public var memoryBudgetBytes = 2048 << 20
    /// How long a trace load waits for memory other requests hold before it is a 503.
    public var memoryWait: Duration = .seconds(30)
    /// All uploads stored together (their bytes, and `StorageQuota.recordAllowance` each).
    public var maxStoredBytes: Int64 = 20 << 30
    /// Uploads kept, however small.
    public var maxStoredTraces = 10_000
    /// Uploads are refused when they would leave less free disk than this.
    public var minFreeDiskBytes: Int64 = 1 << 30
    /// Free bytes of the data directory's disk; nil reads them from the file system (tests play a small disk).
    public var freeDiskBytes: (@Sendable () -> Int64?)?
    public var connectionLimits = ConnectionLimits()
    /// Heavy queries (timeline, summary, graphs, call trees, ...) running at once; more wait,
    /// shared fairly between clients.
    public var maxConcurrentQueries = max(2, ProcessInfo.processInfo.activeProcessorCount)
    /// Queries one client (an address, or the write token) may have waiting; more are 503.
    public var maxWaitingQueriesPerClient = 64
    public var access = AccessPolicy()
    /// The catalog and blob store; nil is the embedded default in `dataDirectory` (SQLite and files).
    public var storage: TraceStore.Storage?
    /// Services the storage needs running while the server runs (the PostgreSQL pool and listener).
    public var storageServices: [any Service] = []
    /// A blob no trace names is swept after this long.
    public var sweepGrace: Duration = .seconds(3600)
    /// Where `/metrics` reads from (the process bootstraps swift-metrics with it); nil answers an empty registry.
    public var metrics: PrometheusCollectorRegistry?
    /// Where `/metrics` is served alone (`serve --metrics-listen`); nil: on the public port.
    public var metricsAddress: (host: String, port: Int)?
    /// How long uploads are kept, by tag (`serve --retain`): applied by a sweep while the server runs.
    public var retention = RetentionPolicy.keepEverything
    /// Limits on the traces of a tag (`serve --tag-quota`).
    public var tagQuotas: [TagQuota] = []
    /// Links from frames' files and lines to the app's source (`serve --source-url/--source-root`); nil: none.
    public var sourceLinks: SourceLinkOptions?

    /// A compressed upload may decompress to this many times `maxUploadBytes` (exports gzip
    /// about 10:1 to 20:1; a gzip bomb goes far beyond).
    public static let inflationAllowance: Int64 = 8
    public var maxUploadReadBytes: Int64 {
        let (product, overflow) = maxUploadBytes.multipliedReportingOverflow(by: Self.inflationAllowance)
        return overflow ? .max : product
    }

    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }
}

/// The router with every route; each area registers its routes in its own file.
public func buildRouter(store: TraceStore, options: ServerOptions) -> Router<TraceRequestContext> {
    makeRouter(store: store, options: options).router
}

/// The router, and the operational metrics it serves at `/metrics` (or leaves to `--metrics-listen`).
func makeRouter(store: TraceStore, options: ServerOptions) -> (router: Router<TraceRequestContext>, metrics: OperationalMetrics) {
    let router = Router(context: TraceRequestContext.self)
    // Outermost: counts every request by route and status, errors included (they are answers by then).
    router.add(middleware: ForwardedClientMiddleware(proxies: options.connectionLimits.trustedProxies))
    router.add(middleware: AccessLogMiddleware())
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: SecurityHeadersMiddleware())
    router.add(middleware: APIErrorMiddleware())
    router.add(middleware: ForwardedClientLimitMiddleware(maxPerClient: options.connectionLimits.maxConnectionsPerAddress,
                                                          maxInAll: options.connectionLimits.maxConnections))
    router.add(middleware: AccessGuardMiddleware(policy: options.access, tokens: TokenAuthority(policy: options.access, catalog: store.storage.catalog)))
    router.add(middleware: WorkClientMiddleware())
    if let webRoot = options.webRoot {
        let files = StaticFiles(root: webRoot)
        router.add(middleware: StaticFilesMiddleware(files: files))
        WebRoutes(files: files).add(to: router)
    }
    // Waiting queries hold no thread; the bounds on waiters keep a flood from queuing forever.
    let queries = WorkGate(name: "queries", limit: options.maxConcurrentQueries, maxWaiting: 256, maxWaitingPerClient: options.maxWaitingQueriesPerClient)
    let storage = store.storage
    let readiness = Readiness(checks: [
        .init(service: storage.catalog.serviceName) { try await storage.catalog.check() },
        .init(service: storage.blobs.serviceName) { try await storage.blobs.check() },
        store.quota.diskCheck(directory: options.dataDirectory),
    ])
    let metrics = OperationalMetrics(registry: options.metrics ?? PrometheusCollectorRegistry(), store: store, readiness: readiness, queries: queries)
    HealthRoutes(readiness: readiness, metrics: options.metricsAddress == nil ? metrics : nil).add(to: router)
    TraceRoutes(store: store, maxUploadBytes: options.maxUploadBytes, sourceLinks: options.sourceLinks).add(to: router)
    AuditRoutes(trail: store).add(to: router)
    RetentionRoutes(store: store, policy: options.retention).add(to: router)
    // Answers computed from stored traces alone: an ETag, and 304 for a client that has the bytes.
    let answers = router.group().add(middleware: ImmutableAnswerMiddleware(store: store))
    QueryRoutes(models: store.models, noise: store, queries: queries).add(to: answers)
    HistoryRoutes(store: store, queries: queries).add(to: router)
    let agentAPI = InProcessResponder()
    AgentRoutes(policy: options.access, api: agentAPI).add(to: router)
    agentAPI.set(router.buildResponder())
    return (router, metrics)
}

/// Opens the store (stored uploads and samples are listed before the server accepts requests)
/// and builds the application. Run it with `runService()`: SIGINT/SIGTERM shut it down gracefully.
public func buildApplication(
    options: ServerOptions, logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    try FileManager.default.createDirectory(at: options.dataDirectory, withIntermediateDirectories: true)
    var configuration = TraceStore.Configuration(
        dataDirectory: options.dataDirectory, samplesDirectory: options.samplesDirectory, memoryBudgetBytes: options.memoryBudgetBytes,
        maxUploadReadBytes: options.maxUploadReadBytes, maxStoredBytes: options.maxStoredBytes,
        maxStoredTraces: options.maxStoredTraces, minFreeDiskBytes: options.minFreeDiskBytes,
        freeDiskBytes: options.freeDiskBytes, storage: options.storage, sweepGrace: options.sweepGrace
    )
    configuration.memoryWait = options.memoryWait
    configuration.tagQuotas = options.tagQuotas
    let store = try await TraceStore.open(configuration, logger: logger)
    let limits = options.connectionLimits
    let maxConnections = DescriptorBudget.connectionsAllowed(configured: limits.maxConnections)
    if maxConnections < limits.maxConnections {
        logger.warning("serving at most \(maxConnections) connections, not \(limits.maxConnections): the open-file limit (ulimit -n) leaves no more")
    }
    let connections = ConnectionCounter(limit: maxConnections, limitPerAddress: limits.maxConnectionsPerAddress, exempt: limits.trustedProxies)
    // No `100 Continue` for an upload the headers already refuse (too large, or past the quota).
    let (maxUploadBytes, quota) = (options.maxUploadBytes, store.quota)
    let continueAllowed: @Sendable (HTTPRequest) -> Bool = { head in
        guard head.method == .post, let length = head.headerFields[.contentLength].flatMap({ Int64($0) }) else { return true }
        return length <= maxUploadBytes && quota.wouldAccept(bytes: length)
    }
    let (router, metrics) = makeRouter(store: store, options: options)
    return Application(
        router: router,
        server: .http1(configuration: .init(
            additionalChannelHandlers: [ConnectionGuardHandler(counter: connections, limits: limits, continueAllowed: continueAllowed)],
            idleTimeout: limits.idleTimeout
        )),
        configuration: .init(address: .hostname(options.host, port: options.port), serverName: "tracesvc"),
        // A service that returns ends the group: the retention sweep runs only when a rule deletes.
        services: options.storageServices + [StoreMaintenance(store: store)] + metricsApplication(options.metricsAddress, metrics: metrics, logger: logger) + (options.retention.deletes ? [
            RetentionSweep(store: store, policy: options.retention, interval: TraceStore.sweepInterval(grace: options.sweepGrace)),
        ] : []),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? options.port) },
        logger: logger
    )
}

/// Follows other replicas' deletes and sweeps unnamed blobs while the server runs.
struct StoreMaintenance: Service {
    let store: TraceStore

    func run() async throws {
        // Stopping: a load waiting for memory is refused, and what is built in the background
        // (an upload's extras and figures) stops at its next check; the measuring is cancelled.
        // (The HTTP server has stopped by then: services stop one by one, it first.)
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown { await store.maintain() }
        } onGracefulShutdown: {
            store.refuseWaitingLoads()
        }
        store.refuseWaitingLoads()
        await store.cancelBackgroundBuilds()
    }
}
