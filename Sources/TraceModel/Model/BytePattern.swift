/// A text to find in others, in time linear in both lengths (Knuth-Morris-Pratt over UTF-8
/// bytes): the texts searched come from the trace, and a naive search costs the product of
/// their lengths (a 400 KB name searched for a 200 KB one).
struct BytePattern {
    let bytes: [UInt8]
    /// `border[i]`: the length of the longest proper prefix of `bytes[...i]` that is also its suffix.
    private let border: [Int]

    init(_ text: some StringProtocol) {
        bytes = Array(text.utf8)
        var border = [Int](repeating: 0, count: bytes.count)
        var length = 0
        for index in bytes.indices.dropFirst() {
            while length > 0 && bytes[index] != bytes[length] { length = border[length - 1] }
            if bytes[index] == bytes[length] { length += 1 }
            border[index] = length
        }
        self.border = border
    }

    /// Whether some occurrence in `text`, by its first byte's index, satisfies `accept`.
    func contains(in text: [UInt8], where accept: (Int) -> Bool = { _ in true }) -> Bool {
        guard !bytes.isEmpty else { return accept(0) }
        var matched = 0
        for index in text.indices {
            while matched > 0 && text[index] != bytes[matched] { matched = border[matched - 1] }
            if text[index] == bytes[matched] { matched += 1 }
            if matched == bytes.count {
                if accept(index + 1 - bytes.count) { return true }
                matched = border[matched - 1]
            }
        }
        return false
    }
}

extension StringProtocol {
    /// `contains(_:)` for texts from a trace, linear in both lengths.
    func containsText(_ other: some StringProtocol) -> Bool {
        BytePattern(other).contains(in: Array(utf8))
    }
}
