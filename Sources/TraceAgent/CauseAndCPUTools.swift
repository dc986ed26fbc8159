import Foundation
import MCP

/// Why an update ran, and where the CPU went.
enum CauseAndCPUTools {
    static let whyUpdate = AgentTool(
        name: "why_update",
        description: "Why one update ran: its cause chain from the state change, gesture, environment change or Swift task that started it, through the views in between, to this body, with the backtrace of the code that made the change (the app's frames marked) and the other direct causes. Take update ids from view_updates or findings.",
        schema: Schema.object([
            "trace": Schema.trace,
            "update": Schema.integer("The update id", minimum: 0, maximum: Int(Int32.max)),
        ], required: ["trace", "update"]),
        readOnly: true
    ) { arguments, context throws(ToolError) in
        let id = try arguments.trace()
        guard let number = try arguments.int("update", in: 0...Int64(Int32.max)) else { throw ToolError("argument update is required") }
        let update = try await context.get("/api/traces/\(id)/updates/\(number)", what: "update \(number) of trace \(id)")
        let graph = try await context.get("/api/traces/\(id)/updates/\(number)/graph", what: "the cause graph of update \(number)")
        let updateLink = context.link(id, .init(update: Int(number), pane: "graph", graph: "u\(number)"))
        var lines = [
            "# Update \(number): \(Format.line(update["description"].text)) (\(Format.line(update["module"].text)), \(update["category"].text)), \(Format.duration(update["duration"].int)) \(update["severity"].text) at \(Format.at(update["start"].int))",
            "Open with its cause graph: \(updateLink)",
        ]
        if !update["group"].isNull {
            lines.append("In update group '\(Format.line(update["group"]["label"].text))' (\(Format.duration(update["group"]["duration"].int)))")
        }
        let chain = causeChain(graph, update: number)
        lines += ["", "## Cause chain (origin first)"]
        if chain.isEmpty { lines.append("- the graph records no cause for this update") }
        for (index, step) in chain.enumerated() {
            let node = step.node
            let via = step.edge.map { edge in
                let property = edge["property"].text.isEmpty ? "" : " (\(Format.line(edge["property"].text, max: 120)))"
                let count = (edge["count"].int ?? 1) > 1 ? " ×\(edge["count"].int ?? 1)" : ""
                return "  ↓ \(edge["label"].text)\(property)\(count)"
            }
            if index > 0, let via { lines.append(via) }
            let owner = node["isAppCode"].bool == true ? "app" : "system"
            let subtitle = node["subtitle"].text.isEmpty ? "" : " — \(Format.line(node["subtitle"].text, max: 160))"
            lines.append("\(index + 1). \(Format.line(node["title"].text)) [\(node["kind"].text), \(owner)]\(subtitle)")
            if node["task"]["taskState"].int != nil {
                let task = node["task"]
                lines.append("   Swift task (\(task["role"].text), \(Format.duration(task["durationNs"].int))): \(context.link(id, .init(taskState: task["taskState"].int.map(Int.init))))")
            }
        }
        if let changed = chain.first(where: { !$0.node["backtrace"].list.isEmpty })?.node {
            let frames = changed["backtrace"].list
            lines += ["", "## Backtrace of the change to \(Format.line(changed["title"].text)) (leaf first, app frames marked ▶)"]
            for frame in frames.prefix(16) {
                lines.append("\(frame["isAppCode"].bool == true ? "▶" : " ") \(Format.line(frame["name"].text, max: 200)) (\(Format.line(frame["binary"].text, max: 60)))")
            }
            if frames.count > 16 { lines.append("  … \(frames.count - 16) more frames in the graph") }
        }
        let causes = update["causes"].list
        if causes.count > 1 {
            lines += ["", "## All direct causes (\(update["causeCount"].int ?? Int64(causes.count)))"]
            for cause in causes.prefix(12) {
                let property = cause["property"].text.isEmpty ? "" : " (\(Format.line(cause["property"].text, max: 120)))"
                lines.append("- \(Format.line(cause["title"].text)) [\(cause["kind"].text)] —\(cause["label"].text)\(property)")
            }
        }
        if let previous = update["previous"].int { lines.append("\nPrevious update of this view: \(previous); next: \(update["next"].int.map(String.init) ?? "none")") }
        return BoundedAnswer.clip(lines.joined(separator: "\n"))
    }

