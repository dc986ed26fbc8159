import Foundation
import Logging
import Testing
@testable import TraceStorage

/// The real PostgreSQL and SeaweedFS the team tests run against, started by the project's own
/// `scripts/team-up.sh --engines-only`: `scripts/test.sh` starts them once for the whole run and
/// exports `TEAM_*`; a plain `swift test` starts them here once per process (stopped at exit).
/// When they cannot start, every test that needs them fails with the script's output: never a skip.
enum TeamEngines {
    struct Endpoints: Sendable {
        var catalogURL: String
        var blobsURL: String
        var accessKey: String
        var secretKey: String
        var runDirectory: String
        var pgBin: String
        var pgPort: Int
        /// PostgreSQL's folder: `data`, `log` and the socket.
        var pgDirectory: String
    }

    private static let started: Result<Endpoints, EngineError> = start()
    nonisolated(unsafe) private static var ownRunDirectory: String?

    struct EngineError: Error, CustomStringConvertible { var description: String }

    static func endpoints() throws -> Endpoints { try started.get() }

    /// Warnings and errors only: postgres-nio says every refused connection of an outage at info.
    static var logger: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return logger
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    private static func start() -> Result<Endpoints, EngineError> {
        var environment = ProcessInfo.processInfo.environment
        if environment["TEAM_CATALOG_URL"] == nil {
            let run = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-team-\(getpid())").path
            let script = packageRoot.appendingPathComponent("scripts/team-up.sh").path
            let (status, output) = runLogged("/bin/bash '\(script)' --engines-only '\(run)'", timeout: 300)
            guard status == 0 else {
                return .failure(EngineError(description: "scripts/team-up.sh --engines-only failed (status \(status), after at most 300 s):\n\(output)"))
            }
            ownRunDirectory = run
            atexit {
                guard let run = TeamEngines.ownRunDirectory else { return }
                let script = TeamEngines.packageRoot.appendingPathComponent("scripts/team-down.sh").path
                _ = system("timeout 120 /bin/bash '\(script)' '\(run)' >/dev/null 2>&1 </dev/null")
            }
            guard let env = try? String(contentsOfFile: run + "/team.env", encoding: .utf8) else {
                return .failure(EngineError(description: "scripts/team-up.sh wrote no \(run)/team.env"))
            }
            for line in env.split(separator: "\n") where line.hasPrefix("export ") {
                let pair = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2 else { continue }
                environment[pair[0]] = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "'"))
            }
        }
        guard let catalog = environment["TEAM_CATALOG_URL"], let blobs = environment["TEAM_BLOBS_URL"],
              let key = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"],
              let run = environment["TEAM_RUN_DIR"], let pgBin = environment["TEAM_PG_BIN"], let port = environment["TEAM_PG_PORT"].flatMap(Int.init),
              let pgDirectory = environment["TEAM_PG_DIR"]
        else { return .failure(EngineError(description: "TEAM_* variables incomplete (source the team.env that scripts/team-up.sh wrote)")) }
        return .success(Endpoints(catalogURL: catalog, blobsURL: blobs, accessKey: key, secretKey: secret, runDirectory: run, pgBin: pgBin, pgPort: port, pgDirectory: pgDirectory))
    }

    /// A database of its own for one test (created in the shared cluster), so tests do not see each other's rows.
    static func freshDatabase(_ name: String) throws -> String {
        let engines = try endpoints()
        let database = "t_\(name)_\(UInt32.random(in: 0...UInt32.max))"
        try runPostgresTool("createdb", ["-h", "127.0.0.1", "-p", "\(engines.pgPort)", "-U", "postgres", database])
        return "postgres://postgres@127.0.0.1:\(engines.pgPort)/\(database)"
    }

    /// `pg_ctl stop` / `start` of the shared cluster, for outage tests.
    static func stopPostgres() throws {
        let engines = try endpoints()
        try runPostgresTool("pg_ctl", ["-D", engines.pgDirectory + "/data", "-m", "fast", "-w", "stop"])
    }

    static func startPostgres() throws {
        let engines = try endpoints()
        try runPostgresTool("pg_ctl", ["-D", engines.pgDirectory + "/data", "-l", engines.pgDirectory + "/log", "-w", "-o",
                                       "-p \(engines.pgPort) -k \(engines.pgDirectory) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", "start"])
    }

    private static func runPostgresTool(_ tool: String, _ arguments: [String]) throws {
        let engines = try endpoints()
        let command = ([getuid() == 0 ? "runuser -u postgres -- " : ""] + [engines.pgBin + "/" + tool] + arguments)
            .map { $0.hasSuffix(" ") ? $0 : "'\($0)'" }.joined(separator: " ")
        let (status, output) = runLogged(command, timeout: 120)
        guard status == 0 else {
            throw EngineError(description: "\(tool) \(arguments.joined(separator: " ")) failed (\(status)): \(output)")
        }
    }

    /// Runs a shell command with a deadline, its output read from a file afterwards. Through the
    /// shell with `waitpid` (`system`), not Foundation's `Process`: on Linux `Process` learns of
    /// the exit through a descriptor that the servers it starts (`pg_ctl start`, `weed`) inherit
    /// and keep open, and a pipe they inherit would never reach its end.
    private static func runLogged(_ command: String, timeout seconds: Int) -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-engine-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let status = system("timeout \(seconds) \(command) >'\(log.path)' 2>&1 </dev/null")
        return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    static func blobStore(timeout: Duration = .seconds(5), partBytes: Int = 16 << 20, partBuffers: Int = 4) throws -> S3BlobStore {
        let engines = try endpoints()
        return S3BlobStore(
            location: try S3BlobStore.Location(url: engines.blobsURL),
            credentials: SigV4.Credentials(accessKeyID: engines.accessKey, secretAccessKey: engines.secretKey),
            logger: TeamEngines.logger, callTimeout: timeout, partBytes: partBytes, partBuffers: partBuffers
        )
    }
}
