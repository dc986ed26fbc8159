import Testing
@testable import TraceModel

/// CPU Profiler traces: sample weights in cycles, read as time only through the clock rate
/// the samples show.
@Suite struct CycleWeightTests {
    /// A worker of "Quarry" busy at 2 GHz: 600,000 cycles every 0.3 ms, 100 samples.
    static func cycleTrace() throws -> Trace {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "quarry", app: "Quarry", sourceFormat: "test"))
        builder.metadata.cpuWeightUnit = .cycles
        let process = builder.addProcess(TraceProcess(pid: 90, name: "Quarry"))
        let thread = builder.addThread(TraceThread(tid: 9, name: "Main Thread", process: process, isMain: true))
        let frame = builder.addFrame(name: builder.intern("Quarry.cut()"), binary: builder.intern("Quarry"), isAppCode: true)
        let stack = builder.addStack(parent: noRow, frame: frame)
        for i in 0..<100 { builder.addSample(time: 1_000_000 + Int64(i) * 300_000, thread: thread, weight: 600_000, stack: stack) }
        return try builder.build()
    }

    @Test func theClockRateIsTheMedianCyclesPerNanosecondOfAThread() throws {
        #expect(abs(CPUPrefixSums.cyclesPerNanosecond(try Self.cycleTrace().cpu.samples) - 2.0) < 1e-9)
    }

    @Test func findingsReadCyclesAsTimeAtThatRate() throws {
        let trace = try Self.cycleTrace()
        let context = FindingsContext(trace: trace, options: FindingsOptions())
        // 10 samples in 3 ms: 6 M cycles, 3 ms at 2 GHz (not 6 ms, not clamped).
        #expect(context.cpuWeight(in: TimeRange(start: 1_000_000, end: 4_000_000), threads: []) == 3_000_000)
        var rules = context
        let frames = rules.heaviestFrames(in: [TimeRange(start: 0, end: 40_000_000)], threads: [])
        #expect(frames.first?.name == "Quarry.cut()" && frames.first?.weightNs == 30_000_000)
        // The trace ends at the last sample's time: a cycle count is no duration.
        #expect(trace.metadata.end == 1_000_000 + 99 * 300_000)
    }
}
