import ArgumentParser
import Foundation
import SyncCore
import SyncInspector
import SyncRemoteWorld
import SyncServerHTTP
import SyncSimulation
import SyncWorlds

/// A problem starting a device, said as a sentence (no usage text: the options were fine).
struct DeviceCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
