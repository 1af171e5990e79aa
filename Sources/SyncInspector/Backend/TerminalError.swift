/// A terminal problem, with a sentence a person understands.
public struct TerminalError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// Standard input or output is not a terminal.
        case notATerminal
        /// The terminal could not be set up (unknown TERM...).
        case setupFailed
        /// Another backend already owns the terminal.
        case alreadyActive
        /// The backend was used after `restore()`.
        case closed
        /// A test script ran out of steps, or waited for ever.
        case scriptEnded
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
