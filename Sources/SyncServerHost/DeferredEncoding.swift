import Foundation
import SyncCore
import SyncWire
import SyncServer

/// What a ``PreparedCall/Route/whole`` step left for after the lock: the
/// value its route's `encode` kept, and the body types its route had to
/// decode under the lock because its table entry does not declare them
/// (``WebServicesRoute/body``; the route table's tests fail on any). Made for
/// one step and read once, under the same lock: never shared.
package final class DeferredEncoding {
    package var encode: (@Sendable () throws(CloudError) -> Data)?
    package var decodedUnderLock: [String] = []
}
