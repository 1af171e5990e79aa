/// Why the server cannot start.
public struct ServeError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
