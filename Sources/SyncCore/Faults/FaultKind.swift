import Foundation

/// The kinds of fault a ``FaultPlan`` can inject, one name each: the names
/// scenario files, `serve --faults` and `syncscope explore --faults` use.
public enum FaultKind: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// `THROTTLED` (`requestRateLimited`) with `retryAfter` seconds.
    case throttled
    /// `ZONE_BUSY` (`zoneBusy`) with `retryAfter` seconds.
    case zoneBusy
    /// `TRY_AGAIN_LATER` (`serviceUnavailable`), with `retryAfter` seconds when given: an outage.
    case serviceUnavailable
    /// `QUOTA_EXCEEDED`: the user's iCloud storage is full.
    case quotaExceeded
    /// `INTERNAL_ERROR`.
    case internalError
    /// Some items of a `records/modify` batch fail (with a code of the rule's
    /// choosing, `ZONE_BUSY` by default); the others are applied.
    case itemFailures
    /// The change is applied (and journaled), but the client gets a network
    /// failure instead of the answer: it cannot know whether it was applied.
    case ambiguousCommit
    /// The answer comes late (virtual time in a simulation, real time over HTTP).
    case latency
    /// A push notification never arrives.
    case pushDrop
    /// A push notification arrives late.
    case pushDelay
    /// A push notification arrives twice.
    case pushDuplicate
    /// A push notification is held back until a later one has arrived.
    case pushReorder
    /// "Push before data": `changes/database` does not show changes younger
    /// than the lag yet (it answers with the caller's own token and nothing new).
    case readLag

    public static func < (lhs: FaultKind, rhs: FaultKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// Faults of the push channel (applied when a notification is queued).
    public var isPush: Bool { [.pushDrop, .pushDelay, .pushDuplicate, .pushReorder].contains(self) }
}
