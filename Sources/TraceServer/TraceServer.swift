import Foundation
import Hummingbird
import Logging
import TraceModel

/// How `tracesvc serve` is set up.
public struct ServerOptions: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var dataDirectory: URL
    public var samplesDirectory: URL?
    public var webRoot: URL?
    public var maxUploadBytes: Int64 = 2048 << 20
    public var memoryBudgetBytes = 2048 << 20

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
public func buildRouter(store: TraceStore, options: ServerOptions) -> Router<BasicRequestContext> {
    let router = Router()
    router.add(middleware: APIErrorMiddleware())
    if let webRoot = options.webRoot {
        let files = StaticFiles(root: webRoot)
        router.add(middleware: StaticFilesMiddleware(files: files))
        addWebRoutes(to: router, files: files)
    }
    addTraceRoutes(to: router, store: store, maxUploadBytes: options.maxUploadBytes)
    addQueryRoutes(to: router, store: store)
    addGraphRoutes(to: router, store: store)
    addCompareRoutes(to: router, store: store)
    return router
}

/// Opens the store (stored uploads and samples are listed before the server accepts requests)
/// and builds the application. Run it with `runService()`: SIGINT/SIGTERM shut it down gracefully.
public func buildApplication(
    options: ServerOptions, logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    try FileManager.default.createDirectory(at: options.dataDirectory, withIntermediateDirectories: true)
    let store = try await TraceStore.open(
        TraceStore.Configuration(
            dataDirectory: options.dataDirectory, samplesDirectory: options.samplesDirectory, memoryBudgetBytes: options.memoryBudgetBytes,
            maxUploadReadBytes: options.maxUploadReadBytes
        ),
        logger: logger
    )
    return Application(
        router: buildRouter(store: store, options: options),
        configuration: .init(address: .hostname(options.host, port: options.port), serverName: "tracesvc"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? options.port) },
        logger: logger
    )
}
