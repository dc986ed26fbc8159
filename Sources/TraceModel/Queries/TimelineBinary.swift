// The timeline's compact wire format (docs/api.md, "Binary timeline"): per lane, columns of
// fixed-width little-endian integers that the browser reads straight into typed arrays.
// Exact like the JSON (loads to 1/65535): each column stores `value - base` in the fewest
// bytes its range needs (0 when every value is the base), and starts are stored as the gap
// to the previous event's start, so a whole-trace answer costs a few bytes per event.

extension Timeline {
    /// "TLB1": the format's magic and version.
    public static let binaryMagic: [UInt8] = Array("TLB1".utf8)

    /// Column order within a lane; `rawValue` is the column's position.
    enum BinaryColumn: Int, CaseIterable {
        /// Gap to the previous event's start (the lane header holds the first start).
        case startGap
        case duration, count
        /// Update row (signpost row on signpost lanes) + 1 - base; 0 = none.
        case update
        /// Index into the lane's labels + 1; 0 = none.
        case label
        /// Severity (bits 0-1) | update kind code << 2 (0 none, 1 + `UpdateKind.rawValue`).
        case code
        /// CPU lane only: load and mainLoad × 65535, rounded.
        case load, mainLoad
    }

    public func binary() -> [UInt8] {
        var out = BinaryWriter()
        out.bytes.reserveCapacity(64 + lanes.values.reduce(0) { $0 + 96 + $1.events.count * 16 })
        out.bytes += Self.binaryMagic
        out.int64(start)
        out.int64(end)
        out.uint32(UInt32(clamping: width))
        out.uint32(UInt32(lanes.count))
        for (id, lane) in lanes.sorted(by: { $0.key < $1.key }) {
            Self.write(id: id, lane: lane, to: &out)
        }
        return out.bytes
    }

    private static func write(id: String, lane: TimelineLane, to out: inout BinaryWriter) {
        let events = lane.events
        var labels: [String] = []
        var labelIndex: [String: Int64] = [:]
        let hasLoad = events.contains { $0.load != nil || $0.mainLoad != nil }
        var firstUpdate = Int64.max
        for event in events {
            if let update = event.update ?? event.signpost { firstUpdate = min(firstUpdate, Int64(update)) }
            if let label = event.label, labelIndex[label] == nil {
                labelIndex[label] = Int64(labels.count + 1)
                labels.append(label)
            }
        }
        var columns = [[Int64]](repeating: [], count: BinaryColumn.allCases.count)
        for c in columns.indices { columns[c].reserveCapacity(events.count) }
        var previousStart = events.first?.start ?? 0
        for event in events {
            columns[BinaryColumn.startGap.rawValue].append(event.start &- previousStart)
            previousStart = event.start
            columns[BinaryColumn.duration.rawValue].append(event.duration)
            columns[BinaryColumn.count.rawValue].append(Int64(event.count))
            columns[BinaryColumn.update.rawValue].append((event.update ?? event.signpost).map { Int64($0) - firstUpdate + 1 } ?? 0)
            columns[BinaryColumn.label.rawValue].append(event.label.flatMap { labelIndex[$0] } ?? 0)
            let kind = event.kind.flatMap { wire in UpdateKind.allCases.first { $0.wireName == wire } }
            columns[BinaryColumn.code.rawValue].append(Int64(event.severity.rawValue) | Int64(kind.map { $0.rawValue + 1 } ?? 0) << 2)
            if hasLoad {
                columns[BinaryColumn.load.rawValue].append(fixedPoint(event.load))
                columns[BinaryColumn.mainLoad.rawValue].append(fixedPoint(event.mainLoad))
            }
        }
        let idBytes = Array(id.utf8.prefix(255))
        out.bytes.append(UInt8(idBytes.count))
        out.bytes += idBytes
        out.bytes.append((lane.merged ? 1 : 0) | (hasLoad ? 2 : 0))
        out.uint32(UInt32(events.count))
        out.int64(events.first?.start ?? 0)
        out.int64(firstUpdate == .max ? 0 : firstUpdate - 1)
        out.uint32(UInt32(labels.count))
        for label in labels {
            let bytes = Array(label.utf8.prefix(Int(UInt16.max)))
            out.uint16(UInt16(bytes.count))
            out.bytes += bytes
        }
        // Column headers (width, base), then the columns; an absent column (no loads) has width 0.
        var layout: [(width: Int, base: Int64)] = []
        for values in columns {
            let low = values.min() ?? 0
            let range = UInt64(bitPattern: (values.max() ?? 0) &- low)
            let width = range == 0 ? 0 : range <= 0xFF ? 1 : range <= 0xFFFF ? 2 : range <= 0xFF_FFFF ? 3 : range <= 0xFFFF_FFFF ? 4 : 8
            layout.append((width, low))
            out.bytes.append(UInt8(width))
            out.int64(low)
        }
        for (values, column) in zip(columns, layout) where column.width > 0 {
            out.column(values, base: column.base, width: column.width)
        }
    }

    private static func fixedPoint(_ fraction: Double?) -> Int64 {
        Int64((min(1, max(0, fraction ?? 0)) * 65535).rounded())
    }
}

/// Little-endian integers appended to a byte buffer.
struct BinaryWriter {
    var bytes: [UInt8] = []

    mutating func int64(_ value: Int64) { append(UInt64(bitPattern: value), width: 8) }
    mutating func uint32(_ value: UInt32) { append(UInt64(value), width: 4) }
    mutating func uint16(_ value: UInt16) { append(UInt64(value), width: 2) }

    @inline(__always) mutating func append(_ value: UInt64, width: Int) {
        var v = value
        for _ in 0..<width {
            bytes.append(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
    }

    mutating func column(_ values: [Int64], base: Int64, width: Int) {
        for value in values { append(UInt64(bitPattern: value &- base), width: width) }
    }
}
