import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TraceServer
import TraceStorage

/// `tracesvc token create|list|revoke`: personal and CI tokens, kept hashed in the catalog.
/// Works on the catalog directly (the data directory's, or the team's PostgreSQL), not through
/// a server: the first token needs no token, and a revoke holds on every replica at once.
struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make, list and revoke personal and CI tokens (stored hashed in the catalog; docs/api.md, \"Tokens\").",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct CatalogOptions: ParsableArguments {
        @Option(help: "The data directory of `tracesvc serve` (embedded mode).")
        var dataDir = "tracesvc-data"

        @Option(help: ArgumentHelp("Team mode: the catalog in PostgreSQL (postgres://USER@HOST:PORT/DATABASE; password from PGPASSWORD or --catalog-password-file).", valueName: "url"))
        var catalog: String?

        @Option(help: "File whose first line is the catalog's password (instead of PGPASSWORD).")
        var catalogPasswordFile: String?

        /// Runs `body` with the catalog open (and its client running, in team mode).
        func withCatalog<T: Sendable>(_ body: @escaping @Sendable (any Catalog) async throws -> T) async throws -> T {
            var logger = Logger(label: "tracesvc")
            logger.logLevel = CommandContext.current.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
            guard let catalog else {
                let directory = URL(fileURLWithPath: dataDir, isDirectory: true).standardizedFileURL
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                return try await body(try TraceStore.Storage.embedded(in: directory).catalog)
            }
            let (opened, service) = try await TeamStorageOptions.openCatalog(url: catalog, passwordFile: catalogPasswordFile, logger: logger)
            let running = Task { try await service.run() }
            defer { running.cancel() }
            return try await body(opened)
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a token and print its secret, once (only its SHA-256 is stored).")

        @Option(help: "Its name, as the audit trail shows it (lowercase letters, digits, '.', '_', '-'), e.g. ci-main or alice.")
        var name: String

        @Option(help: "What it may do (repeatable): read (the audit trail), upload, annotate (tags and notes), delete, admin (everything).")
        var scope: [String] = []

        @OptionGroup var storage: CatalogOptions

        func validate() throws {
            if let problem = AccessToken.problem(withName: name) { throw ValidationError("--name: \(problem)") }
            guard !scope.isEmpty else { throw ValidationError("give at least one --scope: \(AccessScope.allCases.map(\.rawValue).joined(separator: ", "))") }
            for text in scope where AccessScope(rawValue: text) == nil {
                throw ValidationError("--scope: '\(text)' is not one of \(AccessScope.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }

        func run() async throws {
            let (token, secret) = AccessToken.make(name: name, scopes: scope.compactMap(AccessScope.init(rawValue:)))
            let added = try await storage.withCatalog { try await $0.addToken(token) }
            guard added else {
                CommandContext.printError("tracesvc: a token named \(name) exists: revoke it first (tracesvc token revoke --name \(name))")
                throw ExitCode(1)
            }
            CommandContext.print(secret)
            CommandContext.printError("token \(name) (\(token.scopes.map(\.rawValue).joined(separator: ", "))) made: the line above is its secret, shown this once. Send it as Authorization: Bearer <secret>.")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List tokens: name, scopes, made, last used, revoked (never a secret).")

        @OptionGroup var storage: CatalogOptions

        func run() async throws {
            let tokens = try await storage.withCatalog { try await $0.tokens() }
            CommandContext.print(Self.table(tokens))
        }

        static func table(_ tokens: [AccessToken]) -> String {
            let rows = [["NAME", "SCOPES", "CREATED", "LAST USED", "REVOKED"]] + tokens.map { token in
                [token.name, token.scopes.map(\.rawValue).joined(separator: ","), time(token.createdAtMicros),
                 token.lastUsedAtMicros.map(time) ?? "never", token.revokedAtMicros.map(time) ?? "-"]
            }
            let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
            return rows.map { row in
                zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
            }.joined(separator: "\n")
        }

        static func time(_ micros: Int64) -> String {
            Date(timeIntervalSince1970: Double(micros) / 1_000_000).formatted(Date.ISO8601FormatStyle())
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token: refused at once by every server on this catalog.")

        @Option(help: "The token's name.")
        var name: String

        @OptionGroup var storage: CatalogOptions

        func run() async throws {
            let name = name
            guard try await storage.withCatalog({ try await $0.revokeToken(name: name, at: CatalogEntry.nowMicros()) }) else {
                CommandContext.printError("tracesvc: no unrevoked token is named \(name) (tracesvc token list)")
                throw ExitCode(1)
            }
            CommandContext.print("token \(name) revoked")
        }
    }
}
