import Foundation
import TraceModel

/// Writes a trace as an xctrace export: the tables `XCTraceImporter` reads, in the shape
/// Instruments writes them. Importing the result gives the same trace back, except what the
/// export format cannot carry (see docs/xctrace-import.md).
public enum XCTraceExporter {
    public enum Layout: Sendable {
        /// All tables in one XML stream, one document after another.
        case concatenatedXML
        /// A tar archive of toc.xml and one file per table (what the export script uploads).
        case tarBundle
    }

    package static let updateColumns: [XCTraceWriter.Column] = [
        ("start", "Start", "start-time"), ("duration", "Duration", "duration"), ("id", "ID", "uint32"),
        ("update-type", "Update Type", "swiftui-update"), ("allocations", "Allocations", "event-count"),
        ("description", "Description", "string"), ("category", "Category", "string"),
        ("view-hierarchy", "View Hierarchy", "view-hierarchy"), ("module", "Module", "string"),
        ("view-name", "View Name", "string"), ("process", "Process", "process"), ("thread", "Thread", "thread"),
        ("root-causes", "Root Causes", "description-set"), ("severity", "Severity", "event-concept"),
        ("downstream-cost", "Downstream Cost", "duration"), ("downstream-events", "Downstream Events", "cause-set"),
        ("cause-graph-node", "Cause Graph Node", "typed-array"), ("full-cause-graph-node", "Full Cause Graph Node", "typed-array"),
    ]
    package static let groupColumns: [XCTraceWriter.Column] = [
        ("start", "Start", "start-time"), ("duration", "Duration", "duration"), ("label", "Label", "string"),
        ("cause-backtrace", "Cause Backtrace", "backtrace"), ("backtrace", "Backtrace", "backtrace"),
        ("process", "Process", "process"), ("thread", "Thread", "thread"),
    ]
    package static let causeColumns: [XCTraceWriter.Column] = [
        ("timestamp", "Timestamp", "event-time"), ("source-node-event-id", "Source Node Event ID", "uint32"),
        ("source-node", "Source Node", "typed-array"), ("destination-node-event-id", "Destination Node Event ID", "uint32"),
        ("destination-node", "Destination Node", "typed-array"), ("label", "Label", "string"),
        ("value-type", "Value Type", "string"), ("changed-properties", "Changed Properties", "string"),
        ("layout-info", "Layout Info", "string"), ("process", "Process", "process"),
    ]
    package static let changeColumns: [XCTraceWriter.Column] = [
        ("timestamp", "Timestamp", "event-time"), ("id", "ID", "uint32"), ("description", "Description", "string"),
        ("backtrace", "Backtrace", "backtrace"), ("process", "Process", "process"), ("thread", "Thread", "thread"),
    ]
    package static let sampleColumns: [XCTraceWriter.Column] = [
        ("time", "Sample Time", "sample-time"), ("thread", "Thread", "thread"), ("process", "Process", "process"),
        ("core", "Core", "core"), ("thread-state", "State", "thread-state"), ("weight", "Weight", "weight"),
        ("stack", "Backtrace", "backtrace"),
    ]
    package static let hangColumns: [XCTraceWriter.Column] = [
        ("start", "Start", "start-time"), ("duration", "Duration", "duration"), ("hang-type", "Hang Type", "hang-type"),
        ("thread", "Thread", "thread"), ("process", "Process", "process"),
    ]
    package static let hitchColumns: [XCTraceWriter.Column] = [
        ("start", "Start", "start-time"), ("duration", "Duration", "duration"), ("process", "Process", "process"),
        ("is-system", "Is System", "boolean"), ("swap-id", "Swap ID", "uint32"), ("label", "Swap ID", "string"),
        ("display", "Display", "display-name"), ("narrative-description", "Potential Issue", "string"),
    ]

