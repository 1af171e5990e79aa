import Foundation
import SyncCore
import SyncWire
import SyncServer

/// The bodies of the server's own calls (`/internal/…`).
package enum DispatcherInternal {
    package struct AddUser: Codable { var name: String }
    package struct DeviceOnline: Codable { var deviceID: String; var online: Bool }
    /// The device certainly has these notifications: they leave its queue.
    package struct Acknowledge: Codable { var deviceID: String; var notificationIDs: [String] }
    /// `serve --schema FILE`: the file's schema into one environment of a container.
    package struct ImportSchema: Codable { var container: String; var environment: ContainerEnvironment; var schema: String }
}
