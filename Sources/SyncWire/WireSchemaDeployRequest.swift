/// `admin/deploySchema`: `{"dryRun"?: true}` says what a deploy would change, changing nothing.
public struct WireSchemaDeployRequest: Codable, Sendable, Hashable {
    public var dryRun: Bool?

    public init(dryRun: Bool? = nil) { self.dryRun = dryRun }
}
