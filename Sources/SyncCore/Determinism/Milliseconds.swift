/// Milliseconds since 1970-01-01T00:00:00Z.
public typealias Milliseconds = Int64
