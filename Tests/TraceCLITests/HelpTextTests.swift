import ArgumentParser
import Testing
@testable import TraceCLI

/// `--help` at 80 columns: a list item or an example command of a command's discussion is printed
/// as written, never re-wrapped mid-line (a wrapped "1  the server refused it … (one line on" /
/// "standard error says why)" reads as two exit codes).
@Suite struct HelpTextTests {
    @Test func listsAndExamplesKeepTheirLinesAt80Columns() {
        var commands: [any ParsableCommand.Type] = [TraceSvc.self]
        var index = 0
        while index < commands.count {
            commands += commands[index].configuration.subcommands
            index += 1
        }
        #expect(commands.count > 10)
        for command in commands {
            let help = TraceSvc.helpMessage(for: command, columns: 80)
            let printed = Set(help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
            let blockLines = command.configuration.discussion.split(separator: "\n").map(String.init)
                .filter { $0.hasPrefix(" ") || $0.hasPrefix("tracesvc ") }
            for line in blockLines {
                let keptWhole = printed.contains(line)
                #expect(keptWhole, "\(command.configuration.commandName ?? "?"): '\(line)' is re-wrapped at 80 columns")
            }
        }
    }
}
