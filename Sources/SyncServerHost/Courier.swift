import Synchronization

/// One-shot wake-ups for long-polls, per device.
package final class Courier: Sendable {
    private let tickets = Mutex<[String: [ObjectIdentifier: WakeTicket]]>([:])

    package func ticket(for deviceID: String) -> WakeTicket {
        let ticket = WakeTicket(deviceID: deviceID)
        tickets.withLock { $0[deviceID, default: [:]][ObjectIdentifier(ticket)] = ticket }
        return ticket
    }

    package func discard(_ ticket: WakeTicket) {
        tickets.withLock { all in
            all[ticket.deviceID]?[ObjectIdentifier(ticket)] = nil
            if all[ticket.deviceID]?.isEmpty == true { all[ticket.deviceID] = nil }
        }
    }

    package func notify(_ deviceIDs: [String]) {
        guard !deviceIDs.isEmpty else { return }
        let woken = tickets.withLock { all in deviceIDs.flatMap { all[$0].map { Array($0.values) } ?? [] } }
        for ticket in woken { ticket.signal() }
    }
}
