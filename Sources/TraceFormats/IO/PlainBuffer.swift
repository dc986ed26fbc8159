/// A growable run of plain values (no references inside) for the readers' inner loops:
/// appending and reading are a store and a load, without the copy-on-write check and
/// reference counting an `Array` costs per call there. Its owner frees it in its `deinit`.
struct PlainBuffer<Element> {
    private(set) var base: UnsafeMutablePointer<Element>
    /// Elements in use; set it lower to drop the last ones.
    var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        base = .allocate(capacity: self.capacity)
    }

    @inline(__always) mutating func append(_ element: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    private mutating func grow() {
        let grown = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        grown.moveInitialize(from: base, count: count)
        base.deallocate()
        base = grown
        capacity *= 2
    }

    var elements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    func deallocate() { base.deallocate() }
}
