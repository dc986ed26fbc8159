/// Times and durations are nanoseconds from the start of the recording, as `xctrace export` writes them.
public typealias Nanoseconds = Int64

/// Bounds on the numbers a trace may hold, so that no sum or difference a query computes can
/// overflow Int64, whatever a file says.
public enum TraceLimits {
    /// Largest magnitude of a time, and largest duration or sample weight: about 52 days.
    public static let time: Nanoseconds = 1 << 52
    /// Query windows may reach past the events (padding when zoomed out), but not this far.
    public static let queryTime: Nanoseconds = 1 << 54
    public static let times: ClosedRange<Nanoseconds> = -time...time
    public static let durations: ClosedRange<Nanoseconds> = 0...time
    public static let queryTimes: ClosedRange<Nanoseconds> = -queryTime...queryTime
}

extension Nanoseconds {
    /// Totals over many events saturate rather than trap (a trace may hold millions of long ones).
    @inlinable func addingSaturating(_ other: Nanoseconds) -> Nanoseconds {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// In place, so `dictionary[key, default: 0].addSaturating(x)` hashes the key once.
    @inlinable mutating func addSaturating(_ other: Nanoseconds) {
        self = addingSaturating(other)
    }
}

/// Index into `Trace.strings`. Every repeated text (view names, modules, frame names) is interned once.
public typealias StringRef = UInt32

/// "No row" marker for optional Int32 references between tables (update group of an update, etc.).
public let noRow: Int32 = -1

/// What a SwiftUI update was doing, as the instrument's `update-type` column says.
public enum UpdateKind: UInt8, Sendable, CaseIterable, Codable {
    case viewBody
    /// UIViewRepresentable / NSViewRepresentable, shown by Instruments as "platform view" updates.
    case representable
    case layout
    case other

    /// The spelling used in the native format and the JSON API.
    public var wireName: String {
        switch self {
        case .viewBody: "view-body"
        case .representable: "representable"
        case .layout: "layout"
        case .other: "other"
        }
    }

    public init?(wireName: String) {
        guard let kind = Self.allCases.first(where: { $0.wireName == wireName }) else { return nil }
        self = kind
    }

    /// The long-update lane of this kind, as the SwiftUI instrument groups them.
    public var longLane: Lane {
        switch self {
        case .viewBody: .longViewBody
        case .representable: .longRepresentable
        case .layout, .other: .longOther
        }
    }

    /// The sub-track of the expandable SwiftUI track that holds every update of this kind.
    public var allUpdatesLane: Lane {
        switch self {
        case .viewBody: .viewBody
        case .representable: .representable
        case .layout, .other: .otherUpdates
        }
    }
}

/// Severity as the recording tool reported it (`severity` column). Kept as given; the
/// duration-based `LongUpdateSeverity` is computed separately.
public enum SourceSeverity: UInt8, Sendable, CaseIterable, Codable {
    case none, veryLow, low, moderate, high

    public var wireName: String {
        switch self {
        case .none: "none"
        case .veryLow: "very-low"
        case .low: "low"
        case .moderate: "moderate"
        case .high: "high"
        }
    }

    public init?(wireName: String) {
        guard let value = Self.allCases.first(where: { $0.wireName == wireName }) else { return nil }
        self = value
    }
}

/// Apple's published thresholds for long updates: orange above 500 us, red above 1 ms.
public enum LongUpdateSeverity: UInt8, Sendable, CaseIterable, Comparable, Codable {
    case normal, orange, red

    public static let orangeThreshold: Nanoseconds = 500_000
    public static let redThreshold: Nanoseconds = 1_000_000

    public init(duration: Nanoseconds) {
        if duration > Self.redThreshold {
            self = .red
        } else if duration > Self.orangeThreshold {
            self = .orange
        } else {
            self = .normal
        }
    }

    public var isLong: Bool { self != .normal }

    public var wireName: String {
        switch self {
        case .normal: "normal"
        case .orange: "orange"
        case .red: "red"
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Kinds of node in the SwiftUI cause & effect graph.
public enum NodeKind: UInt8, Sendable, CaseIterable, Codable {
    case viewBody
    case state
    case observable
    case gesture
    case externalEnvironment
    case environmentWriter
    case viewCreation
    case other

    public var wireName: String {
        switch self {
        case .viewBody: "view-body"
        case .state: "state"
        case .observable: "observable"
        case .gesture: "gesture"
        case .externalEnvironment: "external-environment"
        case .environmentWriter: "environment-writer"
        case .viewCreation: "view-creation"
        case .other: "other"
        }
    }

    public init?(wireName: String) {
        guard let value = Self.allCases.first(where: { $0.wireName == wireName }) else { return nil }
        self = value
    }
}

/// The label Instruments puts on a cause & effect edge.
public enum EdgeLabel: UInt8, Sendable, CaseIterable, Codable {
    case update, creation

    public var wireName: String {
        switch self {
        case .update: "update"
        case .creation: "creation"
        }
    }

    public init?(wireName: String) {
        guard let value = Self.allCases.first(where: { $0.wireName == wireName }) else { return nil }
        self = value
    }
}

/// Timeline lanes, in the order the SwiftUI instrument draws them.
public enum Lane: String, Sendable, CaseIterable, Codable {
    case updateGroups = "update-groups"
    case longViewBody = "long-view-body"
    case longRepresentable = "long-representable"
    case longOther = "long-other"
    /// Sub-tracks of the expandable SwiftUI track: every update of the kind, long ones coloured.
    case viewBody = "view-body"
    case representable = "representable"
    case otherUpdates = "other"
    case hitches = "hitches"
    case hangs = "hangs"
    /// Instruments 27's hang risks: instants the recording flagged ("Main thread performed file I/O").
    case hangRisks = "hang-risks"
    case cpu = "cpu"
    /// Swift concurrency: when tasks ran on the main actor, and when they waited for it.
    case mainActor = "main-actor"
    case mainActorWaits = "main-actor-waits"

    public var title: String {
        switch self {
        case .updateGroups: "Update Groups"
        case .longViewBody: "Long View Body Updates"
        case .longRepresentable: "Long Representable Updates"
        case .longOther: "Other Long Updates"
        case .viewBody: "View Body Updates"
        case .representable: "Representable Updates"
        case .otherUpdates: "Other Updates"
        case .hitches: "Hitches"
        case .hangs: "Hangs"
        case .hangRisks: "Hang Risks"
        case .cpu: "CPU"
        case .mainActor: "Main Actor"
        case .mainActorWaits: "Main Actor Waits"
        }
    }

    /// Lanes whose events are rows of the update table.
    public var isUpdateLane: Bool {
        switch self {
        case .longViewBody, .longRepresentable, .longOther, .viewBody, .representable, .otherUpdates: true
        default: false
        }
    }
}

/// A half-open time interval [start, end) in trace nanoseconds.
public struct TimeRange: Sendable, Equatable, Hashable, Codable {
    public var start: Nanoseconds
    public var end: Nanoseconds
    public init(start: Nanoseconds, end: Nanoseconds) {
        self.start = start
        self.end = end
    }
    public var duration: Nanoseconds { end - start }
    /// True when an event [eventStart, eventEnd] overlaps this range (zero-length events count at their instant).
    public func overlaps(start eventStart: Nanoseconds, end eventEnd: Nanoseconds) -> Bool {
        eventStart < end && eventEnd >= start
    }
}