    package static let taskStateColumns: [XCTraceWriter.Column] = [
        ("start", "Start", "start-time"), ("duration", "Duration", "duration"), ("task", "Swift Task", "analysis-core-swift-task"),
        ("enqueued-actor", "Enqueued on Actor", "swift-actor"), ("actor", "Acquired Actor", "swift-actor"),
        ("state", "Task State", "swift-task-state"), ("priority", "Task Priority", "swift-task-priority"),
        ("resume-function", "Resume Function", "text-symbol"), ("waiting-for", "Waiting For", "analysis-core-swift-task"),
        ("backtrace", "Creation Backtrace", "text-backtrace"), ("suspend-backtrace", "Suspend Backtrace", "text-backtrace"),
        ("process", "Process", "process"), ("thread", "Thread", "thread"), ("narrative", "Narrative", "narrative"),
    ]
    package static let taskInfoColumns: [XCTraceWriter.Column] = [
        ("time", "Timestamp", "event-time"), ("pid", "Process ID", "pid"), ("process", "Process", "process"),
        ("swift-task-id", "Swift Task ID", "swift-task-id"), ("task", "Task", "swift-task"),
    ]
    package static let taskLifetimeColumns: [XCTraceWriter.Column] = [
        ("start", "Start", "start-time"), ("duration", "Duration", "duration"), ("task", "Swift Task", "analysis-core-swift-task"),
        ("process", "Process", "process"),
    ]

    /// `os-signpost` as Instruments exports it: one row per begin, end or event (paired again on import).
    package static let signpostColumns: [XCTraceWriter.Column] = [
        ("time", "Time", "event-time"), ("thread", "Thread", "thread"), ("process", "Process", "process"),
        ("event-type", "Event Type", "event-type"), ("identifier", "Signpost ID", "os-signpost-identifier"),
        ("name", "Name", "signpost-name"), ("subsystem", "Subsystem", "subsystem"), ("category", "Category", "category"),
        ("message", "Message", "os-log-metadata"),
    ]

    /// Writes `trace` to `url`.
    public static func export(_ trace: Trace, to url: URL, layout: Layout) throws {
        let handle = try FileHandle.creatingForWriting(at: url)
        defer { try? handle.close() }
        try export(trace, layout: layout) { try handle.write(contentsOf: Data($0)) }
    }

    /// Streams the export of `trace` to `emit`.
    public static func export(_ trace: Trace, layout: Layout, emit: @escaping ([UInt8]) throws -> Void) throws {
        switch layout {
        case .concatenatedXML:
            for table in tables(of: trace) {
                var writer = XCTraceWriter(emit: emit)
                try table.write(&writer)
            }
        case .tarBundle:
            var files: [(name: String, bytes: [UInt8])] = [("toc.xml", tableOfContents(trace))]
            for table in tables(of: trace) {
                var bytes: [UInt8] = []
                var writer = XCTraceWriter { bytes += $0 }
                try table.write(&writer)
                files.append(("\(table.schema).xml", bytes))
            }
            try emit(TarArchive.archive(files))
        }
    }

    struct Table {
        var schema: String
        var write: (inout XCTraceWriter) throws -> Void
    }

    static func tables(of trace: Trace) -> [Table] {
        let context = Context(trace)
        return [
            Table(schema: "swiftui-updates") { try context.writeUpdates(&$0) },
            Table(schema: "swiftui-update-groups") { try context.writeGroups(&$0) },
            Table(schema: "swiftui-causes") { try context.writeCauses(&$0) },
            Table(schema: "swiftui-changes") { try context.writeChanges(&$0) },
            // Cycles go out as the CPU Profiler writes them, so that they come back as cycles.
            Table(schema: trace.metadata.cpuWeightUnit == .cycles ? "cpu-profile" : "time-profile") { try context.writeSamples(&$0) },
            Table(schema: "potential-hangs") { try context.writeHangs(&$0) },
            Table(schema: "hitches") { try context.writeHitches(&$0) },
        ] + (trace.tasks.count == 0 ? [] : [
            // Only with tasks: a recording without the Swift Tasks instrument has none of these.
            Table(schema: "SwiftTaskStateTable") { try context.writeTaskStates(&$0) },
            Table(schema: "SwiftTasksInfoTable") { try context.writeTaskInfo(&$0) },
            Table(schema: "SwiftTaskLifetime") { try context.writeTaskLifetimes(&$0) },
        ]) + (trace.signposts.count == 0 ? [] : [
            Table(schema: "os-signpost") { try context.writeSignposts(&$0) },
        ])
    }

