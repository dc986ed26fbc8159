import Foundation
import MCP

/// Across traces: compare, history; and the one write, a note.
enum CompareTools {
    static let compare = AgentTool(
        name: "compare",
        description: "Compare trace A (before) with trace B (after), verdict first: findings resolved or new, fan-outs gone, views with fewer or slower bodies (rank-tested, beyond noise or not), hitches, hangs, CPU functions. Give several recordings a side (comma-separated ids) to pool them: counts then read per run. The answer to 'did my change fix it?'.",
        schema: Schema.object([
            "a": Schema.string("Trace A, before: an id, or up to 10 ids separated by commas"),
            "b": Schema.string("Trace B, after: an id, or up to 10 ids separated by commas"),
            "limit": Schema.limit("rows of each table", 8, max: 40),
        ], required: ["a", "b"]),
        readOnly: true
    ) { arguments, context throws(ToolError) in
        func ids(_ name: String) throws(ToolError) -> [String] {
            let list = try arguments.required(name).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard (1...10).contains(list.count), list.allSatisfy({ $0.count == 32 && $0.allSatisfy(\.isHexDigit) }) else {
                throw ToolError("argument \(name): 1 to 10 trace ids (32 hex characters each), separated by commas")
            }
            return list
        }
        let (a, b) = (try ids("a"), try ids("b"))
        let limit = Int(try arguments.int("limit", in: 1...40) ?? 8)
        let query = "a=\(a.joined(separator: ","))&b=\(b.joined(separator: ","))&views=\(limit * 4)&causes=\(limit)&functions=\(limit)"
        let json = try await context.get("/api/compare?\(query)", what: "comparing \(a.joined(separator: ",")) with \(b.joined(separator: ","))")
        let pooled = a.count > 1 || b.count > 1
        var lines = [
            "# \(Format.line(json["a"]["name"].text)) (A, before\(a.count > 1 ? ", \(a.count) recordings" : "")) → \(Format.line(json["b"]["name"].text)) (B, after\(b.count > 1 ? ", \(b.count) recordings" : ""))",
            "Open: \(context.linkBase + ShareLink.comparison(a, b))",
        ]
        if pooled { lines.append("Pooled: counts and times are per run (the mean of a side's recordings).") }
        for difference in json["differences"].list { lines.append("Caution, not the same setup: \(Format.line(difference.text))") }
        lines += ["", "## Verdict"]
        for line in json["verdict"].list { lines.append("- [\(line["tone"].text)] \(Format.line(line["text"].text, max: 400))") }
        let findings = json["findings"].list
        if !findings.isEmpty {
            lines += ["", "## Findings"]
            for finding in findings.prefix(limit) {
                let cost = { (side: JSON) in side.isNull ? "-" : Format.duration(side["costNs"].int) }
                var line = "- \(finding["change"].text): \(Format.line(finding["title"].text, max: 300)), cost \(cost(finding["a"])) → \(cost(finding["b"]))"
                // The finding opens in the side that has it (B's when both: is it still there?).
                let side = finding["b"].isNull ? finding["a"] : finding["b"]
                if let id = side["id"].string, let run = side["run"].int, let trace = (finding["b"].isNull ? a : b)[safe: Int(run)] {
                    line += " · \(context.link(trace, .init(pane: "findings", finding: id)))"
                }
                lines.append(line)
            }
            if findings.count > limit { lines.append("- … \(findings.count - limit) more findings compared") }
        }
        let views = json["views"].list.filter { $0["significant"].bool == true }
        lines += ["", "## Views changed beyond noise (\(views.count) among the \(json["views"].list.count) largest changes of \(json["viewsTotal"].int ?? 0) view rows; the page has all)"]
        if views.isEmpty { lines.append("- none") }
        for view in views.prefix(limit) {
            let (va, vb) = (view["a"], view["b"])
            // Time per body over recordings (the updates' own rank test is detail within a recording, not evidence).
            let test = view["recordings"]["text"].string.map { ", time per one \($0)" } ?? ""
            lines.append("- \(Format.line(view["view"].text)) (\(Format.line(view["module"].text)), \(view["category"].text)): \(view["changeText"].text): \(va["count"].int ?? 0) → \(vb["count"].int ?? 0) updates, total \(Format.duration(va["totalNs"].int ?? 0)) → \(Format.duration(vb["totalNs"].int ?? 0))\(test)")
        }
        let causes = json["causes"].list.filter { $0["change"].text != "unchanged" }
        if !causes.isEmpty {
            lines += ["", "## Fan-outs that changed (cause → bodies)"]
            for cause in causes.prefix(limit) {
                let fan = { (side: JSON) in side.isNull ? "none" : "\(side["fanOut"].text) in \(side["events"].int ?? 0) events" }
                lines.append("- \(cause["change"].text): \(Format.line(cause["source"].text, max: 160)) → \(Format.line(cause["target"].text, max: 160)) (\(cause["outcome"].text)): \(fan(cause["a"])) → \(fan(cause["b"]))")
            }
        }
        let totals = json["totals"].list
        if !totals.isEmpty {
            lines += ["", "## Totals"]
            for total in totals {
                lines.append("- \(total["name"].text): \(total["a"]["count"].int ?? 0) → \(total["b"]["count"].int ?? 0), \(Format.duration(total["a"]["totalNs"].int ?? 0)) → \(Format.duration(total["b"]["totalNs"].int ?? 0))")
            }
        }
        let functions = json["functions"].list
        if !functions.isEmpty {
            lines += ["", "## CPU self time that changed most"]
            for function in functions.prefix(limit) {
                lines.append("- \(Format.line(function["name"].text, max: 200)) (\(Format.line(function["binary"].text, max: 60))): \(Format.duration(function["aSelfNs"].int ?? 0)) → \(Format.duration(function["bSelfNs"].int ?? 0))")
            }
        }
        return BoundedAnswer.clip(lines.joined(separator: "\n"))
    }

