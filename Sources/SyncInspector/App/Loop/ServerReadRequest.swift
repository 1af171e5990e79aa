import SyncCore
import SyncClient

/// What a server read is for: the focused device and the zone and token
/// selected when it starts.
public struct ServerReadRequest: Hashable, Sendable {
    /// Index into the devices, and the device's name (a read whose device is
    /// no longer focused when it answers is dropped).
    public var deviceIndex: Int
    public var device: String?
    public var target: ReadTarget

    public init(deviceIndex: Int, device: String?, target: ReadTarget) {
        self.deviceIndex = deviceIndex
        self.device = device
        self.target = target
    }
}
