/// Sees the bytes an import takes from its file as it takes them, in order from the file's start
/// (the stored bytes: compressed ones for gzip), on the thread that reads them: a caller hashes
/// what was parsed, not what the path held before or after. The sniff that picks the reader and a
/// second read that locates an error are not seen: they build nothing.
public protocol ReadObserver: AnyObject, Sendable {
    func read(_ bytes: UnsafeRawBufferPointer)
}