    /// The chain from the update's node back to its origin: at each node the incoming edge from
    /// the app's own code first (then the heaviest), never revisiting a node; at most 16 steps.
    static func causeChain(_ graph: JSON, update: Int64) -> [(node: JSON, edge: JSON?)] {
        let graphNodes = graph["nodes"].list
        var byID: [String: JSON] = [:]
        for node in graphNodes { byID[node["id"].text] = node }
        var incoming: [String: [JSON]] = [:]
        for edge in graph["edges"].list { incoming[edge["to"].text, default: []].append(edge) }
        guard let target = graphNodes.first(where: { $0["focus"].bool == true })
            ?? graphNodes.first(where: { $0["updates"].list.contains { $0.int == update } }) else { return [] }
        // nodes[0] is the update's; edges[i] leads from nodes[i + 1] into nodes[i].
        var nodes = [target]
        var edges: [JSON] = []
        var seen: Set<String> = [target["id"].text]
        while nodes.count < 16 {
            let current = nodes[nodes.count - 1]["id"].text
            let candidates = (incoming[current] ?? []).filter { !seen.contains($0["from"].text) && byID[$0["from"].text] != nil }
            func rank(_ edge: JSON) -> (Int, Int, Int64) {
                let node = byID[edge["from"].text] ?? JSON(nil)
                return (node["isAppCode"].bool == true ? 1 : 0, node["dimmed"].bool == true ? 0 : 1, edge["count"].int ?? 1)
            }
            guard let edge = candidates.max(by: { a, b in rank(a) != rank(b) ? rank(a) < rank(b) : a["from"].text > b["from"].text }),
                  let cause = byID[edge["from"].text] else { break }
            edges.append(edge)
            nodes.append(cause)
            seen.insert(cause["id"].text)
        }
        // Origin first, each step with the edge that leads into it from the step before.
        return nodes.indices.reversed().map { index in (nodes[index], index < edges.count ? edges[index] : nil) }
    }

