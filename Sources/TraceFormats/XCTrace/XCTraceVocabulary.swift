import Foundation
import TraceModel

/// How the SwiftUI template's texts map onto the model, in one place for the importer and the
/// exporter (so that exporting and importing again gives the same trace).
enum XCTraceVocabulary {
    /// The tables tracesvc reads, and what is lost without each.
    static let tables: [(name: String, without: String)] = [
        ("swiftui-updates", "the update lanes, the summary and the update details are empty"),
        ("swiftui-update-groups", "the Update Groups lane is empty"),
        ("swiftui-causes", "the cause & effect graph is empty"),
        ("swiftui-changes", "state changes have no backtraces"),
        ("time-profile", "there is no CPU lane or call tree (the CPU Profiler's cpu-profile serves too)"),
        ("potential-hangs", "the Hangs lane is empty"),
        ("hitches", "the Hitches lane is empty"),
    ]

    /// xctrace's spelling of a name the reader writes in camel case: "engineeringType" is
    /// "engineering-type", "traceTOC" is "trace-toc".
    static func spelling(ofCase name: String) -> String {
        var spelled = ""
        var afterUppercase = false
        for character in name {
            if character.isUppercase && !afterUppercase { spelled.append("-") }
            spelled += character.lowercased()
            afterUppercase = character.isUppercase
        }
        return spelled
    }

    // MARK: Updates

    static func updateKind(_ text: String) -> UpdateKind {
        let lower = text.lowercased()
        if lower.contains("body") { return .viewBody }
        if lower.contains("representable") || lower.contains("platform") { return .representable }
        if lower.contains("layout") { return .layout }
        return .other
    }

    static func updateTypeName(_ kind: UpdateKind) -> String {
        switch kind {
        case .viewBody: "View Body"
        case .representable: "Platform View"
        case .layout: "Layout"
        case .other: "Other Updates"
        }
    }

    static func severity(_ text: String) -> SourceSeverity {
        switch text.lowercased() {
        case "very low": .veryLow
        case "low": .low
        case "medium", "moderate": .moderate
        case "high", "very high": .high
        default: .none
        }
    }

    static func severityName(_ severity: SourceSeverity) -> String? {
        switch severity {
        case .none: nil
        case .veryLow: "Very Low"
        case .low: "Low"
        case .moderate: "Moderate"
        case .high: "High"
        }
    }

    // MARK: Cause graph nodes

    /// What a graph node is, from its title and SF Symbol. Names decide first (they are what
    /// Instruments prints); the symbol only tells apart what the name cannot. `isValue` is what
    /// the export's own columns say (a value-change time and no update): such a node named like a
    /// type is an attribute, environment or property value (`ForegroundStyleEnvironment`), no body.
    static func nodeKind(name: String, symbol: String, isValue: Bool = false) -> (kind: NodeKind, owner: String) {
        if name.hasPrefix("@State") || name.hasPrefix("@AppStorage") || name.hasPrefix("@SceneStorage") {
            return (.state, "")
        }
        if name.hasPrefix("@Observable") {
            // "@Observable ModelData.landmarks" or "@Observable ModelData": the owner is the class.
            let property = name.dropFirst("@Observable".count).trimmingSpaces
            let owner = property.contains(".") ? property.split(separator: ".").dropLast().joined(separator: ".") : property
            return (.observable, owner)
        }
        if symbol == observableSymbol { return (.observable, "") }
        if name.hasPrefix("Gesture") || symbol == gestureSymbol { return (.gesture, "") }
        if name == "External Environment" || name.hasPrefix("External: ") { return (.externalEnvironment, "") }
        if name.hasPrefix("EnvironmentWriter:") { return (.environmentWriter, "") }
        if name == "View Creation / Reuse" { return (.viewCreation, "") }
        if isTypeName(name) { return (isValue ? .other : .viewBody, "") }
        return (.other, "")
    }

    /// The symbol the exporter writes for a kind (Instruments' own where known).
    static func symbol(for kind: NodeKind) -> String {
        switch kind {
        case .viewBody: "square"
        case .state: "dollarsign.square"
        case .observable: observableSymbol
        case .gesture: gestureSymbol
        case .externalEnvironment, .environmentWriter: "pencil.and.list.clipboard"
        case .viewCreation: "plus.square.on.square"
        case .other: "point.3.filled.connected.trianglepath.dotted"
        }
    }

    static let observableSymbol = "binoculars"
    static let gestureSymbol = "hand.tap"

    /// "LandmarkListItemView", "ModifiedContent<Text, _PaddingLayout>": a Swift type, so a view with a body.
    static func isTypeName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isUppercase else { return false }
        var depth = 0
        for scalar in name.unicodeScalars {
            switch scalar {
            case "<": depth += 1
            case ">": depth -= 1
            case ".", "_": break
            case ",", " ": if depth == 0 { return false }
            default: if !(scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) { return false }
            }
        }
        return depth == 0
    }

    static func edgeLabel(_ text: String) -> EdgeLabel {
        text.lowercased().hasPrefix("creat") ? .creation : .update
    }

    static func edgeLabelName(_ label: EdgeLabel) -> String {
        switch label {
        case .update: "Update"
        case .creation: "Creation"
        }
    }

    // MARK: Threads and processes

    /// "Main Thread (0x1e9000) (MyApp, pid: 1001)" or "main  0x8480c1 (app, pid: 4)" -> "Main Thread" / "main".
    static func threadName(fromFormatted text: String) -> String {
        var name = Substring(text)
        if let open = name.range(of: " (", options: .backwards), name[open.upperBound...].contains("pid:") {
            name = name[..<open.lowerBound]
        }
        if name.hasSuffix(")"), let open = name.range(of: "(0x", options: .backwards) {
            name = name[..<open.lowerBound]
        } else if let space = name.lastIndex(of: " "), name[name.index(after: space)...].hasPrefix("0x") {
            name = name[..<space]
        } else if name.hasPrefix("0x"), !name.contains(" ") {
            name = ""
        }
        return String(name).trimmingSpaces
    }

    static func isMainThread(_ name: String) -> Bool {
        name == "Main Thread" || name.hasPrefix("Main Thread ") || name == "main"
    }

    /// "MyApp (1001)" -> "MyApp".
    static func processName(fromFormatted text: String) -> String {
        guard text.hasSuffix(")"), let open = text.range(of: " (", options: .backwards) else { return text }
        return String(text[..<open.lowerBound])
    }

    /// App code lives in an app bundle; everything under /System, /usr or a developer tools
    /// folder is the system's.
    static func isAppBinary(path: String?, name: String, appName: String) -> Bool {
        if let path, !path.isEmpty {
            if path.hasPrefix("/System/") || path.hasPrefix("/usr/") || path.contains("/Developer/") { return false }
            return path.contains(".app/") || (!appName.isEmpty && path.hasSuffix("/" + appName))
        }
        return !appName.isEmpty && name == appName
    }

    // MARK: Hitches

    static func hitchKind(isSystem: Bool) -> String { isSystem ? "System Hitch" : "Hitch" }
}
