import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension ModelCache {
    /// A compressed upload may inflate to at most this many times its size (real exports gzip
    /// 10:1 to 30:1; a bomb of whitespace gzips 1000:1 and would cost minutes of CPU).
    static let maxInflationRatio: Int64 = 100
    /// ...but small files may always inflate this far.
    static let inflationFloor: Int64 = 64 << 20

    /// Memory a load of this file (of `size` bytes when it is still arriving) may take before its footprint is known: twice the text it
    /// reads (the model with its indexes took 1.4 times the JSON of a 20,000-update trace, and
    /// less than XML); for a gzip file that text is the most it is allowed to inflate to, since
    /// that is what the reader accepts.
    nonisolated func memoryEstimate(ofFile file: URL, size knownSize: Int64? = nil) -> Int {
        let size = knownSize ?? Int64((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0)
        var text = size
        if let handle = FileHandle(forReadingAtPath: file.path) {
            defer { try? handle.close() }
            if (try? handle.read(upToCount: 2)) == Data([0x1f, 0x8b]) { text = maxInflatedBytes(ofUpload: size) }
        }
        return Int(clamping: text.multipliedReportingOverflow(by: 2).partialValue)
    }

    /// Most bytes a trace file of `size` bytes is read to: a compressed one inflates at most
    /// `maxInflationRatio` times (at least `inflationFloor`), never past `maxUploadReadBytes`.
    nonisolated func maxInflatedBytes(ofUpload size: Int64) -> Int64 {
        let (scaled, overflow) = size.multipliedReportingOverflow(by: Self.maxInflationRatio)
        return min(maxUploadReadBytes, max(Self.inflationFloor, overflow ? .max : scaled))
    }
}
