/// A schema refusing a change, with its sentence.
public struct SchemaRefusal: Error, Sendable, Equatable {
    public var reason: String
    public init(reason: String) { self.reason = reason }
}
