/// A shell-style name pattern: `*` any run of characters, `?` one character, `[abc]`, `[a-z]`,
/// `[!abc]` one of (or none of) a set, `\` takes the next character literally. The whole name
/// must match, case-sensitively (Swift type names are).
public struct Glob: Sendable, Equatable, CustomStringConvertible {
    public let pattern: String
    private let tokens: [Token]

    private enum Token: Sendable, Equatable {
        case literal(Character)
        case anyCharacter
        case anyRun
        case set(ranges: [ClosedRange<Character>], negated: Bool)
    }

    public init(_ pattern: String) throws(GlobError) {
        self.pattern = pattern
        guard !pattern.isEmpty else { throw GlobError(message: "an empty pattern matches no name (use \"*\" for every name)") }
        let characters = Array(pattern)
        var tokens: [Token] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            index += 1
            switch character {
            case "*":
                // Runs of stars mean the same as one.
                if tokens.last != .anyRun { tokens.append(.anyRun) }
            case "?":
                tokens.append(.anyCharacter)
            case "\\":
                guard index < characters.count else { throw GlobError(message: "the pattern ends with '\\', which has nothing to escape") }
                tokens.append(.literal(characters[index]))
                index += 1
            case "[":
                let opening = index - 1
                var negated = false
                if index < characters.count, characters[index] == "!" {
                    negated = true
                    index += 1
                }
                var ranges: [ClosedRange<Character>] = []
                // A ']' right after '[' or '[!' is a member, as in shells.
                var first = true
                while index < characters.count, characters[index] != "]" || first {
                    first = false
                    var low = characters[index]
                    if low == "\\", index + 1 < characters.count {
                        index += 1
                        low = characters[index]
                    }
                    index += 1
                    if index + 1 < characters.count, characters[index] == "-", characters[index + 1] != "]" {
                        let high = characters[index + 1]
                        guard low <= high else {
                            throw GlobError(message: "the range '\(low)-\(high)' in '[...]' at character \(opening + 1) runs backwards")
                        }
                        ranges.append(low...high)
                        index += 2
                    } else {
                        ranges.append(low...low)
                    }
                }
                guard index < characters.count else {
                    throw GlobError(message: "the '[' at character \(opening + 1) is never closed with ']'")
                }
                index += 1
                tokens.append(.set(ranges: ranges, negated: negated))
            default:
                tokens.append(.literal(character))
            }
        }
        self.tokens = tokens
    }

    public var description: String { pattern }

    /// True when the pattern has no wildcard: it names one view.
    public var isLiteral: Bool { tokens.allSatisfy { if case .literal = $0 { true } else { false } } }

    public func matches(_ name: String) -> Bool {
        let text = Array(name)
        var position = 0
        var tokenIndex = 0
        // Where to resume after the last `*` when a later token fails: the star may swallow one more character.
        var lastStar: (token: Int, position: Int)?
        while position < text.count {
            if tokenIndex < tokens.count {
                switch tokens[tokenIndex] {
                case .anyRun:
                    lastStar = (tokenIndex, position)
                    tokenIndex += 1
                    continue
                case .anyCharacter:
                    position += 1
                    tokenIndex += 1
                    continue
                case .literal(let character) where character == text[position]:
                    position += 1
                    tokenIndex += 1
                    continue
                case .set(let ranges, let negated) where ranges.contains { $0.contains(text[position]) } != negated:
                    position += 1
                    tokenIndex += 1
                    continue
                default:
                    break
                }
            }
            guard let star = lastStar else { return false }
            lastStar = (star.token, star.position + 1)
            tokenIndex = star.token + 1
            position = star.position + 1
        }
        return tokens[tokenIndex...].allSatisfy { $0 == .anyRun }
    }
}

public struct GlobError: Error, Sendable, Equatable {
    public var message: String
}
