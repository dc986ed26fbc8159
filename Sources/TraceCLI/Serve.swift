import ArgumentParser
import Foundation
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import TraceServer
import TraceStorage

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the dashboard: upload traces and look at them in the browser.",
        discussion: "Ctrl-C or SIGTERM stops the server after in-flight requests finish (at most --shutdown-grace seconds; an upload still arriving then is discarded whole)."
    )

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: "Address to listen on; 0.0.0.0 shares the dashboard on your network.")
    var host = "127.0.0.1"

    @Option(help: "Where uploaded traces are kept (created if missing).")
    var dataDir = "tracesvc-data"

    @Option(help: "Largest accepted upload, in MB (a compressed one may decompress to \(ServerOptions.inflationAllowance) times this).")
    var maxUploadMb = 2048

    @Option(help: "Memory for traces kept loaded, in MB; least recently used ones are unloaded beyond it.")
    var memoryBudgetMb = 2048

    @Option(help: "The browser app's folder (default: the WebRoot next to the tracesvc package).")
    var webRoot: String?

    @Option(help: "Folder of sample traces listed read-only (default: the package's SampleTraces).")
    var samplesDir: String?

    @Option(help: "Seconds that requests in flight get to finish on Ctrl-C or SIGTERM.")
    var shutdownGrace = 10

    @Option(help: "All uploads kept on disk together (trace files and their records), in MB; beyond it uploads get 507 until traces are deleted.")
    var maxStoredMb = 20480

    @Option(help: "Uploads kept at most, however small; beyond it uploads get 507 until traces are deleted. Default: 10000, none in team mode (use --retain there).")
    var maxTraces: Int?

    @Option(help: ArgumentHelp("Keep uploads by tag and age, TAG:AGE (repeatable; the first rule whose tag a trace has decides; traces no rule matches are kept): 'branch=main:forever', 'branch=*:30d', '*:90d'. Ages: forever, or a number of m, h, d, w.", valueName: "tag:age"))
    var retain: [String] = []

    @Option(help: ArgumentHelp("Limit the traces of a tag, TAG:LIMIT (repeatable): 'project=*:2000 traces' (each project apart), 'project=pantry:10GB', 'nightly:500 traces'; an upload past it gets 403 naming the tag and the quota.", valueName: "tag:limit"))
    var tagQuota: [String] = []

    @Option(help: "Seconds a connection may stay without a complete request (idle, or sending headers slowly).")
    var idleTimeout = 30

    @Option(help: "Seconds a request body may send nothing before the connection is closed.")
    var readTimeout = 30

    @Option(help: "Open connections at most; more are closed as they arrive (lowered to what the open-file limit allows).")
    var maxConnections = 512

    @Option(help: "Open connections from one address (an IPv6 /64) at most; more are closed as they arrive. Raise it behind a proxy or a shared NAT.")
    var maxConnectionsPerAddress = 32

    @Option(help: ArgumentHelp("A proxy (an address or CIDR range, IPv4 or IPv6; repeatable) whose X-Forwarded-For names the client: per-address limits then count the right-most address in it that is not a trusted proxy, and the proxy's own connections are not limited per address. From any other peer the header is ignored.", valueName: "cidr"))
    var trustedProxy: [String] = []

    @Option(help: "Bytes a second a request body must average (measured from 10 s after its head); slower ones are cut off with 408.")
    var minUploadRate = 1024

    @Option(help: "Seconds a request body may take in all, however fast it arrives; longer ones are cut off with 408.")
    var uploadDeadline = 3600

    @Option(help: "Heavy queries one client (an address, or the write token) may have waiting; more are answered 503.")
    var maxQueuedQueriesPerClient = 64

    @Option(help: "A host name this server answers to (repeatable). IP addresses, localhost and this machine's name always work; other names are refused, which stops DNS rebinding.")
    var allowedHost: [String] = []

    @Option(help: "Token that uploads and deletes must send (Authorization: Bearer TOKEN). Default: none on 127.0.0.1, a random one printed at start on any other --host.")
    var writeToken: String?

    @Option(help: "File holding the write token (first line), instead of --write-token.")
    var writeTokenFile: String?

    @Flag(help: "Let anyone who can connect upload and delete, even with --host other than loopback.")
    var allowAnonymousWrites = false

    @OptionGroup(title: "Team mode (shared catalog and bytes; any number of replicas)")
    var team: TeamStorageOptions

    @Option(help: "Link frames' files and lines to the app's source: a URL with {path} (below --source-root), {line} and {commit} (the trace's commit tag), e.g. 'https://github.com/org/app/blob/{commit}/{path}#L{line}'.")
    var sourceUrl: String?

    @Option(help: "The app's checkout on the recording Mac (e.g. /Users/dev/Trips): stripped from recorded paths for --source-url and the xed command the page copies.")
    var sourceRoot: String?

    @Option(help: "Minutes a stored blob that no trace names is kept before the sweep deletes it (uploads in flight are never swept); the sweep runs once per grace period, at least every 10 and at most every minute.")
    var sweepGraceMinutes = 60

    @Option(help: "Log lines as text, or one JSON object a line (json) for a log pipeline. Either way each request gets an access line with its request id.")
    var logFormat: LogFormat = .text

    @Option(help: "Serve /metrics alone on HOST:PORT (e.g. 127.0.0.1:9090), and then not on the public port.")
    var metricsListen: String?

    /// /metrics reads this registry; every counter and timer of the process lands in it
    /// (swift-metrics takes one factory per process: it is made once).
    static let metrics: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    mutating func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard maxUploadMb > 0 else { throw ValidationError("--max-upload-mb must be positive") }
        guard memoryBudgetMb > 0 else { throw ValidationError("--memory-budget-mb must be positive") }
        guard shutdownGrace >= 0 else { throw ValidationError("--shutdown-grace must not be negative") }
        guard maxStoredMb > 0 else { throw ValidationError("--max-stored-mb must be positive") }
        guard maxTraces.map({ $0 > 0 }) ?? true else { throw ValidationError("--max-traces must be positive") }
        _ = try retentionPolicy()
        _ = try tagQuotas()
        guard idleTimeout > 0, readTimeout > 0 else { throw ValidationError("--idle-timeout and --read-timeout must be positive") }
        guard maxConnections > 0, maxConnectionsPerAddress > 0 else { throw ValidationError("--max-connections and --max-connections-per-address must be positive") }
        _ = try trustedProxies()
        guard minUploadRate >= 0 else { throw ValidationError("--min-upload-rate must not be negative") }
        guard uploadDeadline > 0 else { throw ValidationError("--upload-deadline must be positive") }
        guard maxQueuedQueriesPerClient >= 0 else { throw ValidationError("--max-queued-queries-per-client must not be negative") }
        guard writeToken == nil || writeTokenFile == nil else { throw ValidationError("give --write-token or --write-token-file, not both") }
        guard !allowAnonymousWrites || (writeToken == nil && writeTokenFile == nil) else {
            throw ValidationError("--allow-anonymous-writes contradicts a write token")
        }
        guard sweepGraceMinutes >= 0 else { throw ValidationError("--sweep-grace-minutes must not be negative") }
    }

    /// The token writes need: given, read from a file, or made up for a server on the network.
    func resolveWriteToken() throws -> (token: String?, generated: Bool) {
        if let writeToken { return (writeToken, false) }
        if let writeTokenFile {
            guard let text = try? String(contentsOfFile: writeTokenFile, encoding: .utf8),
                  let line = text.split(whereSeparator: \.isNewline).first?.trimmingCharacters(in: .whitespaces), !line.isEmpty
            else { throw ValidationError("\(writeTokenFile): cannot read a token from its first line") }
            return (line, false)
        }
        if allowAnonymousWrites || Self.isLoopback(host) { return (nil, false) }
        return (AccessPolicy.generateToken(), true)
    }

    func retentionPolicy() throws -> RetentionPolicy {
        do {
            return RetentionPolicy(rules: try retain.map { text throws(RetentionError) in try RetentionRule(parsing: text) })
        } catch {
            throw ValidationError("--retain \(error.description)")
        }
    }

    func trustedProxies() throws -> TrustedProxies {
        do {
            return try TrustedProxies(parsing: trustedProxy)
        } catch {
            throw ValidationError("--trusted-proxy \(error)")
        }
    }

    func tagQuotas() throws -> [TagQuota] {
        do {
            return try tagQuota.map { text throws(TagQuotaError) in try TagQuota(parsing: text) }
        } catch {
            throw ValidationError("--tag-quota \(error.description)")
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    func run() async throws {
        let level = CommandContext.current.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        logFormat.bootstrap(level: level)
        var logger = Logger(label: "tracesvc")
        logger.logLevel = level

        var options = ServerOptions(dataDirectory: URL(fileURLWithPath: dataDir, isDirectory: true).standardizedFileURL)
        options.metrics = Self.metrics
        options.sweepGrace = .seconds(60 * sweepGraceMinutes)
        options.metricsAddress = try metricsListen.map { try parseListenAddress($0, option: "--metrics-listen") }
        let opened = try await answeringWhileStarting(host: host, port: team.isTeamMode ? port : nil, waitingFor: "the catalog (PostgreSQL) and its schema migrations", logger: logger) {
            try await team.open(logger: logger)
        }
        if let (storage, services) = opened {
            options.storage = storage
            options.storageServices = services
        }
        options.host = host
        options.port = port
        options.maxUploadBytes = Int64(maxUploadMb) << 20
        options.memoryBudgetBytes = memoryBudgetMb << 20
        options.maxStoredBytes = Int64(maxStoredMb) << 20
        // Team mode: retention replaces the count cliff (the byte quota still holds).
        options.maxStoredTraces = maxTraces ?? (team.isTeamMode ? .max : 10_000)
        options.retention = try retentionPolicy()
        options.tagQuotas = try tagQuotas()
        options.connectionLimits.idleTimeout = .seconds(Int64(idleTimeout))
        options.connectionLimits.bodyReadTimeout = .seconds(Int64(readTimeout))
        options.connectionLimits.maxConnections = maxConnections
        options.connectionLimits.maxConnectionsPerAddress = maxConnectionsPerAddress
        options.connectionLimits.trustedProxies = try trustedProxies()
        options.connectionLimits.minBodyBytesPerSecond = minUploadRate
        options.connectionLimits.bodyDeadline = .seconds(Int64(uploadDeadline))
        options.maxWaitingQueriesPerClient = maxQueuedQueriesPerClient
        if sourceUrl != nil || sourceRoot != nil {
            if let sourceUrl, !sourceUrl.contains("{path}") {
                throw ValidationError("--source-url needs {path} (and usually {line}), e.g. 'https://github.com/org/app/blob/{commit}/{path}#L{line}'")
            }
            options.sourceLinks = SourceLinkOptions(urlTemplate: sourceUrl, root: sourceRoot)
        }
        let (token, generated) = try resolveWriteToken()
        var hosts = Set(allowedHost)
        hosts.insert(ProcessInfo.processInfo.hostName)
        if !["0.0.0.0", "::"].contains(host) { hosts.insert(host) }
        options.access = AccessPolicy(allowedHosts: hosts, writeToken: token)
        options.webRoot = try webRoot.map(Self.existingDirectory) ?? Self.findPackageFolder("WebRoot")
        options.samplesDirectory = try samplesDir.map(Self.existingDirectory) ?? Self.findPackageFolder("SampleTraces")
        if options.webRoot == nil {
            logger.warning("no WebRoot folder found: serving the API only (give --web-root)")
        }

        let host = host
        // Team mode: opening the store reads the shared catalog; the port keeps answering meanwhile.
        let app = try await answeringWhileStarting(host: host, port: team.isTeamMode ? port : nil, waitingFor: "its storage to open", logger: logger) {
            try await buildApplication(options: options, logger: logger) { port in
                let shown = host == "0.0.0.0" ? (ProcessInfo.processInfo.hostName) : host
                // Unbuffered, so scripts and tests reading our output see the URL at once.
                var message = "tracesvc is running: open http://\(shown):\(port)/  (Ctrl-C to stop)\n"
                if generated, let token {
                    message += "uploads and deletes need the write token \(token) (the page asks for it once; scripts send Authorization: Bearer \(token))\n"
                }
                CommandContext.current.writeOutput(message)
            }
        }
        // SIGTERM / Ctrl-C: stop accepting, give requests in flight (an upload being parsed) a
        // grace period to finish, then cancel the rest: a stalled upload is discarded whole.
        var lifecycle = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        lifecycle.maximumGracefulShutdownDuration = .seconds(shutdownGrace)
        try await ServiceGroup(configuration: lifecycle).run()
    }

    static func existingDirectory(_ path: String) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("\(path) is not a folder")
        }
        return URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
    }

    /// `name` in the folder of the executable or of the working directory, or in one of their
    /// parents: finds the package's folders from `.build/debug/tracesvc` or from the repo.
    static func findPackageFolder(_ name: String) -> URL? {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let workingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        for start in [executable, workingDirectory] {
            var folder = start.standardizedFileURL
            while true {
                let candidate = folder.appendingPathComponent(name, isDirectory: true)
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue {
                    return candidate
                }
                let parent = folder.deletingLastPathComponent()
                if parent.path == folder.path { break }
                folder = parent
            }
        }
        return nil
    }
}
