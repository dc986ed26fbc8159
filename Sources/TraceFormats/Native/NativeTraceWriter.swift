import CompressNIO
import Foundation
import NIOCore
import TraceModel

/// Writes a `Trace` in the native format (docs/trace-format.md), one row per line so files
/// diff well. The output is a pure function of the trace: same trace, same bytes.
public enum NativeTraceWriter {
    /// The whole file in memory (samples, tests).
    public static func encode(_ trace: Trace) -> [UInt8] {
        var result: [UInt8] = []
        encode(trace) { result.append(contentsOf: $0) }
        return result
    }

    /// Streams the file to `url`, gzip-compressed when the name ends in ".gz".
    public static func write(_ trace: Trace, to url: URL) throws {
        let handle = try FileHandle.creatingForWriting(at: url)
        defer { try? handle.close() }
        if url.pathExtension.lowercased() == "gz" {
            let gzip = try GzipStream()
            var failure: (any Error)?
            encode(trace) { chunk in
                guard failure == nil else { return }
                do { try gzip.compress(chunk, finish: false) { try handle.write(contentsOf: $0) } } catch { failure = error }
            }
            if let failure { throw failure }
            try gzip.compress([], finish: true) { try handle.write(contentsOf: $0) }
        } else {
            var failure: (any Error)?
            encode(trace) { chunk in
                guard failure == nil else { return }
                do { try handle.write(contentsOf: chunk) } catch { failure = error }
            }
            if let failure { throw failure }
        }
    }

    /// Calls `emit` with consecutive pieces of the file (about 1 MB each).
    public static func encode(_ trace: Trace, emit: ([UInt8]) -> Void) {
        withoutActuallyEscaping(emit) { emit in encode(trace, into: JSONOutput(emit: emit)) }
    }

