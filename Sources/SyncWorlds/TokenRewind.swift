import Foundation
import SyncCore

/// What a fetch from a token would return now (its first batch).
public enum TokenRewind: Sendable, Hashable {
    case zone(ZoneChangesBatch)
    case database(DatabaseChangesBatch)
}