    static let cpuHotspots = AgentTool(
        name: "cpu_hotspots",
        description: "Where the CPU went: the top functions by self time (on CPU themselves) and by total time (with their callees), of a whole trace, a time range, one update, or every update of a view (rooted at its body). Shares are of the samples chosen. Give one of: update, view (and module), or start and end (ns).",
        schema: Schema.object([
            "trace": Schema.trace,
            "update": Schema.integer("An update id: the samples of its thread during it", minimum: 0, maximum: Int(Int32.max)),
            "view": Schema.string("A view name: the samples inside its updates"),
            "module": Schema.string("The view's module"),
            "start": Schema.integer("Range start, ns on the trace's clock", minimum: 0, maximum: Int(Int64.max / 2)),
            "end": Schema.integer("Range end, ns", minimum: 1, maximum: Int(Int64.max / 2)),
            "hideSystem": .object(["type": "boolean", "description": "Charge system libraries' time to the app frame that called them"]),
            "limit": Schema.limit("functions of each list", 12, max: 40),
        ], required: ["trace"]),
        readOnly: true
    ) { arguments, context throws(ToolError) in
        let id = try arguments.trace()
        let limit = Int(try arguments.int("limit", in: 1...40) ?? 12)
        var query: [String] = []
        var what: String
        var link: String
        if let number = try arguments.int("update", in: 0...Int64(Int32.max)) {
            let update = try await context.get("/api/traces/\(id)/updates/\(number)", what: "update \(number) of trace \(id)")
            let start = update["start"].int ?? 0
            let end = start + max(1, update["duration"].int ?? 1)
            query += ["start=\(start)", "end=\(end)"]
            if let thread = update["thread"]["index"].int { query.append("thread=\(thread)") }
            what = "update \(number) (\(Format.line(update["description"].text)), \(Format.duration(end - start)), its thread)"
            link = context.link(id, .init(range: start...end, pane: "cpu"))
        } else if let view = try arguments.string("view") {
            let module = try arguments.string("module")
            query.append("view=\(ShareLink.encode(view))")
            if let module { query.append("module=\(ShareLink.encode(module))") }
            what = "every update of \(Format.line(view))"
            link = context.link(id, .init(pane: "cpu", paneView: (module ?? "", view, ""), cpuOfView: true))
        } else if let start = try arguments.int("start", in: 0...(Int64.max / 2)), let end = try arguments.int("end", in: 1...(Int64.max / 2)) {
            guard end > start else { throw ToolError("argument end must be after start") }
            query += ["start=\(start)", "end=\(end)"]
            what = "\(Format.at(start))…\(Format.at(end))"
            link = context.link(id, .init(range: start...end, pane: "cpu"))
        } else {
            if try arguments.int("start", in: 0...(Int64.max / 2)) != nil || arguments.values["end"] != nil { throw ToolError("give both start and end") }
            what = "the whole trace"
            link = context.link(id, .init(pane: "cpu"))
        }
        if arguments.values["hideSystem"]?.boolValue == true { query.append("hideSystem=true") }
        let common = query.joined(separator: "&")
        let bottomUp = try await context.get("/api/traces/\(id)/calltree?mode=bottom-up&minPercent=0.05&\(common)", what: "the CPU of \(what)")
        let topDown = try await context.get("/api/traces/\(id)/calltree?mode=top-down&minPercent=0.05&\(common)", what: "the CPU of \(what)")
        let unit = bottomUp["unit"].text
        let totalWeight = bottomUp["totalWeight"].int ?? 0
        var lines = [
            "# CPU of \(what) in trace \(id): \(Format.weight(totalWeight, unit: unit)) in \(bottomUp["sampleCount"].int ?? 0) samples",
            "Open: \(link)",
        ]
        if let updates = topDown["updateCount"].int { lines.append("From \(updates) updates of the view.") }
        guard totalWeight > 0 else {
            lines.append("No CPU samples there (the recording has none, or none fall in the range).")
            return lines.joined(separator: "\n")
        }
        var located = false
        /// " at /path/File.swift:88" when the recording has the frame's source, else "".
        func source(_ location: JSON) -> String {
            guard let path = location["path"].string else { return "" }
            located = true
            let line = location["line"].int ?? 0
            return " at \(Format.line(path, max: 200))\(line > 0 ? ":\(line)" : "")"
        }
        lines += ["", "## By self time (on CPU themselves)"]
        for root in bottomUp["roots"].list.prefix(limit) {
            let weight = root["self"].int ?? 0
            let caller = root["children"][0]["name"].string.map { " · heaviest caller \(Format.line($0, max: 160))" } ?? ""
            lines.append("- \(Format.line(root["name"].text, max: 200)) (\(Format.line(root["binary"].text, max: 60))\(root["isAppCode"].bool == true ? ", app" : "")\(source(root["source"]))): \(Format.weight(weight, unit: unit)), \(Format.percent(weight, of: totalWeight))\(caller)")
        }
        lines += ["", "## By total time (with callees)"]
        for entry in inclusive(topDown).prefix(limit) {
            lines.append("- \(Format.line(entry.name, max: 200)) (\(Format.line(entry.binary, max: 60))\(entry.isApp ? ", app" : "")\(source(entry.source))): \(Format.weight(entry.total, unit: unit)), \(Format.percent(entry.total, of: totalWeight))")
        }
        if !located { lines.append("\n(The recording carries no source file:line for these frames; the binary names where a frame lives.)") }
        return BoundedAnswer.clip(lines.joined(separator: "\n"))
    }

    /// Each function's time with its callees in a top-down tree: a node counts unless the same
    /// function is already on its path (recursion counts once). Walked with a stack, not recursion.
    static func inclusive(_ tree: JSON) -> [(name: String, binary: String, isApp: Bool, total: Int64, source: JSON)] {
        struct Key: Hashable { var name: String; var binary: String }
        var totals: [Key: (isApp: Bool, total: Int64, source: JSON)] = [:]
        var stack: [(node: JSON, onPath: Set<Key>)] = tree["roots"].list.map { ($0, []) }
        while let (node, onPath) = stack.popLast() {
            let key = Key(name: node["name"].text, binary: node["binary"].text)
            var path = onPath
            // Thread roots and the folds ("System libraries", "Outside V.body") are not functions.
            let isFunction = !node["step"].text.hasPrefix("t") && !["sys", "out"].contains(node["step"].text)
            if isFunction, !onPath.contains(key) {
                totals[key, default: (node["isAppCode"].bool == true, 0, node["source"])].total += node["total"].int ?? 0
                path.insert(key)
            }
            for child in node["children"].list { stack.append((child, path)) }
        }
        return totals.map { ($0.key.name, $0.key.binary, $0.value.isApp, $0.value.total, $0.value.source) }
            .sorted { ($0.total, $1.name, $1.binary) > ($1.total, $0.name, $0.binary) }
    }
}