    static func tableOfContents(_ trace: Trace) -> [UInt8] {
        let metadata = trace.metadata
        func attribute(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
                .replacingOccurrences(of: "<", with: "&lt;")
        }
        let seconds = Double(metadata.end) / 1e9
        let xml = """
        <?xml version="1.0"?>
        <trace-toc><run number="1"><info><target><device model="\(attribute(metadata.device))" os-version="\(attribute(metadata.osVersion))"/><process type="launched" name="\(attribute(metadata.app))"/></target><summary>\(metadata.recordedAt.map { "<start-date>\(attribute($0))</start-date>" } ?? "")<duration>\(seconds)</duration><template-name>SwiftUI</template-name></summary></info><data>\(tables(of: trace).map { "<table schema=\"\($0.schema)\"/>" }.joined())</data></run></trace-toc>

        """
        return Array(xml.utf8)
    }

    /// What the table writers share: thread and stack lookups, and event ids for updates.
    final class Context {
        let trace: Trace
        let appProcess: TraceProcess?
        /// Event id written in an update's `id` column: its node's, or a fresh one.
        var updateEventID: [Int64] = []

        init(_ trace: Trace) {
            self.trace = trace
            appProcess = trace.processes.first { $0.name == trace.metadata.app } ?? trace.processes.first
            var next = (trace.graph.nodes.eventID.max() ?? 0) + 1
            for row in 0..<trace.updates.count {
                if let node = trace.indexes.nodes(ofUpdate: row).first {
                    updateEventID.append(trace.graph.nodes.eventID[Int(node)])
                } else {
                    updateEventID.append(next)
                    next += 1
                }
            }
        }

        func thread(_ index: Int32, _ writer: inout XCTraceWriter) {
            guard index != noRow else { return writer.sentinel() }
            let thread = trace.threads[Int(index)]
            let process = trace.processes[Int(thread.process)]
            let name = thread.isMain && !XCTraceVocabulary.isMainThread(thread.name) ? "Main Thread" : thread.name
            writer.thread(tid: thread.tid, name: name, pid: process.pid, processName: process.name)
        }

        func process(ofThread index: Int32, _ writer: inout XCTraceWriter) {
            if index != noRow {
                let process = trace.processes[Int(trace.threads[Int(index)].process)]
                writer.process(pid: process.pid, name: process.name)
            } else if let appProcess {
                writer.process(pid: appProcess.pid, name: appProcess.name)
            } else {
                writer.sentinel()
            }
        }

        func stack(_ stack: Int32, _ writer: inout XCTraceWriter, tag: String = "backtrace") {
            guard stack != noRow else { return writer.sentinel() }
            let frames = trace.cpu.frames
            let leafFirst = trace.cpu.stacks.frames(of: Int(stack)).reversed().map { frame in
                let binary = trace.string(frames.binary[Int(frame)])
                let path = frames.isAppCode[Int(frame)]
                    ? "/private/var/containers/Bundle/Application/\(trace.metadata.app).app/\(binary)"
                    : "/System/Library/Frameworks/\(binary).framework/\(binary)"
                return (name: trace.string(frames.name[Int(frame)]), binary: binary, path: path, source: trace.sourceLocation(ofFrame: Int(frame)))
            }
            writer.backtrace(key: String(stack), leafFirst: leafFirst, tag: tag)
        }

