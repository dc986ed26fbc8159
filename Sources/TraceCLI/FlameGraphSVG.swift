import Foundation
import TraceModel

/// A flame graph (or a differential one) as a standalone SVG: plain shapes, text and `<title>`
/// tooltips, colours in hex, no script and no stylesheet, so a browser, an image viewer
/// (rsvg-convert, ImageMagick) and a pull request page all draw it the same. Roots on top, as the
/// browser's flame graph; frames narrower than a pixel were merged by the query.
struct FlameGraphSVG {
    var graph: FlameGraph
    /// The differential graph's A weights and changes, or nil for one trace's graph.
    var diff: DifferentialFlameGraph?
    var title: String
    var subtitle: String
    /// Colour a differential graph by the change of self share rather than of self time per run.
    var colorByShare = false

    static let rowHeight = 17
    static let headerHeight = 74
    static let removedWidth = 330
    static let charWidth = 6.6

    func render(width: Int) -> String {
        let graphWidth = diff == nil ? width : max(200, width - Self.removedWidth)
        let rows = (graph.frames.depth.max() ?? 0) + 1
        let removedRows = diff.map { min($0.removed.count, 40) + 3 } ?? 0
        let height = Self.headerHeight + max(rows * Self.rowHeight, removedRows * 15) + 24
        var out = """
            <?xml version="1.0" encoding="UTF-8" standalone="no"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" \
            font-family="Menlo, 'DejaVu Sans Mono', Consolas, monospace" font-size="11">
            <rect x="0" y="0" width="\(width)" height="\(height)" fill="#ffffff"/>
            <text x="10" y="22" font-size="16" font-weight="bold" fill="#1d1d1f">\(xmlEscaped(title))</text>
            <text x="10" y="42" fill="#3a3a3c">\(xmlEscaped(subtitle))</text>

            """
        out += legend(y: 62)
        let scale = Double(graphWidth) / Double(max(1, graph.window.to - graph.window.from))
        for frame in 0..<graph.frames.count {
            let left = Double(graph.frames.x[frame] - graph.window.from) * scale
            let right = Double(graph.frames.x[frame] + graph.frames.total[frame] - graph.window.from) * scale
            let x = max(0, left), w = min(Double(graphWidth), right) - max(0, left)
            guard w >= 0.3 else { continue }
            let y = Self.headerHeight + graph.frames.depth[frame] * Self.rowHeight
            let name = graph.names[graph.frames.name[frame]]
            out += "<g><title>\(xmlEscaped(tooltip(frame)))</title>"
            out += "<rect x=\"\(Self.format(x))\" y=\"\(y)\" width=\"\(Self.format(max(0.3, w - (w > 3 ? 1 : 0))))\" height=\"\(Self.rowHeight - 1)\" fill=\"\(fill(frame))\"/>"
            let label = Self.fit(name, pixels: w)
            if !label.isEmpty {
                out += "<text x=\"\(Self.format(x + 3))\" y=\"\(y + 12)\" fill=\"#1d1d1f\">\(xmlEscaped(label))</text>"
            }
            out += "</g>\n"
        }
        if let diff { out += removedList(diff, x: graphWidth + 14, y: Self.headerHeight) }
        out += "</svg>\n"
        return out
    }

    private func legend(y: Int) -> String {
        var items: [(String, String)]
        if diff != nil, colorByShare {
            items = [(Self.diffColor(0.05), "self share grew (5 points or more)"), (Self.diffColor(0.01), "grew a little"),
                     (Self.diffColor(0), "unchanged"), (Self.diffColor(-0.01), "shrank a little"), (Self.diffColor(-0.05), "shrank (5 points or more)")]
        } else if let diff {
            // Saturating at 5% of the larger side's CPU (per run), named in its unit.
            let full = weightText(Int64((Double(max(diff.beforeTotal, graph.totalWeight)) * 0.05).rounded()))
            let runs = diff.beforeRuns > 1 || diff.afterRuns > 1 ? " a run" : ""
            items = [(Self.diffColor(0.05), "self time grew \(full)\(runs) or more"), (Self.diffColor(0.01), "grew a little"),
                     (Self.diffColor(0), "unchanged"), (Self.diffColor(-0.01), "shrank a little"), (Self.diffColor(-0.05), "shrank \(full) or more")]
        } else {
            let present = Set(graph.frames.kind)
            items = FlameFrameKind.allCases.filter(present.contains).map { (Self.kindColor($0, shade: 0.4), Self.kindLabel($0)) }
        }
        var out = ""
        var x = 10
        for (color, label) in items {
            out += "<rect x=\"\(x)\" y=\"\(y - 9)\" width=\"12\" height=\"10\" fill=\"\(color)\" stroke=\"#8e8e93\" stroke-width=\"0.5\"/>"
            out += "<text x=\"\(x + 16)\" y=\"\(y)\" fill=\"#3a3a3c\">\(xmlEscaped(label))</text>\n"
            x += 16 + Int(Double(label.count) * Self.charWidth) + 18
        }
        return out
    }

