import ArgumentParser
import Foundation
import Logging
import Synchronization
import TraceServer

/// `serve --log-format`: text lines (swift-log's default) or one JSON object a line.
enum LogFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case text, json

    /// Sets every logger of the process to this format at `level`; swift-log takes one bootstrap
    /// per process, so a second `serve` in the same process keeps the first's.
    func bootstrap(level: Logger.Level) {
        guard Self.bootstrapped.withLock({ done in defer { done = true }; return !done }) else { return }
        switch self {
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        case .json:
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
        }
    }

    private static let bootstrapped = Mutex(false)
}

/// `serve --metrics-listen HOST:PORT` (IPv6 in brackets: `[::1]:9090`).
func parseListenAddress(_ text: String, option: String) throws -> (host: String, port: Int) {
    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
        throw ValidationError("\(option) must be HOST:PORT, e.g. 127.0.0.1:9090 (got '\(text)')")
    }
    var host = String(text[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    guard !host.isEmpty else { throw ValidationError("\(option) needs a host, e.g. 127.0.0.1:\(port)") }
    return (host, port)
}
