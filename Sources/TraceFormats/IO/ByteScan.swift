/// The tokenizer's searches, sixteen bytes compared at once (SSE2 `pcmpeqb` on x86, NEON on
/// arm), then the last few bytes one by one: `xctrace export` texts and attribute values are
/// mostly shorter than sixteen bytes, so one comparison usually settles a whole value, where
/// a `memchr` call per value cost more than its search. Nothing is read at or past `end`.
enum ByteScan {
    /// The index of the first byte in `start..<end` equal to `a` or `b`, or `end`.
    @inline(__always) static func first(
        _ a: UInt8, _ b: UInt8, in bytes: UnsafePointer<UInt8>, from start: Int, to end: Int
    ) -> Int {
        var i = start
        let va = SIMD16<UInt8>(repeating: a), vb = SIMD16<UInt8>(repeating: b)
        while i &+ 16 <= end {
            let v = UnsafeRawPointer(bytes + i).loadUnaligned(as: SIMD16<UInt8>.self)
            if let hit = firstLane((v .== va) .| (v .== vb)) { return i &+ hit }
            i &+= 16
        }
        while i < end, bytes[i] != a, bytes[i] != b { i &+= 1 }
        return i
    }

    /// The index of the first byte in `start..<end` that ends an XML name (space, tab, line
    /// feed, carriage return, '>' or `other`), or `end`.
    @inline(__always) static func nameEnd(
        _ other: UInt8, in bytes: UnsafePointer<UInt8>, from start: Int, to end: Int
    ) -> Int {
        var i = start
        let space = SIMD16<UInt8>(repeating: 0x20), tab = SIMD16<UInt8>(repeating: 0x09)
        let lineFeed = SIMD16<UInt8>(repeating: 0x0A), carriageReturn = SIMD16<UInt8>(repeating: 0x0D)
        let gt = SIMD16<UInt8>(repeating: UInt8(ascii: ">")), vOther = SIMD16<UInt8>(repeating: other)
        while i &+ 16 <= end {
            let v = UnsafeRawPointer(bytes + i).loadUnaligned(as: SIMD16<UInt8>.self)
            let ends = (v .== space) .| (v .== tab) .| (v .== lineFeed) .| (v .== carriageReturn) .| (v .== gt) .| (v .== vOther)
            if let hit = firstLane(ends) { return i &+ hit }
            i &+= 16
        }
        while i < end {
            let c = bytes[i]
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == UInt8(ascii: ">") || c == other { break }
            i &+= 1
        }
        return i
    }

    /// The first lane set in `mask`, or nil: the lanes as two 64-bit words, whose lowest set
    /// bit says which byte.
    @inline(__always) private static func firstLane(_ mask: SIMDMask<SIMD16<Int8>>) -> Int? {
        let lanes = SIMD16<UInt8>(repeating: 0).replacing(with: 0xFF, where: mask)
        let words = unsafeBitCast(lanes, to: SIMD2<UInt64>.self)
        #if _endian(little)
        if words[0] != 0 { return words[0].trailingZeroBitCount &>> 3 }
        if words[1] != 0 { return 8 &+ words[1].trailingZeroBitCount &>> 3 }
        #else
        if words[0] != 0 { return words[0].leadingZeroBitCount &>> 3 }
        if words[1] != 0 { return 8 &+ words[1].leadingZeroBitCount &>> 3 }
        #endif
        return nil
    }
}
