#if canImport(Glibc)
import Glibc  // log, exp, cos: the C math library only
#elseif canImport(Darwin)
import Darwin
#endif
import TraceModel

/// "Orchard", an app of its own names for the noise simulation (`tracesvc-bench noise`,
/// docs/statistics.md): recordings of one build that differ only by run-to-run noise, as
/// re-recording does. Each recording scales every duration by one lognormal factor
/// (`sigma`, 0.12 by default: the device's state that day), and each update by a little
/// jitter of its own (`jitter`, lognormal); counts are the app's and do not vary. A build may
/// make views slower (`slowdown`) or run long "ThumbnailView" bodies (`redBodies`).
public enum NoisyRecordings {
    /// Each view's body count in a recording and its typical body time (ns).
    public static let views: [(name: String, count: Int, typicalNs: Int64)] = [
        ("OrchardRoot", 2, 420_000), ("GroveList", 6, 900_000), ("TreeRow", 24, 180_000), ("FruitBadge", 24, 40_000),
        ("HarvestChart", 4, 2_400_000), ("BasketButton", 8, 60_000), ("WeatherStrip", 6, 150_000), ("SeasonPicker", 4, 90_000),
    ]
    /// The view a red-bodies build adds, and each of its bodies' time (a red update: over 33 ms).
    public static let redView = "ThumbnailView"
    static let redNs: Int64 = 45_000_000

    public struct Build: Sendable {
        /// Factor on each named view's body time (1.6: 60 % slower).
        public var slowdown: [String: Double]
        public var redBodies: Int

        public init(slowdown: [String: Double] = [:], redBodies: Int = 0) {
            self.slowdown = slowdown
            self.redBodies = redBodies
        }
    }

    /// One recording of `build`: `seed` draws its factor and jitter.
    public static func trace(_ build: Build = Build(), seed: UInt64, sigma: Double = RunNoise.defaultSigma, jitter: Double = 0.05) -> Trace {
        var sketch = TraceSketch(name: "orchard-\(seed)", app: "Orchard", pid: 7310, seed: seed &* 0x9E37_79B9 &+ 17, end: 4_000_000_000)
        sketch.builder.metadata.device = "iPad Air"
        sketch.builder.metadata.osVersion = "iPadOS 26.0"
        let factor = exp(sigma * normal(&sketch.random))
        var time: Nanoseconds = 100_000_000
        // Four taps, each running a share of every view's bodies.
        let taps = 4
        for tap in 0..<taps {
            let group = sketch.nextGroup
            let start = time
            for view in views {
                let share = view.count / taps + (tap < view.count % taps ? 1 : 0)
                for _ in 0..<share {
                    let scale = factor * (build.slowdown[view.name] ?? 1) * exp(jitter * normal(&sketch.random))
                    let duration = max(1_000, Nanoseconds((Double(view.typicalNs) * scale).rounded()))
                    sketch.update(.viewBody, view: view.name, start: time, duration: duration, group: group, nodeKind: nil)
                    time += duration + 20_000
                }
            }
            for _ in 0..<(build.redBodies / taps + (tap < build.redBodies % taps ? 1 : 0)) {
                sketch.update(.viewBody, view: redView, start: time, duration: redNs, group: group, nodeKind: nil)
                time += redNs + 20_000
            }
            sketch.addGroup(group, start: start, end: time, label: "Pick Tap")
            time += 300_000_000
        }
        return sketch.build()
    }

    /// A standard normal draw (Box-Muller) from the generator's bits.
    static func normal(_ random: inout SeededRandom) -> Double {
        let u = (Double(random.next() >> 11) + 0.5) / 9_007_199_254_740_992
        let v = Double(random.next() >> 11) / 9_007_199_254_740_992
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}
