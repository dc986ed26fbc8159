import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TraceServer
import TraceStorage

/// `--catalog postgres://…` and `--blobs s3://…`: team mode's shared storage. Credentials come
/// from the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`;
/// `PGPASSWORD`) or a password file; none is ever printed, and a password in the URL is redacted.
struct TeamStorageOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Team mode: the catalog in PostgreSQL (postgres://USER@HOST:PORT/DATABASE; password from PGPASSWORD or --catalog-password-file).", valueName: "url"))
    var catalog: String?

    @Option(help: "File whose first line is the catalog's password (instead of PGPASSWORD).")
    var catalogPasswordFile: String?

    @Option(help: ArgumentHelp("Team mode: trace bytes in an S3-compatible bucket (s3://BUCKET?endpoint=http://HOST:PORT&region=REGION; keys from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).", valueName: "url"))
    var blobs: String?

    var isTeamMode: Bool { catalog != nil || blobs != nil }

    func validate() throws {
        guard (catalog == nil) == (blobs == nil) else {
            throw ValidationError("team mode needs both --catalog and --blobs (the catalog and the bytes are shared by every replica)")
        }
        guard catalogPasswordFile == nil || catalog != nil else { throw ValidationError("--catalog-password-file needs --catalog") }
    }

    /// The catalog's migrations alone (`migrate --schema-only`): a clear message and exit 1 when it fails.
    func migrateSchema(logger: Logger) async throws {
        guard let catalog else { return }
        do {
            let location = try PostgresCatalog.Location(url: catalog, passwordFile: catalogPasswordFile, environment: CommandContext.current.environment)
            try await PostgresCatalog.prepare(location, logger: logger)
        } catch let error as StorageConfigurationError {
            throw ValidationError(error.description)
        } catch let error as StorageError {
            CommandContext.printError("tracesvc: \(error)")
            throw ExitCode(1)
        }
    }

    /// Connects to both services (a clear message and exit 1 when either does not answer), runs
    /// the catalog's migrations, and returns the storage with the services it needs running.
    func open(logger: Logger) async throws -> (storage: TraceStore.Storage, services: [any Service])? {
        guard let catalog, let blobs else { return nil }
        let environment = CommandContext.current.environment
        do {
            let catalogLocation = try PostgresCatalog.Location(url: catalog, passwordFile: catalogPasswordFile, environment: environment)
            let blobLocation = try S3BlobStore.Location(url: blobs)
            guard let key = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"] else {
                throw StorageConfigurationError("--blobs: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to the object store's access key")
            }
            logger.info("team mode: catalog \(catalogLocation), blobs \(blobLocation)")
            try await PostgresCatalog.prepare(catalogLocation, logger: logger)
            let blobStore = S3BlobStore(location: blobLocation, credentials: SigV4.Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"]), logger: logger)
            try await blobStore.check()
            let postgres = PostgresCatalog(location: catalogLocation, logger: logger)
            return (TraceStore.Storage(catalog: postgres, blobs: blobStore, isShared: true), [postgres])
        } catch let error as StorageConfigurationError {
            throw ValidationError(error.description)
        } catch let error as StorageError {
            CommandContext.printError("tracesvc: \(error)")
            throw ExitCode(1)
        }
    }
}
