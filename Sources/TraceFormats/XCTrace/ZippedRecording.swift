import Foundation

/// A zip archive uploaded as a trace: most often an Instruments `.trace` bundle (a folder, which
/// Finder and browsers zip to upload). tracesvc cannot read a recording itself; the message says
/// how to export it on the Mac.
enum ZippedRecording {
    static func isZip(_ head: [UInt8]) -> Bool { head.starts(with: [0x50, 0x4B, 0x03, 0x04]) }

    /// What to tell the user about a zip whose first bytes are `head`, uploaded as `displayName`.
    static func message(head: [UInt8], displayName: String) -> String {
        message(recording: recordingName(head: head, displayName: displayName), packed: "zipped", archive: "a zip archive")
    }

    /// The same for a tar archive that holds no export: `recording` the `.trace` folder its
    /// members are in (or the upload's name says), nil when neither says it is a recording.
    static func tarMessage(recording: String?, displayName: String) -> String {
        message(recording: recording ?? recordingName(head: [], displayName: strippingTar(displayName)), packed: "in a tar archive", archive: "a tar archive with no .xml export")
    }

    private static func message(recording: String?, packed: String, archive: String) -> String {
        let script = "scripts/export-instruments-trace.sh"
        guard let recording else {
            return "\(archive) is not a trace file. If it holds an Instruments recording (a .trace bundle), "
                + "export that on the Mac first: \(script) RUN.trace (it writes RUN.xctrace.tar.gz to upload)"
        }
        let stem = String(recording.dropLast(".trace".count))
        return "this is an Instruments recording (\(recording), \(packed)), which tracesvc cannot read directly. "
            + "Export it on the Mac with Xcode installed: \(script) \(shellQuoted(recording)), "
            + "then upload the \(stem).xctrace.tar.gz it writes next to the recording"
    }

    /// "Run.trace.tar.gz" -> "Run.trace", so the name says it is a recording.
    private static func strippingTar(_ name: String) -> String {
        var name = name
        for suffix in [".gz", ".tgz", ".tar"] where name.lowercased().hasSuffix(suffix) { name.removeLast(suffix.count) }
        return name
    }

    /// The `.trace` folder a tar member's path is in ("Run.trace/instrument_data/…" -> "Run.trace").
    static func recordingFolder(ofMember path: String) -> String? {
        path.split(separator: "/").first(where: { $0.lowercased().hasSuffix(".trace") && $0.count > ".trace".count }).map(String.init)
    }

    /// "Run.trace" from the first entry's path ("Run.trace/form.template") or the upload's name
    /// ("Run.trace.zip", "Run.trace"); nil when neither says it is a recording.
    static func recordingName(head: [UInt8], displayName: String) -> String? {
        // Local file header: the name's length is at offset 26 (little endian), the name at 30.
        if head.count >= 30 {
            let length = Int(head[26]) | Int(head[27]) << 8
            let name = String(decoding: head[30..<min(head.count, 30 + length)], as: UTF8.self)
            if let component = name.split(separator: "/").first(where: { $0.lowercased().hasSuffix(".trace") }) {
                return String(component)
            }
        }
        var name = (displayName as NSString).lastPathComponent
        if name.lowercased().hasSuffix(".zip") { name.removeLast(".zip".count) }
        return name.lowercased().hasSuffix(".trace") && name.count > ".trace".count ? name : nil
    }

    private static func shellQuoted(_ text: String) -> String {
        text.allSatisfy { $0.isLetter || $0.isNumber || "._-+/".contains($0) } ? text : "'\(text.replacingOccurrences(of: "'", with: "'\\''"))'"
    }
}
