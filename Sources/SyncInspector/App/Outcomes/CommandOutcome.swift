import SyncCore
import SyncClient

/// What a device action did, as the command runner saw it: no terminal, no
/// world in it, so ``InspectorUpdate`` can be tested on hand-built outcomes.
public struct CommandOutcome: Hashable, Sendable {
    public enum Result: Hashable, Sendable {
        /// It worked. `success` says what it did; `notable` is something worth
        /// saying that happened meanwhile (a sync error, a conflict merged);
        /// `recovered`: an attempt failed and a retry worked.
        case done(success: String, notable: InspectorMessage?, recovered: Bool)
        /// The world refused or the server failed it.
        case failed(CloudError)
        /// It was not run: the message says why (the device is offline, there is no writer...).
        case refused(InspectorMessage)
    }

    /// The device it acted on.
    public var device: String
    /// The action, in words ("fetch", "save note-1").
    public var action: String
    public var result: Result

    public init(device: String, action: String, result: Result) {
        self.device = device
        self.action = action
        self.result = result
    }
}
