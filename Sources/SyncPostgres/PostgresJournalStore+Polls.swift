import Foundation
import PostgresNIO

/// Whether a device is polling, whichever node its long-polls reach.
///
/// A device counts as online while it has a long-poll open, and for a grace
/// period (`serve --offline-after`) after its last one ended; then the node
/// that saw the last poll end appends "offline" to the journal. With one
/// node that is memory; with several, a device that moves from node A to
/// node B must not go offline because A no longer sees it. So each poll holds
/// a lease in `open_poll`, keyed by device and poll:
///
/// 1. A poll opening takes a lease until its deadline and a grace period after
///    it (``openPoll(device:poll:until:)``), so a node killed with a poll open
///    leaves a lease that runs out on its own.
/// 2. A poll ending shortens its lease to the end of the grace period
///    (``endPoll(device:poll:until:)``).
/// 3. When a node's grace timer runs out it asks ``livePollsUntil(device:now:)``:
///    the device goes offline only when no lease of it, from any node, is
///    live; else the node asks again when the last live lease runs out (the
///    node holding it may have been killed).
extension PostgresJournalStore {
    /// Takes (or extends) the lease of one open poll.
    public func openPoll(device: String, poll: String, until: Int64) async throws {
        try await run("noting an open poll") { connection in
            try await connection.query(
                """
                INSERT INTO syncscope.open_poll (device, poll, until) VALUES (\(device), \(poll), \(until))
                ON CONFLICT (device, poll) DO UPDATE SET until = excluded.until
                """, logger: logger)
        }
    }

    /// A poll ended: its lease lasts until `until` (the end of the grace period), no longer.
    public func endPoll(device: String, poll: String, until: Int64) async throws {
        try await run("noting a poll's end") { connection in
            try await connection.query(
                "UPDATE syncscope.open_poll SET until = \(until) WHERE device = \(device) AND poll = \(poll)", logger: logger)
        }
    }

    /// When the last of the device's live poll leases (from any node) runs
    /// out; `nil` when none is live at `now`. Leases that ran out are deleted on the way.
    public func livePollsUntil(device: String, now: Int64) async throws -> Int64? {
        try await run("reading a device's open polls") { connection in
            try await connection.query("DELETE FROM syncscope.open_poll WHERE device = \(device) AND until <= \(now)", logger: logger)
            var until: Int64?
            for try await (latest) in try await connection.query(
                "SELECT max(until) FROM syncscope.open_poll WHERE device = \(device)", logger: logger
            ).decode(Int64?.self) {
                until = latest
            }
            return until
        }
    }
}
