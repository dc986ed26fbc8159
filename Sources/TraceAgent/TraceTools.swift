import Foundation
import MCP

/// The tools over one trace: list, overview, findings, a view's updates, why an update ran, CPU.
enum TraceTools {
    static let listTraces = AgentTool(
        name: "list_traces",
        description: "List the recorded SwiftUI performance traces on the tracesvc server, newest upload first (samples last), with their ids, app, device, duration, update count and tags. Filter by tags (key:value, all must match) or search words (name, app, device, tag). Start here to find a trace id.",
        schema: Schema.object([
            "tags": Schema.strings("Tags every trace must have, e.g. [\"branch:main\", \"scenario:favorites\"]"),
            "search": Schema.string("Words, each in the name, app, device or a tag (any case)"),
            "limit": Schema.limit("traces", 20, max: 100),
            "cursor": Schema.cursor,
        ]),
        readOnly: true
    ) { arguments, context throws(ToolError) in
        let limit = try arguments.int("limit", in: 1...100) ?? 20
        var query = ["limit=\(limit)"] + (try arguments.strings("tags")).map { "tag=\(ShareLink.encode($0))" }
        if let search = try arguments.string("search") { query.append("q=\(ShareLink.encode(search))") }
        if let cursor = try arguments.string("cursor") { query.append("cursor=\(ShareLink.encode(cursor))") }
        let json = try await context.get("/api/traces?" + query.joined(separator: "&"), what: "listing traces")
        var answer = BoundedAnswer()
        let total = Int(json["total"].int ?? 0)
        answer.head = ["\(total) traces match, newest first. Each line: name, app, device, duration, updates, tags, then its id and link."]
        answer.items = json["traces"].list.map { trace in
            let id = trace["id"].text
            let tags = trace["tags"].list.compactMap(\.string)
            let kind = trace["isSample"].bool == true ? " · sample" : ""
            return "- \(Format.line(trace["name"].text)) · \(Format.line(trace["app"].text)) · \(Format.line(trace["device"].text)) · "
                + "\(Format.duration(trace["durationNs"].int)) · \(trace["updateCount"].int ?? 0) updates\(kind)"
                + (tags.isEmpty ? "" : " · tags \(tags.joined(separator: ", "))")
                + "\n  id \(id) · \(context.link(id, .init(pane: "findings")))"
        }
        if let next = json["nextCursor"].string {
            answer.tail = ["Next page: call list_traces with cursor \"\(next)\" (and the same filters)."]
        }
        return answer.render()
    }

    static let overview = AgentTool(
        name: "trace_overview",
        description: "Overview of one trace: what it recorded (app, device, duration), its lanes with long (orange > 500 µs, red > 1 ms) update counts, the views with the most body time, hitches, hangs, the Main Actor's busiest tasks and the top findings, each with the link that opens it. Use it first on a trace.",
        schema: Schema.object(["trace": Schema.trace], required: ["trace"]),
        readOnly: true
    ) { arguments, context throws(ToolError) in
        let id = try arguments.trace()
        return try await overviewText(id, context: context)
    }

