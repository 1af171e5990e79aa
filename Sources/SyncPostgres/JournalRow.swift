import Foundation
import SyncCore
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

/// One call in the shared journal, as the store keeps it: opaque bytes at a
/// position in one total order, with the time it is applied at.
public struct JournalRow: Sendable, Equatable {
    /// 1, 2, 3, … with no gaps: the order every node applies the calls in.
    public var position: Int64
    /// The time the node that appended the call asked for, in milliseconds
    /// since 1970. It may be before the row ahead of it (nodes' clocks
    /// disagree); the call is applied at ``appliedTime(after:)``.
    public var time: Int64
    /// The call, encoded by the server (the store never looks inside).
    public var call: Data
    /// CRC-32 of `time` and `call`, checked whenever the row is read.
    public var checksum: Int64

    public init(position: Int64, time: Int64, call: Data, checksum: Int64) {
        self.position = position
        self.time = time
        self.call = call
        self.checksum = checksum
    }

    /// The time this row is applied at, given the time the row before it was
    /// applied at: the later of the two, so the times a journal is applied at
    /// never go backwards. A function of the journal only: every node, a
    /// replay and a node reading on from a checkpoint (which keeps the time
    /// its last row was applied at) apply each row at the same time. Rows
    /// appended with the time guard of earlier versions are never before the
    /// row ahead of them, so they apply at their recorded times, as they did.
    public func appliedTime(after previous: Int64) -> Int64 { max(time, previous) }
}
