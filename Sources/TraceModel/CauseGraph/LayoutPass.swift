/// What a node standing for Instruments 27 layout passes says of them: the cause graph titles
/// such a node with it, and `tracesvc inspect` a cause's target, so both name it alike.
public struct LayoutPass: Sendable, Equatable {
    /// The call all the passes made ("sizeThatFits"), nil when they made different ones.
    public var call: String?
    /// The layout that answered them all ("_FlexFrameLayout"), nil when they differ.
    public var layoutType: String?

    /// "TripCard" -> "TripCard · layout (sizeThatFits)", or "TripCard · layout" without one call.
    public func title(of view: String) -> String {
        call.map { "\(view) · layout (\($0))" } ?? "\(view) · layout"
    }
}

extension Trace {
    /// The layout passes among `rows` (updates), from their descriptions ("_FlexFrameLayout:
    /// sizeThatFits((402.0, nil)) → (402.0, 180.0)"); nil when the first is no layout pass.
    public func layoutPass(of rows: some Sequence<Int>) -> LayoutPass? {
        var rows = rows.makeIterator()
        guard let first = rows.next(), updates.kind[first] == .layout else { return nil }
        func parts(_ row: Int) -> LayoutPass {
            let text = string(updates.description[row])
            guard let colon = text.firstRange(of: ": ") else { return LayoutPass() }
            let call = text[colon.upperBound...].prefix { $0 != "(" && $0 != " " }
            return LayoutPass(call: call.isEmpty ? nil : String(call), layoutType: String(text[..<colon.lowerBound]))
        }
        var shared = parts(first)
        while let row = rows.next() {
            guard updates.kind[row] == .layout else { continue }
            let other = parts(row)
            if other.call != shared.call { shared.call = nil }
            if other.layoutType != shared.layoutType { shared.layoutType = nil }
        }
        return shared
    }
}
