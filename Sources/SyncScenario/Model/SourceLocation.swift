import SyncCore
import SyncClient

/// A place in a scenario file. Lines and columns start at 1; line 0 means
/// "the file as a whole".
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, or just `file` for the file as a whole.
    public var description: String {
        line > 0 ? "\(file):\(line):\(column)" : file
    }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}
