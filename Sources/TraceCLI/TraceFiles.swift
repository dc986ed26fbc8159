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

/// The range `--start`/`--end` (or a named pair) give for `trace`: nil when neither is given,
/// a missing end is the trace's, and end <= start exits 1 naming the options.
func commandLineRange(start: Int64?, end: Int64?, of trace: Trace, options: String = "--start/--end") throws -> TimeRange? {
    guard start != nil || end != nil else { return nil }
    let range = TimeRange(start: start ?? trace.metadata.start, end: end ?? trace.metadata.end)
    guard range.end > range.start else {
        CommandContext.printError("\(options): the end must be after the start")
        throw ExitCode(1)
    }
    return range
}
