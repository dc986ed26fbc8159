/// What a holder gives back exactly once, when its last reference goes, whatever path it took (a
/// request answered, failed or left by its client; an upload stored, refused or abandoned): a
/// forwarded client's place among its requests in flight, an upload's room on disk.
/// (`MemoryBudget.Claim` gives back what it holds then, which it resizes and hands on.)
final class ReleaseOnDrop: Sendable {
    private let release: @Sendable () -> Void

    init(_ release: @escaping @Sendable () -> Void) { self.release = release }

    deinit { release() }
}
