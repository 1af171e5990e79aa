/// `development` and `production` are two separate data sets.
public enum ContainerEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    case development
    case production
}
