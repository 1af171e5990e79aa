import Foundation
import PostgresNIO

/// Handing a device's notifications to its long-polls once, whichever node
/// each poll reaches.
///
/// Which notifications wait for a device is engine state, the same on every
/// node (deliveries into the inbox and acknowledgements are journal calls).
/// Which poll is *writing out* a notification, and which were written out
/// whole and await the device's next poll to count as acknowledged, was the
/// memory of one process; with several nodes it is this table, keyed by
/// device and notification ID:
///
/// 1. A poll claims the waiting notifications no other poll holds
///    (``claimDeliveries(device:notificationIDs:claimant:now:leaseMilliseconds:)``)
///    and answers with those alone. A claim is a lease: one whose node died
///    before finishing (kill -9) lapses and the notification is handed out again.
/// 2. When the answer is written whole the claim is marked written; when it
///    is not (the client went), the claim is dropped and the next poll on
///    any node gets the notification (``finishDeliveries(device:notificationIDs:claimant:written:)``).
/// 3. The device's next poll, on any node, reads the written claims
///    (``writtenDeliveries(device:)``), appends an acknowledgement of them to
///    the journal, then drops them (``dropDeliveries(device:notificationIDs:)``).
///    A node that dies between the two leaves claims for notifications that
///    are acknowledged already: harmless, the next poll drops them again.
/// 4. A notification written out but not acknowledged (the poll named an
///    earlier `lastNotificationID`) may be claimed again: the device asked
///    for it again.
extension PostgresJournalStore {
    /// Claims for `claimant` (a node and poll) those of `notificationIDs` that
    /// no other poll holds, or whose holder's lease ran out, or that were
    /// written out but not acknowledged; returns them in the order given.
    public func claimDeliveries(
        device: String, notificationIDs: [String], claimant: String, now: Int64, leaseMilliseconds: Int64
    ) async throws -> [String] {
        guard !notificationIDs.isEmpty else { return [] }
        let leaseUntil = now + leaseMilliseconds
        // Claimed in one order on every node, so two polls claiming overlapping sets never deadlock.
        let ordered = Array(Set(notificationIDs)).sorted()
        let claimed = try await run("claiming notifications") { connection -> Set<String> in
            var claimed: Set<String> = []
            let rows = try await connection.query(
                """
                INSERT INTO syncscope.delivery_claim (device, notification_id, claimant, written, lease_until)
                SELECT \(device), id, \(claimant), false, \(leaseUntil) FROM unnest(\(ordered)::text[]) AS id
                ON CONFLICT (device, notification_id) DO UPDATE
                    SET claimant = excluded.claimant, written = false, lease_until = excluded.lease_until
                    WHERE syncscope.delivery_claim.written OR syncscope.delivery_claim.lease_until < \(now)
                RETURNING notification_id
                """, logger: logger)
            for try await (id) in rows.decode(String.self) { claimed.insert(id) }
            return claimed
        }
        return notificationIDs.filter { claimed.contains($0) }
    }

    /// The answer holding `notificationIDs` was written out whole (`written`),
    /// or not: then the claims go, and the next poll may take them.
    public func finishDeliveries(device: String, notificationIDs: [String], claimant: String, written: Bool) async throws {
        guard !notificationIDs.isEmpty else { return }
        try await run("finishing a delivery") { connection in
            if written {
                try await connection.query(
                    """
                    UPDATE syncscope.delivery_claim SET written = true
                    WHERE device = \(device) AND notification_id = ANY(\(notificationIDs)::text[]) AND claimant = \(claimant)
                    """, logger: logger)
            } else {
                try await connection.query(
                    """
                    DELETE FROM syncscope.delivery_claim
                    WHERE device = \(device) AND notification_id = ANY(\(notificationIDs)::text[]) AND claimant = \(claimant)
                    """, logger: logger)
            }
        }
    }

    /// The notifications written out whole to `device` and not yet acknowledged, sorted.
    public func writtenDeliveries(device: String) async throws -> [String] {
        try await run("reading deliveries") { connection in
            var ids: [String] = []
            for try await (id) in try await connection.query(
                "SELECT notification_id FROM syncscope.delivery_claim WHERE device = \(device) AND written ORDER BY notification_id",
                logger: logger
            ).decode(String.self) {
                ids.append(id)
            }
            return ids
        }
    }

    /// Forgets the claims on `notificationIDs` (they are acknowledged in the journal).
    public func dropDeliveries(device: String, notificationIDs: [String]) async throws {
        guard !notificationIDs.isEmpty else { return }
        try await run("forgetting acknowledged deliveries") { connection in
            try await connection.query(
                "DELETE FROM syncscope.delivery_claim WHERE device = \(device) AND notification_id = ANY(\(notificationIDs)::text[])",
                logger: logger)
        }
    }
}