        func node(_ node: Int, _ writer: inout XCTraceWriter) {
            let nodes = trace.graph.nodes
            writer.graphNode(
                name: trace.string(nodes.name[node]), isAppCode: nodes.isAppCode[node],
                symbol: XCTraceVocabulary.symbol(for: nodes.kind[node])
            )
        }

        func optionalString(_ ref: StringRef, _ writer: inout XCTraceWriter) {
            if ref == 0 { writer.sentinel() } else { writer.string(trace.string(ref)) }
        }

        func writeUpdates(_ w: inout XCTraceWriter) throws {
            let updates = trace.updates
            try w.table(schema: "swiftui-updates", tableIndex: 9, columns: XCTraceExporter.updateColumns, rows: 0..<updates.count) { row, w in
                w.time("start-time", updates.start[row])
                w.duration(updates.duration[row])
                w.number("uint32", updateEventID[row])
                w.leaf("swiftui-update", XCTraceVocabulary.updateTypeName(updates.kind[row]))
                w.number("event-count", Int64(updates.allocations[row]))
                optionalString(updates.description[row], &w)
                optionalString(updates.category[row], &w)
                w.sentinel()
                optionalString(updates.module[row], &w)
                optionalString(updates.viewName[row], &w)
                process(ofThread: updates.thread[row], &w)
                thread(updates.thread[row], &w)
                w.sentinel()
                if let severity = XCTraceVocabulary.severityName(updates.sourceSeverity[row]) {
                    w.leaf("event-concept", severity)
                } else {
                    w.sentinel()
                }
                w.sentinel()
                w.sentinel()
                if let node = trace.indexes.nodes(ofUpdate: row).first {
                    self.node(Int(node), &w)
                    self.node(Int(node), &w)
                } else {
                    w.sentinel()
                    w.sentinel()
                }
            }
        }

        func writeGroups(_ w: inout XCTraceWriter) throws {
            let groups = trace.updateGroups
            try w.table(schema: "swiftui-update-groups", tableIndex: 11, columns: XCTraceExporter.groupColumns, rows: 0..<groups.count) { row, w in
                w.time("start-time", groups.start[row])
                w.duration(groups.duration[row])
                w.string(trace.string(groups.label[row]))
                w.sentinel()
                w.sentinel()
                process(ofThread: groups.thread[row], &w)
                thread(groups.thread[row], &w)
            }
        }

        func writeCauses(_ w: inout XCTraceWriter) throws {
            let edges = trace.graph.edges
            let nodes = trace.graph.nodes
            try w.table(schema: "swiftui-causes", tableIndex: 2, columns: XCTraceExporter.causeColumns, rows: 0..<edges.count) { row, w in
                let source = Int(edges.source[row]), target = Int(edges.target[row])
                w.time("event-time", edges.timestamp[row])
                w.number("uint32", nodes.eventID[source])
                node(source, &w)
                w.number("uint32", nodes.eventID[target])
                node(target, &w)
                w.string(XCTraceVocabulary.edgeLabelName(edges.label[row]))
                w.sentinel()
                optionalString(edges.changedProperty[row], &w)
                w.sentinel()
                process(ofThread: noRow, &w)
            }
        }

        func writeChanges(_ w: inout XCTraceWriter) throws {
            let changes = trace.stateChanges
            try w.table(schema: "swiftui-changes", tableIndex: 3, columns: XCTraceExporter.changeColumns, rows: 0..<changes.count) { row, w in
                w.time("event-time", changes.timestamp[row])
                w.number("uint32", trace.graph.nodes.eventID[Int(changes.node[row])])
                w.string(trace.string(changes.description[row]))
                stack(changes.backtrace[row], &w)
                process(ofThread: changes.thread[row], &w)
                thread(changes.thread[row], &w)
            }
        }

