// Everything the side panel shows about one hang risk (Instruments 27's `hang-risks`): what the
// recording flagged, when, on which thread, the hang or hitch it fell in (how long the app was
// stuck), the app frame that did it and the backtrace.

public struct HangRiskDetail: Sendable, Equatable, Encodable {
    /// The hang or hitch the risk fell in: how long the main thread was held.
    public struct Interval: Sendable, Equatable, Encodable {
        /// "hang" or "hitch".
        public var lane: String
        /// As the recording names it ("Hang", "Severe Hang", "Render Hitch"...).
        public var kind: String
        public var start: Nanoseconds
        public var duration: Nanoseconds
    }

    public var id: Int
    public var time: Nanoseconds
    /// "Main thread performed file I/O: read 4.1 MB from trips.json".
    public var message: String
    /// As the recording rates it ("High"...), or "".
    public var severity: String
    public var eventType: String
    @NullWhenAbsent public var thread: UpdateDetail.Thread?
    @NullWhenAbsent public var within: Interval?
    /// The app's deepest frame of the backtrace (where the app did it), else the leaf; nil without a backtrace.
    @NullWhenAbsent public var frame: BacktraceFrame?
    /// Leaf first, at most `BacktraceFrame.maxFrames`.
    public var backtrace: [BacktraceFrame]
    public var backtraceTruncated: Bool
    /// Neighbouring hang risks, in time order.
    @NullWhenAbsent public var previous: Int?
    @NullWhenAbsent public var next: Int?
}

extension Trace {
    /// The hang risk at row `id`, or nil when there is no such row.
    public func hangRiskDetail(_ id: Int) -> HangRiskDetail? {
        let table = hangRisks
        guard id >= 0, id < table.count else { return nil }
        let time = table.time[id]
        let threadRow = Int(table.thread[id])
        let thread = threadRow == Int(noRow) || threadRow >= threads.count
            ? nil : UpdateDetail.Thread(index: threadRow, name: threads[threadRow].name, tid: threads[threadRow].tid)
        // A hang says more than a hitch: the longest hang holding the instant, else the longest hitch.
        func longest(_ intervals: [TimelineInterval], lane: String) -> HangRiskDetail.Interval? {
            intervals.filter { $0.start <= time && time <= $0.end }.max { ($0.duration, $1.start) < ($1.duration, $0.start) }
                .map { HangRiskDetail.Interval(lane: lane, kind: $0.kind, start: $0.start, duration: $0.duration) }
        }
        let backtrace = backtrace(table.backtrace[id])
        let frame = hangRiskFrame(id).map {
            BacktraceFrame(name: $0.name, binary: $0.binary, isAppCode: $0.isAppCode, source: $0.source)
        }
        return HangRiskDetail(
            id: id, time: time, message: string(table.message[id]), severity: string(table.severity[id]),
            eventType: string(table.eventType[id]), thread: thread,
            within: longest(hangs, lane: "hang") ?? longest(hitches, lane: "hitch"),
            frame: frame, backtrace: backtrace.frames, backtraceTruncated: backtrace.truncated,
            previous: id > 0 ? id - 1 : nil, next: id + 1 < table.count ? id + 1 : nil
        )
    }
}
