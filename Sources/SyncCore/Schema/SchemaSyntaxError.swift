/// A schema text that does not parse, or names something a schema cannot
/// hold, at a line and column (both from 1).
public struct SchemaSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    /// `line:column: message`.
    public var description: String { "\(line):\(column): \(message)" }

    /// `file:line:column: error: message`, as compilers say it.
    public func located(in file: String) -> String { "\(file):\(line):\(column): error: \(message)" }
}
