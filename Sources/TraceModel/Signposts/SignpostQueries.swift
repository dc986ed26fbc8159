// What the side panel shows about one signpost interval or event.

public struct SignpostDetail: Sendable, Equatable, Encodable {
    public struct Process: Sendable, Equatable, Encodable {
        public var name: String
        public var pid: Int32
    }

    public var row: Int
    public var start: Nanoseconds
    public var duration: Nanoseconds
    /// "interval", "event" (an instant) or "unended" (a begin with no end: runs to the trace's end).
    public var kind: String
    public var subsystem: String
    public var category: String
    public var name: String
    public var beginMessage: String
    public var endMessage: String
    /// `os_signpost_id_t` in hex, as Instruments shows it ("0xeeeeb0b5b2b00000").
    public var signpostID: String
    @NullWhenAbsent public var process: Process?
    @NullWhenAbsent public var thread: UpdateDetail.Thread?
    /// The timeline lane that draws it ("signposts-0") and that lane's title.
    public var lane: String
    public var laneTitle: String
}

extension Trace {
    public func signpostDetail(_ row: Int) -> SignpostDetail {
        let table = signposts
        let processRow = Int(table.process[row])
        let threadRow = Int(table.thread[row])
        // The lane that holds it: its group's, and the row of the stack it is drawn in.
        let lane = indexes.signpostLanes.first { $0.rows.binarySearchContains(UInt32(row)) }
        return SignpostDetail(
            row: row, start: table.start[row], duration: table.duration[row], kind: table.kind[row].wireName,
            subsystem: string(table.subsystem[row]), category: string(table.category[row]), name: string(table.name[row]),
            beginMessage: string(table.beginMessage[row]), endMessage: string(table.endMessage[row]),
            signpostID: "0x" + String(table.signpostID[row], radix: 16),
            process: processRow == Int(noRow) ? nil : SignpostDetail.Process(name: processes[processRow].name, pid: processes[processRow].pid),
            thread: threadRow == Int(noRow) ? nil : UpdateDetail.Thread(index: threadRow, name: threads[threadRow].name, tid: threads[threadRow].tid),
            lane: lane?.id ?? "", laneTitle: lane?.title ?? ""
        )
    }
}
