import Foundation
import SyncCore

/// Who changed a record and when, with names interned as small integers.
struct Stamp {
    var time: Milliseconds
    var user: UInt32
    /// 0 means "no device".
    var device: UInt32
}
