import Foundation
import SyncCore
import SyncServer

/// The arguments a route's path carries, read (and checked) before its handler runs.
package struct RouteArguments: Sendable {
    package var container = ""
    package var environment = ContainerEnvironment.development
    package var scope = DatabaseScope.private
    /// The path's last segment where it is a value: a push token or an asset's checksum.
    package var last = ""

    package var database: DatabaseID { DatabaseID(container: container, environment: environment, scope: scope) }

    package init() {}

    /// The arguments of a path of `family`, checked in the path's order.
    package init(_ parts: [String], _ family: WebServicesRoute.Family) throws(CloudError) {
        switch family {
        case .database, .users:
            container = try APIDispatcher.parseContainer(parts[2])
            environment = try APIDispatcher.parseEnvironment(parts[3])
            scope = try APIDispatcher.parseScope(parts[4])
        case .pushTokens, .devicePushTokens, .admin, .assetFiles, .webcourier:
            container = try APIDispatcher.parseContainer(parts[2])
            environment = try APIDispatcher.parseEnvironment(parts[3])
            if parts.count == 6 { last = parts[5] }
        case .sharePage:
            last = parts[1]
        case .serverCall, .document:
            break
        }
    }
}
