import Foundation

/// The hash both readers' string interners use (the JSON scanner's and the xctrace text pool):
/// eight bytes at a time, since texts here are short and this runs once per value.
enum ByteHash {
    @inline(__always) static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        guard let base = bytes.baseAddress else { return h }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i + 8 <= bytes.count {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i += 8
        }
        if i < bytes.count {
            var tail: UInt64 = 0
            memcpy(&tail, raw + i, bytes.count - i)
            h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        }
        h ^= h >> 29
        return h &* 0x9E37_79B9_7F4A_7C15
    }
}
