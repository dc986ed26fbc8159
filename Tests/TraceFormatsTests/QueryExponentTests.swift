import Foundation
import Testing
import TraceFormats
import TraceSamples
@testable import TraceModel

/// The queries issue 39 found super-linear, each timed alone at three sizes (n, 2n, 4n) in the
/// same run: the exponent of the least-squares fit of log(CPU time) against log(size) must be at
/// most 1.2 (a quadratic loop fits 2). CPU time of the test's thread, best of five runs per size,
/// so other work on the machine does not count. `TRACESVC_EXPONENT_N` runs it at another n.
@Suite(.serialized) struct QueryExponentTests {
    static let n = ProcessInfo.processInfo.environment["TRACESVC_EXPONENT_N"].flatMap(Int.init) ?? 6_000

    /// `frames` samples, each on a frame (and stack) of its own: as many bottom-up roots.
    static func distinctFrames(_ frames: Int) -> String {
        #"{"format":"tracesvc-trace","version":3,"metadata":{"app":"Frames","device":"d","osVersion":"1","refreshRate":60,"recordedAt":null,"start":0,"end":10000000000,"importNotes":[]},"processes":[[1,"Frames"]],"threads":[[1,"Main Thread",0,true]],"frames":["#
            + (0..<frames).map { #"["work\#($0)","Frames",true]"# }.joined(separator: ",")
            + #"],"stacks":["# + (0..<frames).map { "[null,\($0)]" }.joined(separator: ",")
            + #"],"samples":["# + (0..<frames).map { "[\($0 * 1000),0,\(1000 + $0 % 7),\($0)]" }.joined(separator: ",") + "]}"
    }

    /// `updates` view bodies, each with a description of its own (a timeline search reads them all).
    static func describedUpdates(_ updates: Int) -> String {
        #"{"format":"tracesvc-trace","version":3,"metadata":{"app":"Notes","device":"d","osVersion":"1","refreshRate":60,"recordedAt":null,"start":0,"end":10000000000,"importNotes":[]},"processes":[[1,"Notes"]],"threads":[[1,"Main Thread",0,true]],"updates":["#
            + (0..<updates).map { #"[\#(1000 + $0 * 100),50,"view-body","Notes","NoteRow","row \#($0) of the list, redrawn after edit \#($0 * 7)","View Body",0,0,null,"low"]"# }
                .joined(separator: ",") + "]}"
    }

    static let queries: [(name: String, file: @Sendable (Int) -> String, query: @Sendable (Trace) -> Void)] = [
        ("stack chart of a chain of n stacks, each one frame deeper", { HostileTraces.stackChain(stacks: $0) }, { trace in
            _ = trace.stackChart(StackChartQuery(tree: CallTreeQuery()))
        }),
        ("bottom-up flame graph of n samples on n distinct frames", { distinctFrames($0) }, { trace in
            _ = trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(mode: .bottomUp, minPercent: 0)))
        }),
        ("bottom-up flame graph of a chain of n stacks", { HostileTraces.stackChain(stacks: $0 / 4) }, { trace in
            _ = trace.flameGraph(FlameGraphQuery(tree: CallTreeQuery(mode: .bottomUp, minPercent: 0)))
        }),
        ("timeline search over 4n distinct descriptions", { describedUpdates(4 * $0) }, { trace in
            _ = trace.matches(TimelineSearchQuery("redrawn after edit 7")!)
        }),
    ]

    @Test(arguments: queries.indices)
    func growsAtMostAsSizeToThe1point2(_ index: Int) throws {
        let (name, file, query) = Self.queries[index]
        let sizes = [Self.n, 2 * Self.n, 4 * Self.n]
        var seconds: [Double] = []
        for size in sizes {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-exponent-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: url) }
            try Data(file(size).utf8).write(to: url)
            let trace = try TraceImporter.importTrace(at: url, displayName: "exponent")
            query(trace)  // the trace's lazily built indexes are not the query's cost
            var best = Double.infinity
            for _ in 0..<5 {
                let start = Self.threadCPUSeconds()
                query(trace)
                best = min(best, Self.threadCPUSeconds() - start)
            }
            seconds.append(max(best, 1e-6))
        }
        let exponent = Self.fittedExponent(sizes: sizes.map(Double.init), seconds: seconds)
        let figures = zip(sizes, seconds).map { "\($0): \(String(format: "%.4f", $1)) s" }.joined(separator: ", ")
        print("\(name): exponent \(String(format: "%.2f", exponent)) (\(figures))")
        #expect(exponent <= 1.2, "\(name): exponent \(String(format: "%.2f", exponent)) (\(figures))")
    }

    /// The slope of the least-squares line through (log size, log seconds).
    static func fittedExponent(sizes: [Double], seconds: [Double]) -> Double {
        let (x, y) = (sizes.map(log), seconds.map(log))
        let (meanX, meanY) = (x.reduce(0, +) / Double(x.count), y.reduce(0, +) / Double(y.count))
        let covariance = zip(x, y).reduce(0) { $0 + ($1.0 - meanX) * ($1.1 - meanY) }
        let variance = x.reduce(0) { $0 + ($1 - meanX) * ($1 - meanX) }
        return covariance / variance
    }

    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
