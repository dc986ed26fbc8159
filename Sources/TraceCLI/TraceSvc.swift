import ArgumentParser
import Foundation

/// The user's command line. The `tracesvc` executable only calls `run(arguments:)` and exits with its status.
public struct TraceSvc: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "tracesvc",
        abstract: "Look at recorded SwiftUI performance traces in the browser, and share links to them.",
        discussion: "A usage error (unknown option, bad value) exits with status 2.",
        subcommands: [
            Serve.self, Inspect.self, Compare.self, FlameGraphCommand.self, Check.self, Upload.self, Generate.self, ExportXCTrace.self, Migrate.self,
            MCPCommand.self, Token.self, DeleteByQuery.self, Retention.self,
        ]
    )

    public init() {}

    /// As ArgumentParser's `main`, writing to `CommandContext.current` and returning the exit
    /// status, but a usage error exits 2 (as shells and `check` document), not 64.
    public static func run(arguments: [String]) async -> Int32 {
        do {
            var arguments = arguments
            if arguments.first == "serve" {
                arguments += try EnvironmentOptions.arguments(for: Serve.self, given: Array(arguments.dropFirst()), environment: CommandContext.current.environment)
            }
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                // --help and other clean exits print to standard output.
                if !message.isEmpty { CommandContext.print(message) }
                return 0
            }
            if !message.isEmpty { CommandContext.printError(message) }
            return code == .validationFailure ? 2 : code.rawValue
        }
    }
}
