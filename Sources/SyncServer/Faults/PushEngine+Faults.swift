import SyncCore

extension PushEngine {
    /// How long a notification held back by a reorder fault waits at most
    /// for a later one to overtake it.
    static let reorderHold: Milliseconds = 10_000

    /// Queues a new notification for a device through the push faults of the
    /// plan: dropped (never queued), delayed, duplicated (a second copy
    /// arrives just after the first) or held back until the next
    /// notification for the device has arrived (reordered). Each is logged as
    /// a `PushEvent.Kind.faultInjected` (SyncCore).
    func enqueue(_ item: PendingItem, on device: DeviceChannel, faults: FaultInjector, now: Milliseconds) {
        let call = FaultCall(operation: "push", database: nil, user: device.user, deviceID: device.id)
        var item = item
        let id = item.notification.notificationID
        var duplicate = false
        for effect in faults.decidePush(call, now: now) {
            _ = faults.notePush(effect, call: call, notificationID: id, now: now)
            faults.rememberPushFault(effect, deviceID: device.id, notification: item.notification, now: now)
            switch effect {
            case .pushDrop:
                log(now, .faultInjected(deviceID: device.id, notificationID: id, fault: .pushDrop, detail: "dropped"))
                return
            case .pushDelay(let delay):
                item.arrivesAt += max(0, delay)
                log(now, .faultInjected(deviceID: device.id, notificationID: id, fault: .pushDelay, detail: "delayed \(delay) ms"))
            case .pushDuplicate:
                duplicate = true
                log(now, .faultInjected(deviceID: device.id, notificationID: id, fault: .pushDuplicate, detail: "duplicate"))
            case .pushReorder:
                item.heldForReorder = true
                log(now, .faultInjected(
                    deviceID: device.id, notificationID: id, fault: .pushReorder,
                    detail: "reordered: held back until a later notification arrives"))
            default:
                break
            }
        }
        // What an earlier reorder fault held back arrives just after this one.
        for index in device.pending.indices where device.pending[index].heldForReorder {
            device.pending[index].heldForReorder = false
            device.pending[index].arrivesAt = item.arrivesAt + 1
        }
        if item.heldForReorder { item.arrivesAt += Self.reorderHold }
        device.pending.append(item)
        log(now, .queued(deviceID: device.id, notificationID: id, arrivesAt: item.arrivesAt))
        if duplicate {
            sequence += 1
            var copy = item
            copy.sequence = sequence
            copy.arrivesAt = item.arrivesAt + 1
            copy.heldForReorder = false
            device.pending.append(copy)
            log(now, .queued(deviceID: device.id, notificationID: id, arrivesAt: copy.arrivesAt))
        }
    }
}
