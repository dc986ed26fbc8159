import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes and what it reads from its environment: the process's standard output,
/// error and environment variables, or (in tests) buffers and a given environment. Commands never
/// touch the process's streams directly, so `TraceSvc.run(arguments:)` can run them in process.
public struct CommandContext: Sendable {
    @TaskLocal public static var current = CommandContext.process

    /// Writes text as is (callers add the newline).
    public var writeOutput: @Sendable (String) -> Void
    public var writeError: @Sendable (String) -> Void
    /// Standard output is a terminal: the text reports may use colours.
    public var outputIsTerminal: Bool
    public var environment: [String: String]

    public init(
        writeOutput: @escaping @Sendable (String) -> Void, writeError: @escaping @Sendable (String) -> Void,
        outputIsTerminal: Bool, environment: [String: String]
    ) {
        self.writeOutput = writeOutput
        self.writeError = writeError
        self.outputIsTerminal = outputIsTerminal
        self.environment = environment
    }

    /// The process's own streams, unbuffered (a script reading `serve`'s first line sees it at once).
    public static let process = CommandContext(
        writeOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
        writeError: { FileHandle.standardError.write(Data($0.utf8)) },
        outputIsTerminal: isatty(1) == 1,
        environment: ProcessInfo.processInfo.environment
    )

    /// `text` and a newline on standard output, as Swift's `print`.
    static func print(_ text: String) { current.writeOutput(text + "\n") }

    /// `text` and a newline on standard error.
    static func printError(_ text: String) { current.writeError(text + "\n") }
}

/// What a command run in process wrote, and its exit status (tests).
public struct CommandRun: Sendable, Equatable {
    public var status: Int32
    public var output: String
    public var error: String
}

extension TraceSvc {
    /// Runs `tracesvc ARGUMENTS` in this process with empty streams and `environment`.
    public static func capture(_ arguments: [String], environment: [String: String] = [:]) async -> CommandRun {
        let output = Mutex(""), error = Mutex("")
        let context = CommandContext(
            writeOutput: { text in output.withLock { $0 += text } }, writeError: { text in error.withLock { $0 += text } },
            outputIsTerminal: false, environment: environment
        )
        let status = await CommandContext.$current.withValue(context) { await run(arguments: arguments) }
        return CommandRun(status: status, output: output.withLock { $0 }, error: error.withLock { $0 })
    }
}