        func writeSamples(_ w: inout XCTraceWriter) throws {
            let samples = trace.cpu.samples
            let cycles = trace.metadata.cpuWeightUnit == .cycles
            var columns = XCTraceExporter.sampleColumns
            if cycles { columns[5] = ("weight", "Cycles", "cycle-weight") }
            try w.table(schema: cycles ? "cpu-profile" : "time-profile", tableIndex: 13, columns: columns, rows: 0..<samples.count) { row, w in
                w.time("sample-time", samples.time[row])
                thread(samples.thread[row], &w)
                process(ofThread: samples.thread[row], &w)
                w.leaf("core", "0", fmt: "CPU 0 (P Core)")
                w.leaf("thread-state", "Running")
                if cycles {
                    w.leaf("cycle-weight", String(samples.weight[row]))
                } else {
                    w.leaf("weight", String(samples.weight[row]), fmt: XCTraceWriter.duration(samples.weight[row]))
                }
                stack(Int32(samples.stack[row]), &w)
            }
        }

        func writeHangs(_ w: inout XCTraceWriter) throws {
            try w.table(schema: "potential-hangs", tableIndex: 6, columns: XCTraceExporter.hangColumns, rows: trace.hangs) { hang, w in
                w.time("start-time", hang.start)
                w.duration(hang.duration)
                w.leaf("hang-type", hang.kind)
                thread(hang.thread, &w)
                process(ofThread: hang.thread, &w)
            }
        }

        // MARK: Swift tasks

        /// The process of task `row` (the app's when the task names none).
        func taskProcess(_ row: Int) -> TraceProcess? {
            let process = trace.tasks.process[row]
            return process == noRow ? appProcess : trace.processes[Int(process)]
        }

        func process(ofTask row: Int, _ writer: inout XCTraceWriter) {
            if let process = taskProcess(row) { writer.process(pid: process.pid, name: process.name) } else { writer.sentinel() }
        }

        /// An `analysis-core-swift-task` (or `swift-task` with name and backtrace): "NAME (ID)".
        /// Ids are per process, as in a real export: the key (the value's identity) holds both.
        func task(_ row: Int, _ w: inout XCTraceWriter, tag: String = "analysis-core-swift-task") {
            let tasks = trace.tasks
            let id = tasks.taskID[row]
            let name = trace.string(tasks.name[row])
            let fmt = "\(name.isEmpty ? "0x0" : name) (\(id))"
            w.composite(tag, key: "\(tasks.process[row]):\(id)", fmt: fmt) { w in
                w.number("swift-task-id", id)
                if tag == "swift-task" {
                    self.stack(tasks.creationBacktrace[row], &w, tag: "text-backtrace")
                    w.string(name)
                } else {
                    self.process(ofTask: row, &w)
                }
            }
        }

        func actor(_ text: StringRef, _ w: inout XCTraceWriter) {
            guard text != 0 else { return w.sentinel() }
            w.composite("swift-actor", key: trace.string(text), fmt: trace.string(text)) { w in w.sentinel() }
        }

        func writeTaskStates(_ w: inout XCTraceWriter) throws {
            let states = trace.taskStates
            try w.table(schema: "SwiftTaskStateTable", tableIndex: 21, columns: XCTraceExporter.taskStateColumns, rows: 0..<states.count) { row, w in
                let task = Int(states.task[row])
                let enqueued = states.state[row] == .enqueued
                w.time("start-time", states.start[row])
                w.duration(states.duration[row])
                self.task(task, &w)
                actor(enqueued ? states.actor[row] : 0, &w)
                actor(enqueued ? 0 : states.actor[row], &w)
                w.leaf("swift-task-state", states.state[row].title)
                let priority = states.priority[row]
                if priority == 0 { w.sentinel() } else {
                    w.composite("swift-task-priority", key: trace.string(priority), fmt: trace.string(priority)) { w in w.sentinel() }
                }
                let resume = states.resumeFunction[row]
                if resume == 0 { w.sentinel() } else {
                    w.composite("text-symbol", key: trace.string(resume), fmt: trace.string(resume)) { w in self.process(ofThread: noRow, &w) }
                }
                if states.waitingFor[row] == noRow { w.sentinel() } else { self.task(Int(states.waitingFor[row]), &w) }
                stack(trace.tasks.creationBacktrace[task], &w, tag: "text-backtrace")
                stack(states.suspendBacktrace[row], &w, tag: "text-backtrace")
                process(ofTask: task, &w)
                thread(states.thread[row], &w)
                w.composite("narrative", key: String(row), fmt: trace.string(states.narrative[row])) { w in w.sentinel() }
            }
        }

