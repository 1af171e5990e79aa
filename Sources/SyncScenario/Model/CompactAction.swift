import Foundation
import SyncCore

/// Moving the server's retention horizon forward.
public struct CompactAction: Sendable, Equatable {
    public var principal: Principal
    /// `nil`: every database of the user.
    public var database: DatabaseScope?
    /// `nil`: every log (the database's and each zone's).
    public var zone: ZoneRef?
    /// Changes of history kept; 0 expires every token issued so far.
    public var keepLast: Int

    public init(principal: Principal, database: DatabaseScope? = nil, zone: ZoneRef? = nil, keepLast: Int = 0) {
        self.principal = principal
        self.database = database
        self.zone = zone
        self.keepLast = keepLast
    }
}
