import Foundation
import Synchronization
import SyncCore

/// `serve`'s event feed: the last ``capacity`` events (every request, every
/// push step, every acknowledgement), in a ring, read by a watcher with the
/// server admin token through the `admin/…/events` long-poll.
///
/// What the feed costs a request: one lock and the store of a small value
/// (``ServerEvent``) into a slot allocated at start-up. Nothing is encoded,
/// copied or named until a watcher reads: then the events read are worded
/// (``WireServerEvent``) and their clients named (``ClientDirectory``). A
/// watcher waiting is woken by the next event. Bodies are kept by reference
/// while the ring holds fewer than ``bodyBudget`` body bytes; past that, an
/// event keeps none.
package final class ServerEventFeed: Sendable {
    /// Events kept; 0: the feed is off (nothing is recorded).
    package let capacity: Int
    /// Request and answer bytes the ring holds on to at most.
    package let bodyBudget: Int
    /// Who names clients and remembers the names given.
    package let clients = ClientDirectory()
    /// This node's name in merged feeds: random, for the process's lifetime.
    package let node = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
    private let ring: Mutex<Ring>
    private let appliedPosition = Atomic<Int64>(0)

    private struct Ring {
        var slots: [ServerEvent?]
        /// The sequence the next event gets.
        var next: UInt64 = 1
        var bodyBytes = 0
        /// Watchers waiting for the next event.
        var waiting: [WakeTicket] = []
    }

    package init(capacity: Int, bodyBudget: Int = 64 * 1024 * 1024) {
        self.capacity = max(0, capacity)
        self.bodyBudget = bodyBudget
        ring = Mutex(Ring(slots: Array(repeating: nil, count: max(0, capacity))))
    }

    package var isOn: Bool { capacity > 0 }

    /// The journal position applied (a shared journal's node moves it as it applies rows).
    package func advance(to position: Int64) {
        appliedPosition.store(position, ordering: .relaxed)
    }

    /// Appends an event (dropping its bodies past the budget) and wakes the watchers waiting.
    package func record(_ event: ServerEvent) {
        guard capacity > 0 else { return }
        var event = event
        event.position = appliedPosition.load(ordering: .relaxed)
        var bytes = event.bodyBytes
        let (old, woken) = ring.withLock { ring -> (ServerEvent?, [WakeTicket]) in
            let index = Int(ring.next % UInt64(capacity))
            let old = ring.slots[index]
            if let old { ring.bodyBytes -= old.bodyBytes }
            if bytes > 0, ring.bodyBytes + bytes > bodyBudget, case .request(var request) = event.kind {
                // An error's answer is small and says what went wrong: it stays.
                request.requestBody = Data()
                if request.status == 200 { request.answerBody = Data() }
                event.kind = .request(request)
                bytes = request.answerBody.count
            }
            ring.bodyBytes += bytes
            event.sequence = ring.next
            ring.slots[index] = event
            ring.next += 1
            guard !ring.waiting.isEmpty else { return (old, []) }
            defer { ring.waiting = [] }
            return (old, ring.waiting)
        }
        // The event overwritten is released outside the lock.
        _ = old
        for ticket in woken { ticket.signal() }
    }

    /// Appends what the push layer did (drained from the engine after a step).
    package func record(push events: [PushEvent]) {
        for event in events { record(ServerEvent(time: event.time, kind: .push(event))) }
    }

    /// The events after `sequence`, oldest first, at most `limit`; the
    /// sequence to read after next; and how many events after `sequence` the
    /// ring no longer holds.
    package func events(after sequence: UInt64, limit: Int) -> (events: [ServerEvent], next: UInt64, missed: UInt64) {
        guard capacity > 0 else { return ([], sequence, 0) }
        return ring.withLock { ring in
            let last = ring.next - 1
            let oldest = ring.next > UInt64(capacity) ? ring.next - UInt64(capacity) : 1
            let from = max(sequence + 1, oldest)
            let missed = from > sequence + 1 ? from - sequence - 1 : 0
            guard from <= last else { return ([], max(sequence, last), missed) }
            let through = min(last, from + UInt64(max(0, limit)) - 1)
            var events: [ServerEvent] = []
            events.reserveCapacity(Int(through - from + 1))
            for number in from...through {
                if let event = ring.slots[Int(number % UInt64(capacity))] { events.append(event) }
            }
            return (events, through, missed)
        }
    }

    /// How long a long-poll that found fewer than `limit` events after
    /// `sequence` still waits for more before it answers: until `gather`
    /// after the first of them happened. A watcher of a busy server then
    /// reads a page per poll, not an event per poll (each poll costs the
    /// server a request of its own); a watcher that is behind, or a quiet
    /// server's, is answered at once. Zero: answer now.
    package func gatherWait(after sequence: UInt64, limit: Int, gather: Duration, now: Milliseconds = SystemClock().now()) -> Duration {
        guard capacity > 0, gather > .zero else { return .zero }
        let firstTime = ring.withLock { ring -> Milliseconds? in
            let last = ring.next - 1
            let oldest = ring.next > UInt64(capacity) ? ring.next - UInt64(capacity) : 1
            let from = max(sequence + 1, oldest)
            guard from <= last, last - from + 1 < UInt64(max(1, limit)) else { return nil }
            return ring.slots[Int(from % UInt64(capacity))]?.time
        }
        guard let firstTime else { return .zero }
        let waited = Duration.milliseconds(max(0, now - firstTime))
        return waited >= gather ? .zero : gather - waited
    }

    /// The sequence of the newest event (0: none yet).
    package var newest: UInt64 { ring.withLock { $0.next - 1 } }

    /// Waits until an event after `sequence` is there, or the deadline passes, or the task is cancelled.
    package func wait(after sequence: UInt64, until deadline: ContinuousClock.Instant) async {
        guard capacity > 0 else { return }
        let ticket = WakeTicket(deviceID: "")
        let ready = ring.withLock { ring -> Bool in
            if ring.next - 1 > sequence { return true }
            ring.waiting.append(ticket)
            return false
        }
        if ready { return }
        await ticket.wait(until: deadline)
        ring.withLock { ring in ring.waiting.removeAll { $0 === ticket } }
    }
}
