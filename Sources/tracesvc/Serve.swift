import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TraceServer

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

    mutating func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard maxUploadMb > 0 else { throw ValidationError("--max-upload-mb must be positive") }
        guard memoryBudgetMb > 0 else { throw ValidationError("--memory-budget-mb must be positive") }
        guard shutdownGrace >= 0 else { throw ValidationError("--shutdown-grace must not be negative") }
    }

    func run() async throws {
        var logger = Logger(label: "tracesvc")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info

        var options = ServerOptions(dataDirectory: URL(fileURLWithPath: dataDir, isDirectory: true).standardizedFileURL)
        options.host = host
        options.port = port
        options.maxUploadBytes = Int64(maxUploadMb) << 20
        options.memoryBudgetBytes = memoryBudgetMb << 20
        options.webRoot = try webRoot.map(Self.existingDirectory) ?? Self.findPackageFolder("WebRoot")
        options.samplesDirectory = try samplesDir.map(Self.existingDirectory) ?? Self.findPackageFolder("SampleTraces")
        if options.webRoot == nil {
            logger.warning("no WebRoot folder found: serving the API only (give --web-root)")
        }

        let host = host
        let app = try await buildApplication(options: options, logger: logger) { port in
            let shown = host == "0.0.0.0" ? (ProcessInfo.processInfo.hostName) : host
            // Unbuffered, so scripts and tests reading our output see the URL at once.
            FileHandle.standardOutput.write(Data("tracesvc is running: open http://\(shown):\(port)/  (Ctrl-C to stop)\n".utf8))
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
