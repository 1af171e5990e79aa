import SyncCore
import SyncClient

/// The zone and token a server read was for (the selection when it started).
public struct ReadTarget: Hashable, Sendable {
    public var zone: ZoneKey?
    public var receipt: TokenReceipt?

    public init(zone: ZoneKey?, receipt: TokenReceipt?) {
        self.zone = zone
        self.receipt = receipt
    }
}
