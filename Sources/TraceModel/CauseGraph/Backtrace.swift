/// One frame of a backtrace as the panels show it (a state write's backtrace in the cause graph,
/// a task's creation and suspend backtraces).
public struct BacktraceFrame: Sendable, Equatable, Encodable {
    public var name: String
    public var binary: String
    public var isAppCode: Bool
    /// File and line, when the recording has them (omitted from the JSON otherwise).
    @NullWhenAbsent public var source: CodeLocation? = nil

    /// Every backtrace an answer carries stops after this many frames, leaf first: a stack is as
    /// deep as its file is long (a 1 MB file holds a 100,000-frame chain), and the frame that did
    /// the write is at the leaf.
    public static let maxFrames = 128
}

/// A backtrace as an answer carries it: the leaf-most frames, and whether the stack held more.
struct CappedBacktrace {
    var frames: [BacktraceFrame]
    var truncated: Bool
}

extension Trace {
    /// Leaf-first frames of `stack` (a row of `cpu.stacks`, or `noRow` for none), at most
    /// `limit` and never more than `BacktraceFrame.maxFrames`.
    func backtrace(_ stack: Int32, limit: Int = BacktraceFrame.maxFrames) -> CappedBacktrace {
        let limit = min(max(0, limit), BacktraceFrame.maxFrames)
        var frames: [BacktraceFrame] = []
        var current = stack
        while current != noRow, frames.count < limit {
            let frame = Int(cpu.stacks.frame[Int(current)])
            frames.append(BacktraceFrame(
                name: string(cpu.frames.name[frame]), binary: string(cpu.frames.binary[frame]), isAppCode: cpu.frames.isAppCode[frame],
                source: sourceLocation(ofFrame: frame)
            ))
            current = cpu.stacks.parent[Int(current)]
        }
        return CappedBacktrace(frames: frames, truncated: current != noRow)
    }
}
