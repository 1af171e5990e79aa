import Foundation
import SyncCore
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

/// The whole engine state as of one journal position, in a format the server versions.
public struct StoredCheckpoint: Sendable, Equatable {
    /// The state includes every row up to and including this position.
    public var throughPosition: Int64
    /// The time the row at `throughPosition` was applied at (the engine clock
    /// there): the row after it applies at its ``JournalRow/appliedTime(after:)`` this.
    public var time: Int64
    /// The server's version of the `state` encoding.
    public var format: Int
    public var state: Data

    public init(throughPosition: Int64, time: Int64, format: Int, state: Data) {
        self.throughPosition = throughPosition
        self.time = time
        self.format = format
        self.state = state
    }
}