    private func removedList(_ diff: DifferentialFlameGraph, x: Int, y: Int) -> String {
        var out = "<text x=\"\(x)\" y=\"\(y + 11)\" font-weight=\"bold\" fill=\"#1d1d1f\">Gone in B (\(diff.removedCount) functions A ran)</text>\n"
        let room = Int(Double(Self.removedWidth - 24) / Self.charWidth)
        for (index, function) in diff.removed.prefix(40).enumerated() {
            let line = "\(String(format: "%5.1f%%", function.share * 100))  \(function.name)"
            out += "<text x=\"\(x)\" y=\"\(y + 28 + index * 15)\" fill=\"\(function.kind == .app ? "#b4470b" : "#1d1d1f")\"><title>\(xmlEscaped("\(function.name) (\(function.binary)), \(String(format: "%.1f", function.share * 100))% of A's CPU\(function.caller.isEmpty ? "" : ", called by \(function.caller)")"))</title>\(xmlEscaped(line.count > room ? String(line.prefix(room - 1)) + "…" : line))</text>\n"
        }
        if diff.removed.isEmpty { out += "<text x=\"\(x)\" y=\"\(y + 28)\" fill=\"#6e6e73\">Every function A ran, B runs too.</text>\n" }
        return out
    }

    private func fill(_ frame: Int) -> String {
        let kind = graph.frames.kind[frame]
        if let diff, kind != .merged { return Self.diffColor(colorByShare ? diff.selfDelta[frame] : diff.selfTimeDelta[frame]) }
        return Self.kindColor(kind, shade: Self.shade(graph.names[graph.frames.name[frame]]))
    }

    private func tooltip(_ frame: Int) -> String {
        let f = graph.frames
        let name = graph.names[f.name[frame]]
        let binary = graph.binaries[f.binary[frame]]
        let total = graph.totalWeight
        func weight(_ value: Int64) -> String {
            let share = total > 0 ? String(format: "%.1f%%", Double(value) * 100 / Double(total)) : "0%"
            return graph.unit == .cycles ? "\(value) cycles (\(share))" : "\(String(format: "%.2f", Double(value) / 1e6)) ms (\(share))"
        }
        if f.kind[frame] == .merged { return "\(f.merged[frame]) frames, each narrower than a pixel: \(weight(f.total[frame]))" }
        var text = "\(name)\(binary.isEmpty ? "" : " (\(binary))"): total \(weight(f.total[frame])), self \(weight(f.selfWeight[frame])), \(f.samples[frame]) samples"
        if let diff {
            if let before = diff.beforeTotalOfFrame[frame], diff.beforeTotal > 0 {
                text += String(format: "; in A %.1f%% of CPU", Double(before) * 100 / Double(diff.beforeTotal))
            } else {
                text += "; not at this call path in A"
            }
            if diff.beforeUnit == graph.unit {
                let before = diff.beforeSelfOfFrame[frame] ?? 0, after = f.selfWeight[frame]
                let change = after - before
                text += "; self \(weightText(before)) before, \(weightText(after)) after, \(change >= 0 ? "+" : "−")\(weightText(abs(change)))"
                if diff.beforeRuns > 1 || diff.afterRuns > 1 { text += " a run" }
            }
            text += String(format: "; self share %+.2f points", diff.selfDelta[frame] * 100)
        }
        return text
    }

    /// A weight in the graph's unit: "12.34 ms" or "1234 cycles".
    private func weightText(_ value: Int64) -> String {
        graph.unit == .cycles ? "\(value) cycles" : String(format: "%.2f ms", Double(value) / 1e6)
    }

    // MARK: Colours and text (as WebRoot/js/panes/cpu/boxes/model.js draws them)

    static func kindLabel(_ kind: FlameFrameKind) -> String {
        switch kind {
        case .app: "the app's code"
        case .swiftUI: "SwiftUI"
        case .system: "system libraries"
        case .thread: "thread"
        case .other: "not a frame"
        case .merged: "frames under a pixel, merged"
        }
    }

    static func kindColor(_ kind: FlameFrameKind, shade: Double) -> String {
        let (hue, saturation, light): (Double, Double, ClosedRange<Double>) = switch kind {
        case .app: (28, 85, 58...70)
        case .swiftUI: (210, 70, 60...74)
        case .system: (0, 0, 70...82)
        case .thread: (265, 35, 70...74)
        case .other: (45, 15, 80...84)
        case .merged: (0, 0, 88...90)
        }
        return hex(hue: hue, saturation: saturation, lightness: light.lowerBound + (light.upperBound - light.lowerBound) * shade)
    }

    /// Red where a frame's self share grew, blue where it shrank, saturating at 5 points.
    static func diffColor(_ delta: Double) -> String {
        let t = max(-1, min(1, delta / 0.05))
        if abs(t) < 0.02 { return hex(hue: 0, saturation: 0, lightness: 92) }
        let strength = abs(t).squareRoot()
        return hex(hue: t > 0 ? 4 : 214, saturation: 40 + 45 * strength, lightness: 90 - 32 * strength)
    }

    static func shade(_ name: String) -> Double {
        var hash: UInt32 = 2_166_136_261
        for unit in name.utf16 { hash = (hash ^ UInt32(unit)) &* 16_777_619 }
        return Double(hash % 1000) / 1000
    }

    static func hex(hue: Double, saturation: Double, lightness: Double) -> String {
        let s = saturation / 100, l = lightness / 100
        let a = s * min(l, 1 - l)
        func channel(_ n: Double) -> Int {
            let k = (n + hue / 30).truncatingRemainder(dividingBy: 12)
            return Int(((l - a * max(-1, min(k - 3, 9 - k, 1))) * 255).rounded())
        }
        return String(format: "#%02x%02x%02x", channel(0), channel(8), channel(4))
    }

    static func fit(_ text: String, pixels: Double) -> String {
        guard pixels >= 28 else { return "" }
        let room = Int((pixels - 6) / charWidth)
        if room >= text.count { return text }
        return room < 3 ? "" : String(text.prefix(room - 1)) + "…"
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