    private static func encode(_ trace: Trace, into output: JSONOutput) {
        var out = output
        let metadata = trace.metadata
        out.raw("{\n  \"format\": ")
        out.string(NativeTraceFormat.formatName)
        out.raw(",\n  \"version\": ")
        out.int(Int64(NativeTraceFormat.version))
        out.raw(",\n  \"metadata\": {\n    \"app\": ")
        out.string(metadata.app)
        out.raw(",\n    \"device\": ")
        out.string(metadata.device)
        out.raw(",\n    \"osVersion\": ")
        out.string(metadata.osVersion)
        if let refreshRate = metadata.refreshRate {
            out.raw(",\n    \"refreshRate\": ")
            out.double(refreshRate)
        }
        out.raw(",\n    \"recordedAt\": ")
        if let recordedAt = metadata.recordedAt { out.string(recordedAt) } else { out.raw("null") }
        out.raw(",\n    \"start\": ")
        out.int(metadata.start)
        out.raw(",\n    \"end\": ")
        out.int(metadata.end)
        out.raw(",\n    \"importNotes\": [")
        for (i, note) in metadata.importNotes.enumerated() {
            if i > 0 { out.raw(", ") }
            out.string(note)
        }
        out.raw("]")
        // Written only for cycles: a trace in CPU time reads the same in every version.
        if metadata.cpuWeightUnit != .nanoseconds {
            out.raw(",\n    \"cpuWeightUnit\": ")
            out.string(metadata.cpuWeightUnit.rawValue)
        }
        out.raw("\n  }")

        func table(_ name: NativeTraceFormat.Table, count: Int, row: (inout JSONOutput, Int) -> Void) {
            out.raw(",\n  \"\(name.rawValue)\": [")
            for i in 0..<count {
                out.raw(i == 0 ? "\n    [" : ",\n    [")
                row(&out, i)
                out.byte(UInt8(ascii: "]"))
            }
            out.raw(count == 0 ? "]" : "\n  ]")
        }
        let s = trace.strings
        table(.processes, count: trace.processes.count) { out, i in
            out.int(Int64(trace.processes[i].pid)); out.comma(); out.string(trace.processes[i].name)
        }
        table(.threads, count: trace.threads.count) { out, i in
            let thread = trace.threads[i]
            out.int(thread.tid); out.comma(); out.string(thread.name); out.comma()
            out.int(Int64(thread.process)); out.comma(); out.bool(thread.isMain)
        }
        let groups = trace.updateGroups
        table(.updateGroups, count: groups.count) { out, i in
            out.int(groups.start[i]); out.comma(); out.int(groups.duration[i]); out.comma()
            out.string(s[Int(groups.label[i])]); out.comma(); out.reference(groups.thread[i])
        }
        let updates = trace.updates
        table(.updates, count: updates.count) { out, i in
            out.int(updates.start[i]); out.comma(); out.int(updates.duration[i]); out.comma()
            out.string(updates.kind[i].wireName); out.comma()
            out.string(s[Int(updates.module[i])]); out.comma(); out.string(s[Int(updates.viewName[i])]); out.comma()
            out.string(s[Int(updates.description[i])]); out.comma(); out.string(s[Int(updates.category[i])]); out.comma()
            out.int(Int64(updates.allocations[i])); out.comma(); out.reference(updates.thread[i]); out.comma()
            out.reference(updates.group[i]); out.comma(); out.string(updates.sourceSeverity[i].wireName)
            let selfDuration = updates.selfDuration(i), depth = updates.layoutDepth(i), cached = updates.isCached(i)
            let downstreamCost = updates.downstreamCost(i)
            if selfDuration != nil || depth != nil || cached != nil || downstreamCost != nil {
                out.comma(); out.optionalInt(selfDuration); out.comma(); out.optionalInt(depth.map(Int64.init)); out.comma()
                if let cached { out.bool(cached) } else { out.raw("null") }
                out.comma(); out.optionalInt(downstreamCost); out.comma(); out.optionalInt(updates.downstreamEvents(i).map(Int64.init))
            }
        }
        let nodes = trace.graph.nodes
        table(.nodes, count: nodes.count) { out, i in
            out.string(nodes.kind[i].wireName); out.comma(); out.string(s[Int(nodes.name[i])]); out.comma()
            out.string(s[Int(nodes.owner[i])]); out.comma(); out.bool(nodes.isAppCode[i]); out.comma()
            out.int(nodes.eventID[i]); out.comma(); out.int(nodes.timestamp[i]); out.comma(); out.reference(nodes.update[i])
        }
        let edges = trace.graph.edges
        table(.edges, count: edges.count) { out, i in
            out.int(Int64(edges.source[i])); out.comma(); out.int(Int64(edges.target[i])); out.comma()
            out.string(edges.label[i].wireName); out.comma(); out.string(s[Int(edges.changedProperty[i])]); out.comma()
            out.int(edges.timestamp[i]); out.comma(); out.reference(edges.group[i])
        }
        let frames = trace.cpu.frames
        table(.frames, count: frames.count) { out, i in
            out.string(s[Int(frames.name[i])]); out.comma(); out.string(s[Int(frames.binary[i])]); out.comma(); out.bool(frames.isAppCode[i])
            if let source = frames.source(of: i) {
                out.comma(); out.string(s[Int(source.path)]); out.comma(); out.int(Int64(source.line))
            }
        }
        let stacks = trace.cpu.stacks
        table(.stacks, count: stacks.count) { out, i in
            out.reference(stacks.parent[i]); out.comma(); out.int(Int64(stacks.frame[i]))
        }
        let changes = trace.stateChanges
        table(.stateChanges, count: changes.count) { out, i in
            out.int(changes.timestamp[i]); out.comma(); out.int(Int64(changes.node[i])); out.comma()
            out.string(s[Int(changes.description[i])]); out.comma(); out.reference(changes.backtrace[i]); out.comma()
            out.reference(changes.thread[i])
        }
        let samples = trace.cpu.samples
        table(.samples, count: samples.count) { out, i in
            out.int(samples.time[i]); out.comma(); out.reference(samples.thread[i]); out.comma()
            out.int(samples.weight[i]); out.comma(); out.int(Int64(samples.stack[i]))
        }
        for (name, intervals) in [(NativeTraceFormat.Table.hitches, trace.hitches), (.hangs, trace.hangs)] {
            table(name, count: intervals.count) { out, i in
                let interval = intervals[i]
                out.int(interval.start); out.comma(); out.int(interval.duration); out.comma()
                out.string(interval.kind); out.comma(); out.string(interval.detail); out.comma(); out.reference(interval.thread)
            }
        }
        let tasks = trace.tasks
        table(.tasks, count: tasks.count) { out, i in
            out.int(tasks.taskID[i]); out.comma(); out.reference(tasks.process[i]); out.comma(); out.string(s[Int(tasks.name[i])]); out.comma()
            out.reference(tasks.creationBacktrace[i]); out.comma(); out.int(tasks.start[i]); out.comma(); out.int(tasks.end[i])
        }
        let states = trace.taskStates
        table(.taskStates, count: states.count) { out, i in
            out.int(states.start[i]); out.comma(); out.int(states.duration[i]); out.comma()
            out.int(Int64(states.task[i])); out.comma(); out.string(states.state[i].wireName); out.comma()
            out.string(s[Int(states.actor[i])]); out.comma(); out.bool(states.isMainActor[i]); out.comma()
            out.string(s[Int(states.priority[i])]); out.comma(); out.string(s[Int(states.resumeFunction[i])]); out.comma()
            out.reference(states.waitingFor[i]); out.comma(); out.reference(states.suspendBacktrace[i]); out.comma()
            out.reference(states.thread[i]); out.comma(); out.string(s[Int(states.narrative[i])])
        }
        // Optional: written only when the trace has signposts, so other traces read as before.
        let signposts = trace.signposts
        if signposts.count > 0 {
            table(.signposts, count: signposts.count) { out, i in
                out.int(signposts.start[i]); out.comma(); out.int(signposts.duration[i]); out.comma()
                out.string(signposts.kind[i].wireName); out.comma()
                out.reference(signposts.process[i]); out.comma(); out.reference(signposts.thread[i]); out.comma()
                out.string(s[Int(signposts.subsystem[i])]); out.comma(); out.string(s[Int(signposts.category[i])]); out.comma()
                out.string(s[Int(signposts.name[i])]); out.comma()
                out.string(s[Int(signposts.beginMessage[i])]); out.comma(); out.string(s[Int(signposts.endMessage[i])]); out.comma()
                out.string("0x" + String(signposts.signpostID[i], radix: 16))
            }
        }
        // Optional, as signposts (Instruments 27's hang-risks).
        let risks = trace.hangRisks
        if risks.count > 0 {
            table(.hangRisks, count: risks.count) { out, i in
                out.int(risks.time[i]); out.comma(); out.string(s[Int(risks.message[i])]); out.comma()
                out.string(s[Int(risks.severity[i])]); out.comma(); out.string(s[Int(risks.eventType[i])]); out.comma()
                out.reference(risks.backtrace[i]); out.comma(); out.reference(risks.thread[i])
            }
        }
        out.raw("\n}\n")
        out.flush()
    }
}

