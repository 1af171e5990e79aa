import Foundation
import SyncCore
import SyncServer

/// Where a server keeps its calls: the one boundary between ``ServerHost``
/// (the engine, its lock, the long-polls) and storage.
///
/// A store puts each call that may change the state in its place in one
/// total order and makes it durable before the call is answered; it keeps
/// checkpoints, hands start-up the rows after the newest one, and (when
/// several nodes share it) says where the journal's tail is and which node's
/// poll holds which notification.
///
/// The stores:
/// - ``SQLiteServerStore``: a data folder on one node. The engine step is
///   the order: a row is queued under the host's lock right after its step
///   and committed several calls per transaction (``GroupCommitter``).
/// - ``SharedJournalStore``: a journal several nodes share
///   (``SharedJournal``: PostgreSQL, or ``InMemorySharedJournal`` in tests).
///   A call is appended first, which gives it its position, then every node
///   applies the rows in position order.
/// - ``VolatileStore``: `--in-memory`, nothing kept.
///
/// Rules every store keeps:
/// - A call is answered only once its row (and every row before it) is
///   durable: a `kill -9` loses no acknowledged call.
/// - A store never mistakes lost state for new state: a folder or database
///   whose history has a hole (a checkpoint gone while the rows it folded are
///   gone too, rows missing between the checkpoint and the tail) is refused
///   with a sentence naming it and what is missing.
/// - No method blocks a thread of the cooperative pool: what waits, suspends.
package protocol ServerStore: AnyObject, Sendable {
    /// Names the store in messages: "the data folder /x", "'db' at host:5432", "memory".
    var name: String { get }

    /// Opens the store and agrees on the seed and settings the state is made with
    /// (a store that already holds state keeps its own); returns the newest checkpoint too.
    func open(options: ServeOptions) async throws -> StoreOpening

    /// Replays the rows after the checkpoint (`position`) through ``ServerHost/apply(_:)``;
    /// returns what it did, for the start-up banner.
    func replay(after position: Int64, into host: ServerHost) async throws -> [String]

    /// Starts what runs while the server serves (watching the tail of a shared journal).
    func serve(_ host: ServerHost)

    /// Puts a prepared call in its place in the total order, applies it
    /// there (through the host) and returns once it is durable: the step's
    /// outcome, the devices to wake, and the reason the store failed, if it did.
    func perform(_ prepared: PreparedCall, on host: ServerHost) async -> StoreOutcome

    /// The position a read must have applied to see every call acknowledged
    /// before it (0 where the host's state is the whole journal already).
    func tail() async throws -> Int64

    /// Rows after `position`, oldest first (a shared journal, catching up);
    /// throws ``StoreHistoryFolded`` when they were folded into the checkpoint.
    func rows(after position: Int64) async throws -> [StoreRow]

    /// The newest checkpoint (catching up past folded rows).
    func checkpoint() async throws -> StoreCheckpoint?

    /// Under the host's state lock, after a step here (``ServerHost/step(_:delivering:)``):
    /// keeps the call as the next row when it `changed` the state (a store
    /// whose order is the step order). Returns the row to wait for before
    /// answering (the answer may show rows not yet durable), if any.
    func keep(_ prepared: PreparedCall, changed: Bool, at time: Milliseconds, _ state: inout ServerHost.State) -> Int64?

    /// Whether a row's origin is this node (its caller waits here for the row's outcome).
    func isOwn(_ origin: JournaledCall.Origin) -> Bool

    /// Under the host's state lock, after row `position` was applied: whether a checkpoint is taken here.
    func checkpointDue(at position: Int64) -> Bool

    /// Stores a checkpoint the host took at `position` (off the lock, in the background).
    func storeCheckpoint(through position: Int64, time: Milliseconds, file: ServerStateFile)

    /// Notifications come due at `time`: delivers them (through the host)
    /// where every node delivers at the same place in the order.
    func deliver(dueAt time: Milliseconds, on host: ServerHost) async

    /// Takes a checkpoint now, so the next start replays nothing (where the store keeps one).
    func checkpointNow(_ host: ServerHost) async

    /// A clean stop: takes no more calls, keeps what it must; says what it did.
    func stop(_ host: ServerHost) async -> String

    /// Start-up failed: lets go of the store (its files, its connections) without a clean stop.
    func abandon() async

    /// The users changed (their names and web auth tokens).
    func usersChanged(_ users: [UserAccount]) throws

    // MARK: Long-polls across nodes

    /// Names a poll's claims on notifications, or `nil` where no other node polls.
    func pollClaimant() -> String?
    /// A poll opened on this node lasts until `until` (its presence lease).
    func openPoll(device: String, poll: String, until: Milliseconds) async
    /// A poll ended on this node: its lease lasts until `until`.
    func endPoll(device: String, poll: String, until: Milliseconds) async
    /// The latest end of a live poll lease of the device on any node, `nil` when none is live.
    func livePollsUntil(device: String, now: Milliseconds) async throws -> Milliseconds?
    /// Claims notifications for a poll; returns those claimed.
    func claimDeliveries(device: String, notificationIDs: [String], claimant: String, now: Milliseconds, lease: Milliseconds) async throws -> [String]
    /// A poll's answer was written out whole, or not (the claim goes).
    func finishDeliveries(device: String, notificationIDs: [String], claimant: String, written: Bool) async
    /// The notifications polls on any node wrote out whole to the device.
    func writtenDeliveries(device: String) async -> [String]
    /// The acknowledged notifications' claims go.
    func dropDeliveries(device: String, notificationIDs: [String]) async
}
