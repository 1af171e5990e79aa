/// Identifies one database: container, environment, scope — and, for the
/// private and shared databases, whose.
public struct DatabaseID: Hashable, Sendable, CustomStringConvertible {
    public var container: String
    public var environment: ContainerEnvironment
    public var scope: DatabaseScope

    public init(container: String, environment: ContainerEnvironment = .development, scope: DatabaseScope) {
        self.container = container
        self.environment = environment
        self.scope = scope
    }

    public var description: String { "\(container)/\(environment.rawValue)/\(scope.rawValue)" }
}
