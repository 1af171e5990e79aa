import Foundation

/// One call as the fault layer sees it.
public struct FaultCall: Sendable, Hashable {
    public var operation: String
    public var database: DatabaseScope?
    public var zoneNames: [String]
    public var user: String
    public var deviceID: String?

    public init(operation: String, database: DatabaseScope?, zoneNames: [String] = [], user: String, deviceID: String?) {
        self.operation = operation
        self.database = database
        self.zoneNames = zoneNames
        self.user = user
        self.deviceID = deviceID
    }

    package static let mutatingOperations: Set<String> = ["records/modify", "zones/modify", "subscriptions/modify"]
}
