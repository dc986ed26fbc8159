import ArgumentParser
import Foundation
import TraceFormats
import TraceModel

/// Reads a trace file for a command; an unreadable file prints where it went wrong and exits 1.
func readTraceOrExit(_ path: String) throws -> Trace {
    do {
        return try TraceImporter.importTrace(at: URL(fileURLWithPath: path), displayName: path)
    } catch {
        CommandContext.printError(error.description)
        throw ExitCode(1)
    }
}

/// A time or duration option: the one duration syntax of budget files and the browser
/// (DurationText.parse): "1s", "1 s", "250 ms", "500 µs", or a whole number of nanoseconds.
struct DurationOption: ExpressibleByArgument, Sendable {
    var nanoseconds: Int64

    init?(argument: String) {
        guard let value = DurationText.parse(argument) else { return nil }
        nanoseconds = value
    }

    static var defaultValueDescription: String { "duration" }
}

/// The range `--start`/`--end` (or a named pair) give for `trace`: nil when neither is given,
/// a missing end is the trace's, and end <= start exits 1 naming the options.
func commandLineRange(start: DurationOption?, end: DurationOption?, of trace: Trace, options: String = "--start/--end") throws -> TimeRange? {
    guard start != nil || end != nil else { return nil }
    let range = TimeRange(start: start?.nanoseconds ?? trace.metadata.start, end: end?.nanoseconds ?? trace.metadata.end)
    guard range.end > range.start else {
        CommandContext.printError("\(options): the end must be after the start")
        throw ExitCode(1)
    }
    return range
}