/// JSON text into a buffer that is handed on whenever it passes 1 MB.
struct JSONOutput {
    private var buffer: [UInt8] = []
    private let emit: ([UInt8]) -> Void

    init(emit: @escaping ([UInt8]) -> Void) {
        self.emit = emit
        buffer.reserveCapacity(1 << 20 + 4096)
    }

    mutating func flush() {
        if !buffer.isEmpty { emit(buffer) }
        buffer.removeAll(keepingCapacity: true)
    }

    @inline(__always) mutating func byte(_ byte: UInt8) {
        buffer.append(byte)
    }

    mutating func raw(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 20 { flush() }
    }

    @inline(__always) mutating func comma() { buffer.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }

    mutating func int(_ value: Int64) {
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                raw[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            buffer.append(contentsOf: raw[(24 - count)...])
        }
    }

    mutating func reference(_ row: Int32) {
        if row == noRow { raw("null") } else { int(Int64(row)) }
    }

    mutating func bool(_ value: Bool) { raw(value ? "true" : "false") }

    mutating func optionalInt(_ value: Int64?) {
        if let value { int(value) } else { raw("null") }
    }

    mutating func double(_ value: Double) {
        if value == value.rounded(), abs(value) < 1e15 { int(Int64(value)) } else { raw("\(value)") }
    }

    mutating func string(_ text: String) {
        buffer.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: buffer.append(byte)
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }
}

/// Streaming gzip compression into chunks.
final class GzipStream {
    private let compressor: ZlibCompressor
    private var output = ByteBufferAllocator().buffer(capacity: 1 << 20)

    init() throws {
        compressor = try ZlibCompressor(algorithm: .gzip, configuration: ZlibConfiguration(compressionLevel: .compressionLevel6))
    }

    func compress(_ bytes: [UInt8], finish: Bool, write: (Data) throws -> Void) throws {
        if bytes.isEmpty && !finish { return }
        // zlib needs an input buffer to point at even when finishing with no more input.
        var input = ByteBufferAllocator().buffer(capacity: max(bytes.count, 1))
        input.writeBytes(bytes)
        while true {
            var outputFull = false
            do {
                try compressor.deflate(from: &input, to: &output, flush: finish ? .finish : .no)
            } catch let error as CompressNIOError where error == .bufferOverflow {
                outputFull = true
            }
            guard outputFull || input.readableBytes > 0 else { break }
            try write(Data(output.readableBytesView))
            output.clear()
        }
        if finish || output.readableBytes > (1 << 19) {
            try write(Data(output.readableBytesView))
            output.clear()
        }
    }
}
