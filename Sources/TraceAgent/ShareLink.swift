import Foundation

/// Links into a tracesvc server's browser app, written as `WebRoot/js/state.js` writes them
/// (docs/share-links.md); both are checked against Tests/Fixtures/share-link-vectors.json.
public enum ShareLink {
    /// The link version: `STATE_VERSION` in state.js, "The current version" of docs/share-links.md.
    public static let version = 3

    /// The part of a trace page's view state that tracesvc writes outside the browser.
    public struct TraceView: Sendable {
        /// The selected update (the path `/updates/{id}`).
        public var update: Int?
        /// The visible window `w=` (ns on the trace's clock).
        public var window: ClosedRange<Int64>?
        /// The inspection range `r=` (ns on the trace's clock).
        public var range: ClosedRange<Int64>?
        /// The open pane `p=`: findings, summary, updates, cpu or graph.
        public var pane: String?
        /// The view the Updates or graph pane is about: `pv=Module:View`, `pc=Category` ("" for none).
        public var paneView: (module: String, view: String, category: String)?
        /// The long-update filter `f=` (`long-view-body`, ...).
        public var filter: String?
        /// What the graph is of `g=`: `u{update}` or `view`.
        public var graph: String?
        /// The finding expanded in the Findings pane `fd=`: its id.
        public var finding: String?
        /// The CPU pane is of `pv=`'s updates (`c=view`), only those longer than `cl=` ns.
        public var cpuOfView = false
        public var longerThan: Int64?
        /// A Swift task's interval shown in the side panel `ts=` (without an update in the path).
        public var taskState: Int?

        public init(
            update: Int? = nil, window: ClosedRange<Int64>? = nil, range: ClosedRange<Int64>? = nil, pane: String? = nil,
            paneView: (module: String, view: String, category: String)? = nil, filter: String? = nil, graph: String? = nil,
            finding: String? = nil, cpuOfView: Bool = false, longerThan: Int64? = nil, taskState: Int? = nil
        ) {
            (self.update, self.window, self.range, self.pane, self.paneView, self.filter) = (update, window, range, pane, paneView, filter)
            (self.graph, self.finding, self.cpuOfView, self.longerThan, self.taskState) = (graph, finding, cpuOfView, longerThan, taskState)
        }
    }

    /// Path and query of a trace page, keys in state.js's order (`buildPath`).
    public static func trace(_ traceID: String, _ view: TraceView = TraceView()) -> String {
        var path = "/traces/\(encode(traceID))"
        if let update = view.update { path += "/updates/\(update)" }
        var query = ["v=\(version)"]
        if let window = view.window { query.append("w=\(window.lowerBound),\(window.upperBound)") }
        if let range = view.range { query.append("r=\(range.lowerBound),\(range.upperBound)") }
        // With an update in the path, a missing p= means the graph: the Summary must be explicit.
        if let pane = view.pane ?? (view.update != nil ? "summary" : nil) { query.append("p=\(encodeKeepingSeparators(pane))") }
        if let paneView = view.paneView {
            query.append("pv=\(encode("\(paneView.module):\(paneView.view)"))")
            if !paneView.category.isEmpty { query.append("pc=\(encode(paneView.category))") }
        }
        if let filter = view.filter { query.append("f=\(encodeKeepingSeparators(filter))") }
        if let graph = view.graph { query.append("g=\(encodeKeepingSeparators(graph))") }
        if let finding = view.finding { query.append("fd=\(encode(finding))") }
        if view.cpuOfView { query.append("c=view") }
        if let longerThan = view.longerThan { query.append("cl=\(longerThan)") }
        if view.update == nil, let taskState = view.taskState { query.append("ts=\(taskState)") }
        return "\(path)?\(query.joined(separator: "&"))"
    }

    /// Path and query of the comparison of trace `a` (before) with `b` (`buildComparePath`).
    public static func comparison(_ a: String, _ b: String) -> String {
        comparison([a], [b])
    }

    /// The comparison of A's recordings with B's: `/compare/A/B` for one each, else the pooled
    /// form `/compare?v=3&a=A1,A2&b=B1` (docs/share-links.md, "Comparison pages").
    public static func comparison(_ a: [String], _ b: [String]) -> String {
        if a.count == 1, b.count == 1 { return "/compare/\(encode(a[0]))/\(encode(b[0]))?v=\(version)" }
        return "/compare?v=\(version)&a=\(a.map(encode).joined(separator: ","))&b=\(b.map(encode).joined(separator: ","))"
    }

    /// As JavaScript's encodeURIComponent.
    public static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// As state.js's `enc`: "," and ":" stay readable in lists and spans.
    private static func encodeKeepingSeparators(_ text: String) -> String {
        encode(text).replacingOccurrences(of: "%2C", with: ",").replacingOccurrences(of: "%3A", with: ":")
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")
}
