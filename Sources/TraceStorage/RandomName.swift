/// Names for the files the server creates (uploads being received, temporary sidecars).
///
/// 128 bits from `SystemRandomNumberGenerator`, which is getrandom(2) on Linux: it needs no file
/// descriptor. `UUID()` reads /dev/urandom and, when the process has no descriptor left, returned
/// the same all-zero UUID to every upload, so concurrent uploads wrote into one file.
public enum RandomName {
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        for _ in 0..<2 {
            var word: UInt64 = generator.next()
            for _ in 0..<16 {
                text.append(digits[Int(word & 0xf)])
                word >>= 4
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
