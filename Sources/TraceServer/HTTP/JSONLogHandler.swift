import Foundation
import Logging
import Synchronization

/// `serve --log-format json`: one JSON object a line on standard error, for a log pipeline
/// (Loki, Elasticsearch, CloudWatch): `ts` (RFC 3339, UTC), `level`, `logger` (the label),
/// `message`, and the metadata's keys beside them (a key that would clash gets a `meta_` prefix).
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String

    public init(label: String, level: Logger.Level = .info) {
        self.label = label
        self.logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    static let reserved: Set<String> = ["ts", "level", "logger", "message"]
    /// Lines from concurrent tasks must not interleave.
    private static let output = Mutex(())

    public func log(event: LogEvent) {
        var object: [String: Any] = [
            "ts": Self.timestamp(), "level": event.level.rawValue, "logger": label, "message": "\(event.message)",
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for (key, value) in merged {
            object[Self.reserved.contains(key) ? "meta_\(key)" : key] = Self.plain(value)
        }
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        line.append(UInt8(ascii: "\n"))
        Self.output.withLock { _ in FileHandle.standardError.write(line) }
    }

    private static func plain(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let value):
            if let number = value as? Int { number } else if let number = value as? Double { number } else { "\(value)" }
        case .array(let values): values.map(plain)
        case .dictionary(let values): values.mapValues(plain)
        }
    }

    private static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }
}
