/// What the assembler appends by the million and reads back once in `finish()` (updates, cause
/// graph nodes and edges): kept in chunks of 65,536 that never move, so growing copies nothing
/// and each page is touched once. A doubling array copied everything at each doubling and had
/// the new copy's pages faulted in anew: the import's largest share of memmove and page faults.
struct AppendOnlyList<Element>: Sequence {
    private static var chunkShift: Int { 16 }
    private static var chunkMask: Int { (1 << chunkShift) - 1 }
    private var chunks: [[Element]] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element) {
        if count & Self.chunkMask == 0 {
            var chunk: [Element] = []
            chunk.reserveCapacity(1 << Self.chunkShift)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }

    subscript(index: Int) -> Element {
        get { chunks[index >> Self.chunkShift][index & Self.chunkMask] }
        set { chunks[index >> Self.chunkShift][index & Self.chunkMask] = newValue }
    }

    func makeIterator() -> FlattenSequence<[[Element]]>.Iterator { chunks.joined().makeIterator() }
}
