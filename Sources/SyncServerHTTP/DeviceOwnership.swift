import SyncServerHost
import Foundation
import SyncCore

/// `X-SyncScope-Device`, the device a call comes from: 1 to 255 bytes
/// without control characters, and, when it names a push channel of this
/// server, one of the caller's own (403 otherwise).
struct DeviceOwnership: Sendable {
    /// The user a device's push channel belongs to, if the server has it.
    let owner: @Sendable (String) -> String?

    init(owner: @escaping @Sendable (String) -> String?) {
        self.owner = owner
    }

    init(host: ServerHost) {
        self.init(owner: { host.owner(ofDevice: $0) })
    }

    /// Checks the device a call names, if any.
    func check(_ device: String?, caller: Identity) throws(CloudError) {
        guard let device else { return }
        try Self.checkFormat(device)
        if let owner = owner(device), owner != caller.user {
            throw CloudError(
                .permissionFailure, "X-SyncScope-Device names a device that belongs to another user; send your own device's ID (from tokens/create).")
        }
    }

    static func checkFormat(_ device: String) throws(CloudError) {
        guard !device.isEmpty, device.utf8.count <= 255, !TextChecks.containsControlCharacter(device)
        else {
            throw CloudError(.invalidArguments, "X-SyncScope-Device must be 1 to 255 bytes without control characters.")
        }
    }
}