    static let history = AgentTool(
        name: "history",
        description: "A view's metric over builds (traces sharing tags such as branch:main and scenario:…): each build's median, the change points a rank test finds (a step that stayed) and the first bad build of the current regression, plus which findings appeared when. Metrics: body-time-total (default), body-count, body-time-p95, red-bodies, fan-out, hitch-count, hang-total, main-actor-run-total, cpu-total, finding-cost, and more.",
        schema: Schema.object([
            "tags": Schema.strings("Tags the traces share, e.g. [\"branch:main\", \"scenario:favorites\"]"),
            "view": Schema.string("The view (default: the one with the most body time lately)"),
            "module": Schema.string("The view's module"),
            "metric": Schema.string("The metric name (default body-time-total)"),
            "finding": Schema.string("With metric finding-cost: the finding's id"),
            "limit": Schema.limit("builds listed, the latest", 12, max: 60),
        ], required: ["tags"]),
        readOnly: true
    ) { arguments, context throws(ToolError) in
        let tags = try arguments.strings("tags")
        guard !tags.isEmpty else { throw ToolError("argument tags: at least one tag (key:value) the traces share") }
        var query = tags.map { "tag=\(ShareLink.encode($0))" }
        for key in ["view", "module", "metric", "finding"] {
            if let value = try arguments.string(key) { query.append("\(key)=\(ShareLink.encode(value))") }
        }
        let limit = Int(try arguments.int("limit", in: 1...60) ?? 12)
        let json = try await context.get("/api/history?\(query.joined(separator: "&"))", what: "the history of \(tags.joined(separator: ", "))")
        let metric = json["metric"]
        let unit = metric["unit"].text
        func value(_ number: Int64?) -> String { unit == "ns" ? Format.duration(number) : "\(number ?? 0)" }
        var linkQuery = tags.map { "tag=\(ShareLink.encode($0))" }
        if let view = json["view"].string { linkQuery.append("view=\(ShareLink.encode(view))") }
        if let module = json["module"].string { linkQuery.append("module=\(ShareLink.encode(module))") }
        linkQuery.append("metric=\(ShareLink.encode(metric["name"].text))")
        var lines = [
            "# \(metric["title"].text) of \(Format.line(json["view"].string ?? "the trace")) over \(json["builds"].list.count) builds (\(json["matched"].int ?? 0) traces, \(json["pending"].int ?? 0) still being measured)",
            "Open: \(context.linkBase)/history?\(linkQuery.joined(separator: "&"))",
        ]
        // A step's evidence over the whole series: exact, or its ratio and p (the false-alarm rate held over all splits).
        func evidence(_ point: JSON) -> String {
            let step = point["step"]
            let status = step["status"].text == "suspect" ? ", suspect (fewer than 3 builds after it)" : ""
            if step["exact"].bool == true { return "an exact count\(status)" }
            let ratio = 1 + (step["percent"].double ?? 0) / 100
            return String(format: "%.2fx, p=%.3g over the series", ratio, step["pValue"].double ?? 1) + status
        }
        if let bad = json["firstBad"]["label"].string {
            let first = json["firstBad"]
            lines.append("First bad build: \(Format.line(bad)) (after \(Format.line(first["previousLabel"].text))): \(value(first["before"].int)) → \(value(first["after"].int)), \(evidence(first)) · \(first["traceId"].string.map { context.link($0, .init(pane: "findings")) } ?? "")")
        } else {
            lines.append(Format.line(json["verdict"].text, max: 400))
        }
        let points = json["changePoints"].list
        if !points.isEmpty {
            lines += ["", "## Change points (steps beyond run-to-run noise, the false-alarm rate held over the whole series)"]
            for point in points.suffix(limit) {
                lines.append("- build \(Format.line(point["label"].text)): \(point["direction"].text) \(value(point["before"].int)) → \(value(point["after"].int)), \(evidence(point))")
            }
        }
        lines += ["", "## Latest builds (median, min…max)"]
        for build in json["builds"].list.suffix(limit) {
            lines.append("- \(Format.line(build["label"].text)): \(value(build["median"].int)) (\(value(build["min"].int))…\(value(build["max"].int)), \(build["traces"].list.count) traces)")
        }
        let findings = json["findings"].list
        if !findings.isEmpty {
            lines += ["", "## Findings over the builds"]
            for finding in findings.prefix(limit) {
                lines.append("- \(Format.line(finding["id"].text, max: 200)): first seen build \(Format.line(finding["firstSeen"]["label"].text)), last \(Format.line(finding["lastSeen"]["label"].text)), \(finding["stillPresent"].bool == true ? "still present" : "gone"), cost \(Format.duration(finding["costNs"].int))")
            }
        }
        for note in json["notes"].list { lines.append("Note: \(Format.line(note.text))") }
        lines.append("\nOne build is one recording or a few: each is one sample of run-to-run noise (σ \(String(format: "%.0f", (json["noise"]["sigma"].double ?? 0) * 100)) %, \(json["noise"]["source"].text)); a young step is suspect until 3 builds follow it.")
        return BoundedAnswer.clip(lines.joined(separator: "\n"))
    }

