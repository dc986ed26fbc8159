import Foundation

/// A limit on the traces that carry a tag (`serve --tag-quota 'project=*:2000 traces' --tag-quota
/// 'project=*:10GB'`): of each value of the key on its own (`key=*`), or of one tag (`key=value`,
/// or a label); a number of traces or their bytes. The catalog checks
/// it in the transaction that stores a trace or edits its tags, so uploads and tag edits on
/// several replicas at once cannot together pass it (docs/deploy.md, "Quotas by tag").
public struct TagQuota: Sendable, Equatable, CustomStringConvertible {
    public enum Selector: Sendable, Equatable {
        /// `key=*`: every value of the key, each counted apart (`project:pantry`, `project:recipes`).
        case key(String)
        /// `key=value`, or a label alone (`nightly`).
        case tag(TraceTag)
    }

    public let selector: Selector
    /// One of the two: the traces with the tag, or their bytes.
    public private(set) var maxTraces: Int?
    public private(set) var maxBytes: Int64?
    /// As given on the command line.
    public let description: String

    /// `SELECTOR:LIMIT`: `key=*`, `key=value` or a label; then `N traces` or a size (`500MB`,
    /// `10GB`; KB, MB, GB, TB, powers of 1024).
    public init(parsing text: String) throws(TagQuotaError) {
        guard let colon = text.lastIndex(of: ":") else {
            throw TagQuotaError("'\(text)': expected TAG:LIMIT, e.g. 'project=*:2000 traces' or 'project=*:10GB'")
        }
        let selectorText = String(text[..<colon]), limitsText = String(text[text.index(after: colon)...])
        do throws(TagError) {
            if selectorText.hasSuffix("=*") {
                let key = String(selectorText.dropLast(2))
                _ = try TraceTag(parsing: key)
                selector = .key(key)
            } else {
                selector = .tag(try TraceTag(parsing: selectorText, separator: "="))
            }
        } catch {
            throw TagQuotaError("'\(text)': \(error.description)")
        }
        let limit = limitsText.filter { $0 != " " }.lowercased()
        let digits = limit.prefix { $0.isASCII && $0.isNumber }
        let unit = limit.dropFirst(digits.count)
        let shift: Int64? = switch unit {
        case "kb": 10
        case "mb": 20
        case "gb": 30
        case "tb": 40
        default: nil
        }
        guard let number = Int64(digits), number > 0, unit == "traces" || unit == "trace" || shift != nil,
              !number.multipliedReportingOverflow(by: Int64(1) << (shift ?? 0)).overflow
        else {
            throw TagQuotaError("'\(text)': '\(limitsText)' is not a positive whole number of traces, KB, MB, GB or TB (2000 traces, 10GB)")
        }
        if let shift { maxBytes = number << shift } else { maxTraces = Int(number) }
        description = text
    }

    /// The tags among `tags` (stored texts) this quota counts apart.
    public func tags(among tags: [String]) -> [String] {
        switch selector {
        case let .key(key): tags.filter { $0.hasPrefix(key + ":") }
        case let .tag(tag): tags.filter { $0 == tag.text }
        }
    }

    /// Each tag of `tags` (stored texts) with each quota that counts it.
    public static func applying(_ quotas: [TagQuota], to tags: [String]) -> [(quota: TagQuota, tag: String)] {
        quotas.flatMap { quota in quota.tags(among: tags).map { (quota, $0) } }
    }

    /// Why a trace of `bytes` more cannot be stored under `tag`, used as `usage` says; nil when it can.
    public func refusal(tag: String, usage: TagUsage, adding bytes: Int64) -> TagQuotaExceeded? {
        if let maxTraces, usage.traces + 1 > maxTraces {
            return TagQuotaExceeded(tag: tag, quota: description, detail: "it holds \(usage.traces) traces, at most \(maxTraces)")
        }
        if let maxBytes, usage.bytes + bytes > maxBytes {
            return TagQuotaExceeded(tag: tag, quota: description, detail:
                "its traces hold \(Self.sizeText(usage.bytes)); this one's \(Self.sizeText(bytes)) more would pass \(Self.sizeText(maxBytes))")
        }
        return nil
    }

    /// `10GB`, `1.5MB`, `12KB` (powers of 1024, as the quota is given).
    static func sizeText(_ bytes: Int64) -> String {
        guard bytes > 0 else { return "0KB" }
        for (unit, shift) in [("TB", 40), ("GB", 30), ("MB", 20)] where bytes >= Int64(1) << shift {
            let value = Double(bytes) / Double(Int64(1) << shift)
            return value == value.rounded() ? "\(Int64(value))\(unit)" : "\(String(format: "%.1f", value))\(unit)"
        }
        return "\(max(1, (bytes + 1023) >> 10))KB"
    }
}

/// What the traces with one tag hold.
public struct TagUsage: Sendable, Equatable {
    public var traces: Int
    public var bytes: Int64

    public init(traces: Int = 0, bytes: Int64 = 0) {
        self.traces = traces
        self.bytes = bytes
    }
}

public struct TagQuotaError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A trace refused by a tag's quota: which tag, which quota, and how full it is (the API's 403).
public struct TagQuotaExceeded: Error, Sendable, Equatable, CustomStringConvertible {
    public var tag: String
    public var quota: String
    public var detail: String

    public var description: String {
        "The tag '\(tag)' is at its quota (--tag-quota '\(quota)'): \(detail). Delete some of its traces or ask for a larger quota."
    }
}
