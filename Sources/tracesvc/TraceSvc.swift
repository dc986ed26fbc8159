import ArgumentParser
import Foundation

@main
struct TraceSvc: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracesvc",
        abstract: "Look at recorded SwiftUI performance traces in the browser, and share links to them.",
        discussion: "A usage error (unknown option, bad value) exits with status 2.",
        subcommands: [
            Serve.self, Inspect.self, Compare.self, Check.self, Generate.self, ExportXCTrace.self,
        ]
    )

    /// As ArgumentParser's, but a usage error exits 2 (as shells and `check` document), not 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                exit(withError: ExitCode(2))
            }
            exit(withError: error)
        }
    }
}
