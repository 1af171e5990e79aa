import Foundation
import Synchronization
import SyncCore

/// `serve`'s event feed: the last ``capacity`` events (every request, every
/// push step, every acknowledgement), in a ring, read by a watcher with the
/// server admin token through the `admin/…/events` long-poll.
///
/// What the feed costs a request: its fields written into bytes, one lock,
/// and two copies into the feed's byte rings (``FeedByteRing``): one for the
/// fields, one for the request and answer bodies. The request keeps nothing
/// alive once answered; nothing is encoded as JSON or named until a watcher
/// reads: then the events read are worded (``WireServerEvent``) and their
/// clients named (``ClientDirectory``). A watcher waiting is woken by the
/// next event. The bodies' ring holds at most ``bodyBudget`` bytes: past
/// that the oldest bodies are let go (an event then reads with none, but an
/// error's answer and a registration's stay with its fields).
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
    /// Cleared by ``setRecording(_:)``: the feed then records nothing, as one of size 0.
    private let recording = Atomic<Bool>(true)

    /// One event as the ring keeps it: a request's place in the byte rings, or
    /// another event's value (boxed, so a slot is a few words).
    private struct Slot {
        var time: Milliseconds = 0
        var position: Int64 = 0
        /// Where its fields start in ``Ring/fields`` (a request's; for another event, the end there when it came).
        var fieldsAt: UInt64 = 0
        /// Where its request body starts in ``Ring/bodies``, its answer right after it.
        var bodiesAt: UInt64 = 0
        var fieldsCount: Int32 = 0
        var requestCount: Int32 = 0
        var answerCount: Int32 = 0
        /// A push step or an acknowledgement; `nil` for a request (its fields are bytes).
        var other: Other?
    }

    private indirect enum Other {
        case event(ServerEvent.Kind)
    }

    private struct Ring {
        var slots: [Slot]
        /// Grows as far as the events held need (a slot's counts are 32-bit).
        var fields = FeedByteRing(limit: Int(Int32.max))
        var bodies: FeedByteRing
        /// The sequence the next event gets.
        var next: UInt64 = 1
        /// Watchers waiting for the next event.
        var waiting: [WakeTicket] = []
    }

    package init(capacity: Int, bodyBudget: Int = 64 * 1024 * 1024) {
        self.capacity = max(0, capacity)
        self.bodyBudget = bodyBudget
        ring = Mutex(Ring(slots: Array(repeating: Slot(), count: max(0, capacity)), bodies: FeedByteRing(limit: min(max(1, bodyBudget), Int(Int32.max)))))
    }

    /// The feed exists (its routes answer): its size is not 0.
    package var isOn: Bool { capacity > 0 }

    /// The feed records events now: it is on, and its recording is not paused.
    package var isRecording: Bool { capacity > 0 && recording.load(ordering: .relaxed) }

    /// Pauses (`false`) or resumes recording. While paused, a request costs
    /// what it costs with the feed off, and the events held stay readable:
    /// `bench --http` measures the feed's cost on one server this way, its
    /// saves with the recording paused beside its saves with it on.
    package func setRecording(_ on: Bool) {
        recording.store(on, ordering: .relaxed)
    }

    /// The journal position applied (a shared journal's node moves it as it applies rows).
    package func advance(to position: Int64) {
        appliedPosition.store(position, ordering: .relaxed)
    }

    /// Appends an event (a request's fields and bodies copied into the byte rings) and wakes the watchers waiting.
    package func record(_ event: ServerEvent) {
        guard isRecording else { return }
        var slot = Slot(time: event.time, position: appliedPosition.load(ordering: .relaxed))
        var fields: [UInt8] = []
        var requestBody = Data()
        var answerBody = Data()
        if case .request(let request) = event.kind {
            fields = request.feedBytes()
            requestBody = request.requestBody
            if !request.keepsAnswerWithFields { answerBody = request.answerBody }
        } else {
            slot.other = .event(event.kind)
        }
        let (old, woken) = ring.withLock { ring -> (Other?, [WakeTicket]) in
            let index = Int(ring.next % UInt64(capacity))
            let old = ring.slots[index].other
            // The rings keep the bytes of the oldest event held after this one (none but this one in a ring of one).
            let oldestHeld = ring.next >= UInt64(capacity) ? ring.next - UInt64(capacity) + 1 : 1
            let oldest = oldestHeld < ring.next ? ring.slots[Int(oldestHeld % UInt64(capacity))] : nil
            slot.fieldsAt = ring.fields.end
            if !fields.isEmpty, let at = fields.withUnsafeBytes({ ring.fields.append($0, keeping: oldest?.fieldsAt ?? ring.fields.end) }) {
                (slot.fieldsAt, slot.fieldsCount) = (at, Int32(fields.count))
            }
            slot.bodiesAt = ring.bodies.end
            if let at = ring.bodies.append(requestBody, answerBody, keeping: oldest?.bodiesAt ?? ring.bodies.end) {
                (slot.bodiesAt, slot.requestCount, slot.answerCount) = (at, Int32(requestBody.count), Int32(answerBody.count))
            }
            ring.slots[index] = slot
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
    /// ring no longer holds. Without `bodies`, requests come without their
    /// bodies (an answer kept with the fields still comes).
    package func events(after sequence: UInt64, limit: Int, bodies: Bool = true) -> (events: [ServerEvent], next: UInt64, missed: UInt64) {
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
                let slot = ring.slots[Int(number % UInt64(capacity))]
                guard let kind = Self.kind(of: slot, in: ring, bodies: bodies) else { continue }
                var event = ServerEvent(time: slot.time, kind: kind)
                event.sequence = number
                event.position = slot.position
                events.append(event)
            }
            return (events, through, missed)
        }
    }

    /// A slot's event: a request read back from the byte rings (its bodies empty once let go).
    private static func kind(of slot: Slot, in ring: Ring, bodies: Bool) -> ServerEvent.Kind? {
        if case .event(let kind)? = slot.other { return kind }
        guard let fields = ring.fields.bytes(at: slot.fieldsAt, count: Int(slot.fieldsCount)) else { return nil }
        var requestBody = Data()
        var answerBody = Data()
        let (requestCount, answerCount) = (Int(slot.requestCount), Int(slot.answerCount))
        if bodies, ring.bodies.holds(slot.bodiesAt, count: requestCount + answerCount) {
            requestBody = ring.bodies.data(at: slot.bodiesAt, count: requestCount)
            answerBody = ring.bodies.data(at: slot.bodiesAt + UInt64(requestCount), count: answerCount)
        }
        return RequestEvent(feedBytes: fields, requestBody: requestBody, answerBody: answerBody).map { .request($0) }
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
            return ring.slots[Int(from % UInt64(capacity))].time
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
