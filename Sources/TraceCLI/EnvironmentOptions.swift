import ArgumentParser
import Foundation

/// Every `serve` option as an environment variable: `--max-upload-mb 512` is also
/// `TRACESVC_MAX_UPLOAD_MB=512` (docs/deploy.md lists them). The command line wins over the
/// environment. A flag's variable is `1`/`true`/`yes` or `0`/`false`/`no`; a repeatable option's
/// takes a comma-separated list.
///
/// The names come from the parser's own description of the command (`_dumpHelp`), so an option
/// added to `serve` has its variable without more code. (swift-configuration reads environment
/// variables well but has no bridge to swift-argument-parser: each of some forty options would be
/// read and converted twice, by name and by hand, and the two lists would drift.)
enum EnvironmentOptions {
    static let prefix = "TRACESVC_"

    struct Mapped: Equatable {
        var variable: String
        var option: String
        var isFlag: Bool
        var isRepeating: Bool
    }

    /// The variables `command` reads, one for each of its long options and flags but `--help`.
    static func variables(of command: any ParsableCommand.Type) -> [Mapped] {
        guard let data = command._dumpHelp().data(using: .utf8),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let info = root["command"] as? [String: Any],
              let arguments = info["arguments"] as? [[String: Any]]
        else { return [] }
        return arguments.compactMap { argument in
            let kind = argument["kind"] as? String
            guard kind == "option" || kind == "flag",
                  let name = (argument["names"] as? [[String: Any]])?.first(where: { $0["kind"] as? String == "long" })?["name"] as? String,
                  !["help", "version"].contains(name)
            else { return nil }
            return Mapped(variable: variableName(name), option: name, isFlag: kind == "flag", isRepeating: argument["isRepeating"] as? Bool ?? false)
        }
    }

    /// `max-upload-mb` → `TRACESVC_MAX_UPLOAD_MB`.
    static func variableName(_ option: String) -> String {
        prefix + option.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The arguments the environment adds to `given` (the command's own, after its name): one for
    /// each variable set whose option the command line does not already give.
    static func arguments(for command: any ParsableCommand.Type, given: [String], environment: [String: String]) throws -> [String] {
        var added: [String] = []
        for mapped in variables(of: command) {
            guard let value = environment[mapped.variable] else { continue }
            let flag = "--\(mapped.option)"
            guard !given.contains(where: { $0 == flag || $0.hasPrefix(flag + "=") }) else { continue }
            if mapped.isFlag {
                switch value.lowercased() {
                case "1", "true", "yes": added.append(flag)
                case "0", "false", "no", "": break
                default: throw ValidationError("\(mapped.variable)=\(value): give 1/true/yes or 0/false/no")
                }
            } else if mapped.isRepeating {
                for item in value.split(separator: ",") { added += [flag, item.trimmingCharacters(in: .whitespaces)] }
            } else {
                added += [flag, value]
            }
        }
        return added
    }
}