    static let addNote = AgentTool(
        name: "add_note",
        description: "Attach a short note (1 to 500 characters) to an uploaded trace's update, time range or finding, e.g. what fixed it. Needs the server's write token (over POST /mcp: send it; tracesvc mcp: --token-file). Samples cannot be annotated.",
        schema: Schema.object([
            "trace": Schema.trace,
            "text": Schema.string("The note"),
            "update": Schema.integer("Attach to this update id", minimum: 0, maximum: Int(Int32.max)),
            "start": Schema.integer("Or to a range: start, ns", minimum: 0, maximum: Int(Int64.max / 2)),
            "end": Schema.integer("Range end, ns", minimum: 1, maximum: Int(Int64.max / 2)),
            "finding": Schema.string("Or to a finding: its id"),
        ], required: ["trace", "text"]),
        readOnly: false
    ) { arguments, context throws(ToolError) in
        guard context.writesAllowed else {
            throw ToolError("add_note changes the server: this connection is read-only. Send the server's write token (Authorization: Bearer TOKEN) with POST /mcp.")
        }
        let id = try arguments.trace()
        let text = try arguments.required("text")
        let target: [String: Any]
        if let update = try arguments.int("update", in: 0...Int64(Int32.max)) {
            target = ["kind": "update", "update": update]
        } else if let finding = try arguments.string("finding") {
            target = ["kind": "finding", "finding": finding]
        } else if let start = try arguments.int("start", in: 0...(Int64.max / 2)), let end = try arguments.int("end", in: 1...(Int64.max / 2)) {
            target = ["kind": "range", "start": start, "end": end]
        } else {
            throw ToolError("say what the note is on: update, finding, or start and end")
        }
        let body: Data
        do { body = try JSONSerialization.data(withJSONObject: ["target": target, "text": text], options: [.sortedKeys]) } catch { throw ToolError("the note cannot be written as JSON") }
        let answer: APIAnswer
        do throws(TraceAPIError) { answer = try await context.api.post("/api/traces/\(id)/notes", json: body) } catch { throw ToolError("adding a note to trace \(id): \(error.description)") }
        let note = try AgentContext.read(answer, what: "adding a note to trace \(id)")
        return "Note \(note["id"].text) added to trace \(id) (\(note["target"]["kind"].text)): \(Format.line(note["text"].text, max: 500))\nOpen: \(context.linkBase)\(ShareLink.trace(id, .init(pane: "notes")))&nt=\(note["id"].text)"
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
