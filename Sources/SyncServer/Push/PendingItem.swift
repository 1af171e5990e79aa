import SyncCore

/// A notification waiting for one device.
struct PendingItem {
    var notification: CloudNotification
    var subscription: SubscriptionKey
    var collapseKey: CollapseKey
    var firstChangeAt: Milliseconds
    var lastChangeAt: Milliseconds
    /// The end of the coalescing window: newer notifications merge in until then.
    var sendAt: Milliseconds
    var arrivesAt: Milliseconds
    var sequence: UInt64
    /// A reorder fault holds it back until the next notification for the device is queued.
    var heldForReorder = false
}
