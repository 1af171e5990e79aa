import Foundation
import SyncCore

/// A journal several `syncscope serve` nodes share: opaque rows in one total
/// order, checkpoints, and what the nodes tell each other about long-polls.
/// ``SharedJournalStore`` runs a node on one; PostgreSQL is the real one
/// (`PostgresJournalStore`), ``InMemorySharedJournal`` the test double.
///
/// Rules an implementation keeps:
/// - ``append(_:)`` commits its calls in one transaction, at the next
///   positions (1, 2, … without gaps); it returns only once they are
///   committed. When it throws, the calls may or may not be stored.
/// - ``rows(after:limit:)`` returns rows in position order, checked against
///   their checksums, and throws ``StoreHistoryFolded`` when the rows after
///   the position were folded into the checkpoint; a row missing is an error
///   naming the journal.
/// - ``watchTail()`` yields "the tail is at least N" once it is watching and
///   after every append (positions may repeat or come out of order); it ends
///   with an error when the watch is lost.
package protocol SharedJournal: AnyObject, Sendable {
    /// Names the journal in messages: "'syncscope' at db.example:5432".
    var name: String { get }
    /// The start-up banner's first words: "store postgres://…".
    var banner: String { get }

    /// The settings every node agrees on: those stored, or `values` when none are.
    func meta() async throws -> [String: String]
    func insertMetaIfAbsent(_ values: [String: String]) async throws -> [String: String]
    func setMeta(_ values: [String: String]) async throws

    /// Appends calls, each with the time its node asked for, in one transaction; returns their positions.
    func append(_ calls: [(time: Int64, call: Data)]) async throws -> [Int64]
    /// The last committed position (0 for an empty journal).
    func tail() async throws -> Int64
    /// Up to `limit` rows after `position`, oldest first.
    func rows(after position: Int64, limit: Int) async throws -> [SharedJournalRow]
    func watchTail() async throws -> AsyncThrowingStream<Int64, any Error>

    /// The newest checkpoint, `nil` when none was stored.
    func checkpoint() async throws -> StoreCheckpoint?
    /// Stores a checkpoint unless a later one is there; returns whether it was stored.
    func storeCheckpoint(_ checkpoint: StoreCheckpoint) async throws -> Bool
    /// Deletes the rows up to `position`, never past the stored checkpoint; returns the position rows are folded through.
    func foldRows(through position: Int64) async throws -> Int64

    func openPoll(device: String, poll: String, until: Int64) async throws
    func endPoll(device: String, poll: String, until: Int64) async throws
    func livePollsUntil(device: String, now: Int64) async throws -> Int64?
    func claimDeliveries(device: String, notificationIDs: [String], claimant: String, now: Int64, leaseMilliseconds: Int64) async throws -> [String]
    func finishDeliveries(device: String, notificationIDs: [String], claimant: String, written: Bool) async throws
    func writtenDeliveries(device: String) async throws -> [String]
    func dropDeliveries(device: String, notificationIDs: [String]) async throws

    /// What this node asked the journal for (the stop line).
    var summary: String { get }
    /// This node lets go of the journal (its connections).
    func close()
}
