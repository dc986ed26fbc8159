/// Text for an XML attribute or element (a JUnit report, an SVG): the five markup characters and
/// tab, newline and return as references; a character XML 1.0 cannot hold (another control
/// character, U+FFFE, U+FFFF; Swift strings hold no lone surrogates) as "?", so a reader sees one was there.
func xmlEscaped(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&apos;"
        case "\t", "\n", "\r": escaped += "&#\(scalar.value);"
        case _ where scalar.value < 0x20, "\u{FFFE}", "\u{FFFF}": escaped += "?"
        default: escaped.unicodeScalars.append(scalar)
        }
    }
    return escaped
}