    static func overviewText(_ id: String, context: AgentContext) async throws(ToolError) -> String {
        let info = try await context.get("/api/traces/\(id)", what: "trace \(id)")
        let summary = try await context.get("/api/traces/\(id)/summary", what: "the summary of trace \(id)")
        let findings = try await context.get("/api/traces/\(id)/findings", what: "the findings of trace \(id)")
        let counts = info["counts"]
        var head = [
            "# \(Format.line(info["name"].text)): \(Format.line(info["app"].text)) on \(Format.line(info["device"].text)) \(Format.line(info["osVersion"].text)), \(Format.duration((info["end"].int ?? 0) - (info["start"].int ?? 0)))",
            "Open: \(context.link(id, .init(pane: "findings")))",
            "Counts: \(counts["updates"].int ?? 0) updates in \(counts["updateGroups"].int ?? 0) groups, \(counts["hitches"].int ?? 0) hitches, \(counts["hangs"].int ?? 0) hangs, \(counts["samples"].int ?? 0) CPU samples, \(counts["taskStates"].int ?? 0) Swift task states.",
            "",
            "## Lanes (events · orange · red)",
        ]
        for lane in info["lanes"].list where (lane["count"].int ?? 0) > 0 && lane["signposts"].bool != true {
            head.append("- \(lane["title"].text): \(lane["count"].int ?? 0) · \(lane["orange"].int ?? 0) · \(lane["red"].int ?? 0)")
        }
        let signpostLanes = info["lanes"].list.filter { $0["signposts"].bool == true && ($0["level"].int ?? 0) == 0 }
        if !signpostLanes.isEmpty {
            head.append("- signposts: " + signpostLanes.prefix(6).map { "\(Format.line($0["title"].text, max: 80)) (\($0["groupSignposts"].int ?? 0))" }.joined(separator: "; "))
        }
        head += ["", "## Views with the most body time"]
        var views: [(module: String, view: JSON)] = []
        for process in summary["processes"].list {
            for module in process["modules"].list { views += module["views"].list.map { (module["name"].text, $0) } }
        }
        views.sort { ($0.view["totalNs"].int ?? 0, $1.module) > ($1.view["totalNs"].int ?? 0, $0.module) }
        for (module, view) in views.prefix(8) {
            let name = view["name"].text
            head.append("- \(Format.line(name)) (\(Format.line(module)), \(view["category"].text)): \(view["count"].int ?? 0) updates, total \(Format.duration(view["totalNs"].int)), max \(Format.duration(view["maxNs"].int)), \(view["red"].int ?? 0) red, \(view["orange"].int ?? 0) orange · \(context.link(id, .init(pane: "updates", paneView: (module, name, view["category"].text))))")
        }
        if (counts["taskStates"].int ?? 0) > 0 {
            let tasks = try await context.get("/api/traces/\(id)/tasks/summary", what: "the Swift tasks of trace \(id)")
            let main = tasks["rows"].list.filter { $0["isMainActor"].bool == true }
            if !main.isEmpty {
                head += ["", "## Main Actor: busiest tasks"]
                for row in main.prefix(5) {
                    head.append("- \(Format.line(row["title"].text)): ran \(Format.duration(row["running"].int)) in \(row["runs"].int ?? 0) runs, waited \(Format.duration(row["waiting"].int)) (longest \(Format.duration(row["longestWait"].int)))")
                }
            }
        }
        let list = findings["findings"].list
        head += ["", "## Top findings (\(findings["total"].int ?? 0) in all; the findings tool has their fixes and evidence)"]
        if list.isEmpty { head.append("- none") }
        for finding in list.prefix(5) {
            head.append("- [\(finding["severity"].text)] \(Format.line(finding["title"].text)), cost \(Format.duration(finding["costNs"].int)) · \(context.link(id, .init(pane: "findings", finding: finding["id"].text)))")
        }
        for kind in ["hang", "hitch"] {
            if let worst = list.first(where: { $0["kind"].text == kind }) {
                head.append("Worst \(kind): \(Format.line(worst["title"].text)) · \(context.link(id, .init(pane: "findings", finding: worst["id"].text)))")
            }
        }
        return BoundedAnswer.clip(head.joined(separator: "\n"))
    }

    static let findings = AgentTool(
        name: "findings",
        description: "What is wrong in a trace, costliest first: each finding's kind, cost (time it took), estimated saving, the fix to make, and its evidence (the representative update, the heaviest CPU frames with their callers, the views and properties involved), each with the link that opens it in the browser. The first tool for 'why is this slow'.",
        schema: Schema.object([
            "trace": Schema.trace,
            "kind": Schema.string("Only findings of this kind (e.g. long-body, collection-fan-out, hang, hitch; docs/findings.md)"),
            "limit": Schema.limit("findings", 8, max: 50),
            "cursor": Schema.cursor,
        ], required: ["trace"]),
        readOnly: true
    ) { arguments, context throws(ToolError) in
        let id = try arguments.trace()
        let limit = Int(try arguments.int("limit", in: 1...50) ?? 8)
        let offset = try arguments.offset()
        let kind = try arguments.string("kind")
        let json = try await context.get("/api/traces/\(id)/findings", what: "the findings of trace \(id)")
        let all = json["findings"].list.filter { kind == nil || $0["kind"].text == kind }
        var answer = BoundedAnswer()
        answer.head = ["\(all.count) findings\(kind.map { " of kind \($0)" } ?? "") in trace \(id), costliest first. Open all: \(context.link(id, .init(pane: "findings")))"]
        let page = all.dropFirst(offset).prefix(limit)
        answer.items = page.enumerated().map { index, finding in findingText(finding, number: offset + index + 1, trace: id, context: context) }
        return answer.render(offset: offset, total: all.count, noun: "findings") { "call findings with cursor \"\($0)\"" }
    }

