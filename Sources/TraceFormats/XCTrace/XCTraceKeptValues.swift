import Foundation

/// The values one `<node>` keeps (those written with an `id`, and the values inside them): the
/// reading thread appends them, the assembling thread reads them where they are, so a kept
/// value is written once and never copied from a batch into a mirror.
///
/// Pages never move once allocated, and their directory has a fixed size, so appending never
/// relocates what the other thread may be reading. The reader appends only past what it has
/// sent; the assembler reads only values a row it received refers to, which were appended
/// before that row's batch was handed over (the `Handoff`'s lock orders the two). A new
/// `<node>` gets a new store: the old one goes when the assembler is done with it.
///
/// Both sides hold the store (its lifetime) and use `pages` directly with the static `store`
/// and `load`: reaching the values through the class reference cost a retain and a release
/// per value.
final class XCTraceKeptValues: @unchecked Sendable {
    typealias Pages = UnsafeMutablePointer<UnsafeMutablePointer<StoredValue>?>
    private static let pageShift = 14
    private static let pageSize = 1 << pageShift
    /// `ValueRef` is an `Int32`: no node keeps more values than it can name.
    private static let maxPages = (1 << 31) >> pageShift

    /// The page directory: page `i` holds values `i << pageShift ..< (i + 1) << pageShift`.
    let pages: Pages

    init() {
        // calloc: the directory's untouched pages cost no memory.
        pages = calloc(Self.maxPages, MemoryLayout<UnsafeMutablePointer<StoredValue>?>.stride)!
            .bindMemory(to: UnsafeMutablePointer<StoredValue>?.self, capacity: Self.maxPages)
    }

    deinit {
        // Pages are allocated in order.
        var page = 0
        while page < Self.maxPages, let values = pages[page] {
            values.deallocate()
            page += 1
        }
        free(pages)
    }

    /// The reading thread: stores the value at `index`, the number stored so far (values are
    /// appended); false when the node already keeps as many values as a `ValueRef` can name.
    @inline(__always) static func store(_ value: StoredValue, at index: Int, in pages: Pages) -> Bool {
        let page = index >> pageShift
        guard page < maxPages else { return false }
        if index & (pageSize - 1) == 0, pages[page] == nil {
            pages[page] = .allocate(capacity: pageSize)
        }
        (pages[page].unsafelyUnwrapped + (index & (pageSize - 1))).initialize(to: value)
        return true
    }

    /// The value at `ref` (`0 <= ref`, stored before the batch that refers to it was sent).
    @inline(__always) static func load(_ ref: ValueRef, from pages: Pages) -> StoredValue {
        let index = Int(ref)
        return pages[index >> pageShift].unsafelyUnwrapped[index & (pageSize - 1)]
    }
}
