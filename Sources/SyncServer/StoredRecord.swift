import Foundation
import SyncCore

/// A live record as the server stores it: compact, without its zone ID.
struct StoredRecord {
    var type: UInt32
    /// Where its name is in its zone's names of its type
    /// (``ZoneState/recordNamesByType``); kept by ``ZoneState/store(_:name:)``.
    var typeSlot: UInt32 = 0
    var fields: RecordFields
    var tag: UInt64
    var created: Stamp
    var modified: Stamp
    /// The sequence of its latest change in the zone's log.
    var sequence: Int64
}
