/// One frame of a backtrace as the panels show it (a state write's backtrace in the cause graph,
/// a task's creation and suspend backtraces).
public struct BacktraceFrame: Sendable, Equatable, Encodable {
    public var name: String
    public var binary: String
    public var isAppCode: Bool
}

extension Trace {
    /// Leaf-first frames of `stack` (a row of `cpu.stacks`, or `noRow` for none), at most `limit`.
    func backtrace(_ stack: Int32, limit: Int = .max) -> [BacktraceFrame] {
        var frames: [BacktraceFrame] = []
        var current = stack
        while current != noRow, frames.count < limit {
            let frame = Int(cpu.stacks.frame[Int(current)])
            frames.append(BacktraceFrame(
                name: string(cpu.frames.name[frame]), binary: string(cpu.frames.binary[frame]), isAppCode: cpu.frames.isAppCode[frame]
            ))
            current = cpu.stacks.parent[Int(current)]
        }
        return frames
    }
}
