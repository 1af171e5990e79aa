import Foundation
import Synchronization

/// The user's clock in the contacts tests: a second passes per change, for every device
/// sharing it, so the later change is always the newer one.
final class UserClock: Sendable {
    private let seconds = Mutex<Double>(1_800_000_000)

    @Sendable func tick() -> Date {
        seconds.withLock {
            $0 += 1
            return Date(timeIntervalSince1970: $0)
        }
    }
}
