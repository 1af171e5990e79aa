import Foundation
import SyncCore
import SyncServer

/// What a store holds when it opens.
package struct StoreOpening: Sendable {
    package var seed: UInt64
    /// The settings the stored state was made with.
    package var settings: ServerHost.Settings
    package var adminToken: String
    package var checkpoint: StoreCheckpoint?
    /// For the start-up banner.
    package var report: [String] = []

    package init(seed: UInt64, settings: ServerHost.Settings, adminToken: String, checkpoint: StoreCheckpoint? = nil, report: [String] = []) {
        self.seed = seed
        self.settings = settings
        self.adminToken = adminToken
        self.checkpoint = checkpoint
        self.report = report
    }
}
