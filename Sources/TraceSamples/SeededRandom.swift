/// SplitMix64: a tiny deterministic generator, so generated traces are byte-for-byte the same
/// on every machine and Swift version (the standard library's generator is not seedable).
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `range`, computed with integer arithmetic only (no platform-dependent floating point).
    public mutating func int(_ range: ClosedRange<Int64>) -> Int64 {
        let width = UInt64(range.upperBound - range.lowerBound) &+ 1
        if width == 0 { return Int64(bitPattern: next()) }
        return range.lowerBound + Int64(next() % width)
    }

    public mutating func int(_ range: Range<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// True with probability `percent` / 100.
    public mutating func chance(_ percent: Int) -> Bool {
        next() % 100 < UInt64(percent)
    }

    public mutating func pick<T>(_ items: [T]) -> T {
        items[int(0..<items.count)]
    }
}