        func writeTaskInfo(_ w: inout XCTraceWriter) throws {
            try w.table(schema: "SwiftTasksInfoTable", tableIndex: 8, columns: XCTraceExporter.taskInfoColumns, rows: 0..<trace.tasks.count) { row, w in
                w.time("event-time", 0)
                w.number("pid", Int64(taskProcess(row)?.pid ?? -1))
                process(ofTask: row, &w)
                w.number("swift-task-id", trace.tasks.taskID[row])
                task(row, &w, tag: "swift-task")
            }
        }

        func writeTaskLifetimes(_ w: inout XCTraceWriter) throws {
            let tasks = trace.tasks
            try w.table(schema: "SwiftTaskLifetime", tableIndex: 13, columns: XCTraceExporter.taskLifetimeColumns, rows: 0..<tasks.count) { row, w in
                w.time("start-time", tasks.start[row])
                w.duration(tasks.end[row] - tasks.start[row])
                task(row, &w)
                process(ofTask: row, &w)
            }
        }

        // MARK: Signposts

        func writeSignposts(_ w: inout XCTraceWriter) throws {
            let signposts = trace.signposts
            // Begins, ends and events in time order, as the instrument records them; an unended interval has no end row.
            var rows: [(time: Nanoseconds, type: String, row: Int)] = []
            for row in 0..<signposts.count {
                switch signposts.kind[row] {
                case .event: rows.append((signposts.start[row], "Event", row))
                case .unended: rows.append((signposts.start[row], "Begin", row))
                case .interval:
                    rows.append((signposts.start[row], "Begin", row))
                    rows.append((signposts.end(row), "End", row))
                }
            }
            rows.sort { ($0.time, $0.type == "End" ? 0 : 1, $0.row) < ($1.time, $1.type == "End" ? 0 : 1, $1.row) }
            try w.table(schema: "os-signpost", tableIndex: 30, columns: XCTraceExporter.signpostColumns, rows: 0..<rows.count) { index, w in
                let (time, type, row) = rows[index]
                w.time("event-time", time)
                thread(signposts.thread[row], &w)
                let process = signposts.process[row]
                if process == noRow { self.process(ofThread: signposts.thread[row], &w) } else {
                    w.process(pid: trace.processes[Int(process)].pid, name: trace.processes[Int(process)].name)
                }
                w.leaf("event-type", type)
                w.leaf("os-signpost-identifier", String(signposts.signpostID[row]))
                w.leaf("signpost-name", trace.string(signposts.name[row]))
                w.leaf("subsystem", trace.string(signposts.subsystem[row]))
                w.leaf("category", trace.string(signposts.category[row]))
                let message = type == "End" ? signposts.endMessage[row] : signposts.beginMessage[row]
                if message == 0 { w.sentinel() } else { w.leaf("os-log-metadata", trace.string(message)) }
            }
        }

        func writeHitches(_ w: inout XCTraceWriter) throws {
            try w.table(schema: "hitches", tableIndex: 8, columns: XCTraceExporter.hitchColumns, rows: trace.hitches) { hitch, w in
                w.time("start-time", hitch.start)
                w.duration(hitch.duration)
                process(ofThread: noRow, &w)
                let isSystem = hitch.kind == XCTraceVocabulary.hitchKind(isSystem: true)
                w.leaf("boolean", isSystem ? "1" : "0", fmt: isSystem ? "Yes" : "No")
                w.sentinel()
                w.sentinel()
                w.leaf("display-name", "Display 1")
                w.string(hitch.detail)
            }
        }
    }
}
