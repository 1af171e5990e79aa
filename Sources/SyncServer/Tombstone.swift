import Foundation
import SyncCore

/// A deleted record, kept until compaction so that fetches report the deletion.
struct Tombstone {
    var type: UInt32
    var sequence: Int64
}
