import TraceModel

/// How the page turns a frame's file and line into a link (`serve --source-url`, `--source-root`).
public struct SourceLinkOptions: Sendable, Equatable {
    /// "https://github.com/org/app/blob/{commit}/{path}#L{line}": `{path}` is the file below
    /// `root`, `{commit}` the trace's `commit` tag.
    public var urlTemplate: String?
    /// The recording machine's checkout ("/Users/dev/Trips"), stripped from recorded paths.
    public var root: String?

    public init(urlTemplate: String? = nil, root: String? = nil) {
        self.urlTemplate = urlTemplate
        self.root = root
    }

    /// What the page of a trace with `tags` gets: the template with its commit filled in, or
    /// no link (and why) when it needs a commit the trace has no tag for.
    func link(tags: [String]) -> SourceLink {
        let commit = tags.first { $0.hasPrefix("commit:") }.map { String($0.dropFirst("commit:".count)) }
        guard let urlTemplate else { return SourceLink(url: nil, root: root, note: nil) }
        guard urlTemplate.contains("{commit}") else { return SourceLink(url: urlTemplate, root: root, note: nil) }
        guard let commit, !commit.isEmpty else {
            return SourceLink(url: nil, root: root, note: "The source link needs the trace's commit: tag it commit:<sha> to link its frames.")
        }
        let safe = commit.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_./".unicodeScalars.contains($0) }
        guard safe else { return SourceLink(url: nil, root: root, note: "The commit tag \"\(commit)\" is no commit name: its frames are not linked.") }
        return SourceLink(url: urlTemplate.replacingOccurrences(of: "{commit}", with: commit), root: root, note: nil)
    }
}

/// `GET /api/traces/{id}` `sourceLink` (only when the server was given `--source-url` or
/// `--source-root`): `url` with `{path}` and `{line}` left for the page, null without one.
public struct SourceLink: Sendable, Encodable, Equatable {
    @NullWhenAbsent public var url: String?
    @NullWhenAbsent public var root: String?
    /// Why there is no `url` when the template needs what the trace lacks.
    @NullWhenAbsent public var note: String?
}
