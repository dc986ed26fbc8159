/// Where a frame's function is in the app's source, as the recording wrote it (Instruments 27's
/// `<source line="88"><path>/Users/dev/Trips/Trips/Views/TripCard.swift</path></source>`): the
/// recording machine's path, so a viewer strips its own prefix (`serve --source-root`).
public struct CodeLocation: Sendable, Equatable, Hashable, Encodable {
    public var path: String
    /// 0 when the compiler gave no line (`<compiler-generated>` code).
    public var line: Int

    public init(path: String, line: Int) {
        self.path = path
        self.line = line
    }

    /// "TripCard.swift:88" (the file alone when there is no line).
    public var shortText: String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        return line > 0 ? "\(file):\(line)" : file
    }
}

extension Trace {
    /// The source of a row of `cpu.frames`, nil when the recording did not say.
    public func sourceLocation(ofFrame frame: Int) -> CodeLocation? {
        cpu.frames.source(of: frame).map { CodeLocation(path: string($0.path), line: Int($0.line)) }
    }

    /// Where a view's body is ("TripCard.body.getter" at TripCard.swift:88): the first frame of
    /// its body getter that has a source, nil when none has. Only the sourced frames are looked at.
    public func bodySource(ofView view: String) -> CodeLocation? {
        let frames = cpu.frames, pattern = BytePattern(view)
        for frame in frames.sourceFrames.lazy.map(Int.init) where BodyFrameName.matches(string(frames.name[frame]), view: pattern) {
            if let source = sourceLocation(ofFrame: frame), source.line > 0 { return source }
        }
        return nil
    }

    /// The source of a call path step (threads and merged blocks have none).
    func sourceLocation(of step: CallPathStep) -> CodeLocation? {
        if case .frame(let frame) = step { return sourceLocation(ofFrame: Int(frame)) }
        return nil
    }
}

extension JSONWriter {
    /// `{"path":"…","line":88}`.
    mutating func sourceLocation(_ location: CodeLocation) {
        raw("{\"path\":"); string(location.path)
        raw(",\"line\":"); int(Int64(location.line))
        raw("}")
    }

    mutating func sourceLocations(_ locations: [CodeLocation]) {
        raw("[")
        for (i, location) in locations.enumerated() {
            if i > 0 { raw(",") }
            sourceLocation(location)
        }
        raw("]")
    }
}
