/// A trace file that cannot be read. `description` is one line a person can act on:
/// `file:line:column: what is wrong` (with the xctrace table when there is one).
public struct TraceFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    /// The xctrace table (schema name) the error is in, if any.
    public var table: String?
    /// The field or column that is wrong, if known.
    public var field: String?
    public var message: String
    /// The errno of a system call that failed (the file could not be opened or read): then the
    /// file itself may be fine, and a server says so rather than calling it unreadable.
    public var systemError: Int32?

    public init(file: String, line: Int, column: Int, table: String? = nil, field: String? = nil, message: String, systemError: Int32? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.table = table
        self.field = field
        self.message = message
        self.systemError = systemError
    }

    public var location: String { "\(file):\(line):\(column)" }

    public var description: String {
        let where_ = table.map { " (table \($0))" } ?? ""
        return "\(location):\(where_) \(message)"
    }
}