    static func findingText(_ finding: JSON, number: Int, trace id: String, context: AgentContext) -> String {
        let evidence = finding["evidence"]
        var lines = [
            "",
            "## \(number). [\(finding["severity"].text)] \(Format.line(finding["title"].text, max: 500))",
            "id \(finding["id"].text) · kind \(finding["kind"].text) · cost \(Format.duration(finding["costNs"].int)) over \(finding["occurrences"].int ?? 0) occurrences · saving ≈ \(Format.duration(finding["savingNs"].int))",
            "Fix: \(Format.line(finding["fix"].text, max: 800))",
            "Evidence: \(context.link(id, .init(pane: "findings", finding: finding["id"].text)))",
        ]
        if let update = evidence["representativeUpdate"].int {
            lines.append("- why it ran (update \(update), its cause graph): \(context.link(id, .init(update: Int(update), pane: "graph", graph: "u\(update)")))")
        }
        let cpuView = evidence["cpuView"]
        if let view = cpuView["name"].string {
            let filter = cpuView["filter"].string.flatMap { $0 == "all" ? nil : $0 }
            lines.append("- CPU of its \(evidence["updateCount"].int ?? 0) \(Format.line(view)) updates: \(context.link(id, .init(pane: "cpu", paneView: (cpuView["module"].text, view, cpuView["category"].text), filter: filter, finding: finding["id"].text, cpuOfView: true, longerThan: cpuView["longerThanNs"].int)))")
        } else if let start = evidence["range"]["start"].int, let end = evidence["range"]["end"].int, end > start {
            lines.append("- CPU of \(Format.at(start))…\(Format.at(end)): \(context.link(id, .init(range: start...end, pane: "cpu", finding: finding["id"].text)))")
        }
        let frames = evidence["frames"].list
        if !frames.isEmpty {
            lines.append("- heaviest frames sampled: " + frames.prefix(5).map { frame in
                let caller = frame["caller"].text.isEmpty ? "" : " called by \(Format.line(frame["caller"].text, max: 120))"
                return "\(Format.line(frame["name"].text, max: 160)) (\(Format.line(frame["binary"].text, max: 60))) \(Format.duration(frame["weightNs"].int))\(caller)"
            }.joined(separator: "; "))
        }
        if let coverage = evidence["cpuCoverage"].double {
            lines.append("- main thread on CPU \(String(format: "%.0f%%", coverage * 100)) of the interval")
        }
        let subjects = finding["subjects"].list.filter { ["view", "property", "environment", "task", "function"].contains($0["role"].text) }
        if !subjects.isEmpty {
            lines.append("- involves: " + subjects.prefix(6).map { "\($0["role"].text) \(Format.line($0["name"].text, max: 120))" }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    static let viewUpdates = AgentTool(
        name: "view_updates",
        description: "One view's updates in a trace: its count, total, average and longest body time per module and category, then its longest updates (never all of them), each with its one-line cause and the link that opens it. Use it after the overview or findings named a slow view.",
        schema: Schema.object([
            "trace": Schema.trace,
            "view": Schema.string("The view's name, e.g. LandmarkListItemView"),
            "module": Schema.string("Its module, when several modules have a view of that name"),
            "limit": Schema.limit("longest updates", 10, max: 50),
            "cursor": Schema.cursor,
        ], required: ["trace", "view"]),
        readOnly: true
    ) { arguments, context throws(ToolError) in
        let id = try arguments.trace()
        let view = try arguments.required("view")
        let module = try arguments.string("module")
        let limit = Int(try arguments.int("limit", in: 1...50) ?? 10)
        let offset = try arguments.offset()
        let summary = try await context.get("/api/traces/\(id)/summary", what: "the summary of trace \(id)")
        var rows: [(module: String, row: JSON)] = []
        var names: [(String, Int64)] = []
        for process in summary["processes"].list {
            for mod in process["modules"].list {
                for row in mod["views"].list {
                    names.append((row["name"].text, row["totalNs"].int ?? 0))
                    if row["name"].text == view, module == nil || mod["name"].text == module { rows.append((mod["name"].text, row)) }
                }
            }
        }
        guard !rows.isEmpty else {
            let known = names.sorted { ($0.1, $1.0) > ($1.1, $0.0) }.prefix(10).map(\.0)
            throw ToolError("trace \(id) has no view named '\(Format.line(view, max: 80))'\(module.map { " in module \($0)" } ?? ""); its views with the most time: \(known.joined(separator: ", "))")
        }
        var query = "view=\(ShareLink.encode(view))&sort=duration&order=desc&offset=\(offset)&limit=\(limit)"
        if let module { query += "&module=\(ShareLink.encode(module))" }
        let updates = try await context.get("/api/traces/\(id)/updates?\(query)", what: "the updates of \(view)")
        var answer = BoundedAnswer()
        answer.head = ["# \(Format.line(view)) in trace \(id)"]
        for (module, row) in rows {
            answer.head.append("- \(Format.line(module)), \(row["category"].text): \(row["count"].int ?? 0) updates, total \(Format.duration(row["totalNs"].int)), average \(Format.duration(row["avgNs"].int)), longest \(Format.duration(row["maxNs"].int)), \(row["red"].int ?? 0) red (> 1 ms), \(row["orange"].int ?? 0) orange (> 500 µs) · \(context.link(id, .init(pane: "updates", paneView: (module, view, row["category"].text))))")
        }
        answer.head += ["", "## Longest updates"]
        answer.items = updates["updates"].list.map { update in
            let number = Int(update["id"].int ?? 0)
            let cause = update["cause"].text.isEmpty ? "" : " · cause: \(Format.line(update["cause"].text, max: 200))"
            return "- update \(number): \(Format.duration(update["duration"].int)) \(update["severity"].text) \(update["kind"].text) at \(Format.at(update["start"].int))\(cause) · \(context.link(id, .init(update: number, pane: "graph", graph: "u\(number)")))"
        }
        return answer.render(offset: offset, total: Int(updates["total"].int ?? 0), noun: "updates") { "call view_updates with cursor \"\($0)\"; why_update explains one" }
    }
}
