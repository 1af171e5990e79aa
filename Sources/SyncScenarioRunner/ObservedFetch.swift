import Foundation
import Synchronization
import SyncCore

/// A change fetch a device's connection made and the server's answer.
/// Only answers are observed: a request that fails as a whole is the
/// engine's (or the step's) error to report.
enum ObservedFetch: Sendable {
    /// `changes/database`, from `since`.
    case database(device: String, scope: DatabaseScope, since: ServerChangeToken?, DatabaseChangesBatch)
    /// `changes/zone`: one request for one or more zones, each zone's answer or error in request order.
    case zones(device: String, scope: DatabaseScope, requests: [ZoneChangesRequest], results: [Result<ZoneChangesBatch, CloudError>])

    var device: String {
        switch self {
        case .database(let device, _, _, _), .zones(let device, _, _, _): device
        }
    }
}
