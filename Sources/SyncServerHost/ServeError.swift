/// Why the server cannot start.
public struct ServeError: Error, CustomStringConvertible {
    public var description: String
    package init(_ description: String) { self.description = description }
}
