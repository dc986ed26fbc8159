import Foundation
import TraceStorage

/// How long uploads are kept, by tag (`serve --retain 'branch=main:forever' --retain 'branch=*:30d'`):
/// the first rule whose tag matches a trace decides; a trace no rule matches is kept (docs/deploy.md,
/// "Retention").
public struct RetentionRule: Sendable, Equatable, CustomStringConvertible {
    public enum Selector: Sendable, Equatable {
        /// `*`: every trace.
        case all
        /// `key=*`: traces with a tag of that key (any value).
        case key(String)
        /// `key=value`, or a label alone (`nightly`).
        case tag(TraceTag)
    }

    public var selector: Selector
    /// Kept this long after upload; nil: forever.
    public var maxAgeSeconds: Int64?
    public let description: String

    /// `SELECTOR:AGE`: `*`, `key=*`, `key=value` or a label; `forever` or a number and a unit
    /// (`m` minutes, `h` hours, `d` days, `w` weeks).
    public init(parsing text: String) throws(RetentionError) {
        guard let colon = text.lastIndex(of: ":") else {
            throw RetentionError("'\(text)': expected TAG:AGE, e.g. 'branch=main:forever' or 'branch=*:30d'")
        }
        let selectorText = String(text[..<colon]), ageText = String(text[text.index(after: colon)...])
        if selectorText == "*" {
            selector = .all
        } else if selectorText.hasSuffix("=*") {
            let key = String(selectorText.dropLast(2))
            do {
                _ = try TraceTag(parsing: key)
            } catch {
                throw RetentionError("'\(text)': \(error.description)")
            }
            selector = .key(key)
        } else {
            do {
                selector = .tag(try TraceTag(parsing: selectorText, separator: "="))
            } catch {
                throw RetentionError("'\(text)': \(error.description)")
            }
        }
        if ageText == "forever" {
            maxAgeSeconds = nil
        } else {
            guard let age = Self.seconds(ageText) else {
                throw RetentionError("'\(text)': the age '\(ageText)' is not 'forever' or a whole number of m, h, d or w (30d, 12h, 2w)")
            }
            maxAgeSeconds = age
        }
        description = text
    }

    /// `30d`, `12h`, `2w`, `90m` in seconds; nil when it is none of these or not positive.
    public static func seconds(_ text: String) -> Int64? {
        guard let unit = text.last, let number = Int64(text.dropLast()), number > 0, number <= 100_000 else { return nil }
        switch unit {
        case "m": return number * 60
        case "h": return number * 3600
        case "d": return number * 86_400
        case "w": return number * 7 * 86_400
        default: return nil
        }
    }

    public func matches(tags: [String]) -> Bool {
        switch selector {
        case .all: true
        case let .key(key): tags.contains { $0 == key || $0.hasPrefix(key + ":") }
        case let .tag(tag): tags.contains(tag.text)
        }
    }
}

public struct RetentionError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

public struct RetentionPolicy: Sendable, Equatable {
    public var rules: [RetentionRule]

    public init(rules: [RetentionRule] = []) {
        self.rules = rules
    }

    public static let keepEverything = RetentionPolicy()

    /// True when some rule may delete a trace.
    public var deletes: Bool { rules.contains { $0.maxAgeSeconds != nil } }

    /// The rule that decides a trace's fate: the first that matches its tags.
    public func rule(for tags: [String]) -> RetentionRule? {
        rules.first { $0.matches(tags: tags) }
    }

    /// The rule that expires the entry at `now` (µs), nil when it is kept.
    public func expiring(_ entry: CatalogEntry, now: Int64) -> RetentionRule? {
        guard let rule = rule(for: entry.tags), let age = rule.maxAgeSeconds else { return nil }
        return entry.uploadedAtMicros < now - age * 1_000_000 ? rule : nil
    }

    /// Only traces uploaded before this (µs) can have expired at `now`; nil when none can.
    func oldestKeptAfter(now: Int64) -> Int64? {
        rules.compactMap(\.maxAgeSeconds).min().map { now - $0 * 1_000_000 }
    }
}
