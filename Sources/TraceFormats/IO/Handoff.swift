import Foundation

/// Thrown to a `Handoff`'s producer once the consumer has stopped: it unwinds and lets go.
struct HandoffStopped: Error {}

/// Items handed from a producing thread to a consuming one, in order, with at most `depth`
/// waiting: the producer waits while the consumer is that far behind, so memory stays bounded.
/// Items the consumer is done with go back to the producer to be filled again, so nothing is
/// allocated per item. The producer ends the stream (`finish`, with the failure the consumer
/// gets after the items sent before it); the consumer may stop the producer (`stop`).
final class Handoff<Item, Failure: Error>: @unchecked Sendable {
    private let condition = NSCondition()
    private let depth: Int
    private var ready: [Item] = []
    private var spare: [Item] = []
    private var finished = false
    private var failure: Failure?
    private var stopped = false

    init(depth: Int) {
        self.depth = max(1, depth)
    }

    // MARK: The producer

    /// Queues `item` and returns one the consumer is done with, to fill next (nil when none is
    /// back yet).
    func send(_ item: Item) throws(HandoffStopped) -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while ready.count >= depth, !stopped { condition.wait() }
        if stopped { throw HandoffStopped() }
        ready.append(item)
        condition.broadcast()
        return spare.popLast()
    }

    func checkStopped() throws(HandoffStopped) {
        condition.lock()
        defer { condition.unlock() }
        if stopped { throw HandoffStopped() }
    }

    /// The producer's last call, however it ends.
    func finish(_ failure: Failure?) {
        condition.lock()
        finished = true
        self.failure = failure
        condition.broadcast()
        condition.unlock()
    }

    // MARK: The consumer

    /// The next item in the order sent (`used` goes back to the producer); nil at the end, or
    /// the producer's failure once the items before it are taken.
    func next(recycling used: consuming Item?) throws(Failure) -> Item? {
        condition.lock()
        defer { condition.unlock() }
        // Taken out of the parameter, so `spare` holds the only reference while this waits: the
        // producer then refills it in place instead of copying it.
        if let used = used.take() { spare.append(used) }
        while ready.isEmpty, !finished { condition.wait() }
        if !ready.isEmpty {
            condition.broadcast()
            return ready.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    /// From now on the producer's `send` and `checkStopped` throw `HandoffStopped`.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the producer has finished.
    func waitUntilFinished() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
