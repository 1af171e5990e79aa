import Foundation
import SyncCore
import SyncRemoteWorld
import SyncSimulation
import SyncWorlds

/// Runs a device on a real server without a screen: prints who and where it
/// is, then each event as it happens (pushes heard, fetches and their
/// tokens, sends), ticking the world whenever its long-poll hears something.
struct DeviceWatch {
    let world: RemoteWorld
    /// Stop after this many seconds; `nil`: until the task is cancelled (or the process is stopped).
    var seconds: Double?
    /// Writes text; false when nobody reads any more (a closed pipe), which ends the watch.
    var write: (String) -> Bool
    /// Asked between waits: stop when it says so (checked at least every quarter second when given).
    var shouldStop: (@Sendable () -> Bool)? = nil

    func run() async {
        let device = world.device
        let output = Sink(write: write)
        var lines = ["\(device.user)'s \(device.name) on \(world.serverObserver.source), device ID \(device.deviceID)"]
        if let folder = world.dataDirectory {
            lines.append("cache: \(folder.path) (" + (world.resumedFromCache ? "resumed from its cached tokens)" : "no cached tokens yet)"))
        } else {
            lines.append("cache: in memory")
        }
        lines.append(contentsOf: zoneLines())
        lines.append("listening for pushes; " + (seconds.map { "stopping after \(Self.seconds($0))" } ?? "Ctrl-C stops"))
        output.send(lines.joined(separator: "\n") + "\n")
        for event in world.events { output.send(Self.line(event) + "\n") }
        world.eventObserver = { event in output.send(Self.line(event) + "\n") }
        defer { world.eventObserver = nil }

        let deadline = seconds.map { ContinuousClock.now + .milliseconds(Int64(($0 * 1000).rounded())) }
        while !Task.isCancelled, !output.isGone, shouldStop?() != true {
            var wait = shouldStop == nil ? Duration.seconds(30) : .milliseconds(250)
            if let deadline {
                let left = deadline - ContinuousClock.now
                if left <= .zero { break }
                wait = min(wait, left)
            }
            if let next = world.nextEventTime {
                wait = min(wait, .milliseconds(max(0, next - world.clock.now())))
            }
            _ = await world.waitForPushActivity(timeout: wait)
            await world.advance(by: 0)
        }
    }

    /// Where the lines go, and whether anyone still reads them.
    private final class Sink {
        let write: (String) -> Bool
        private(set) var isGone = false

        init(write: @escaping (String) -> Bool) { self.write = write }

        func send(_ text: String) {
            if !isGone, !write(text) { isGone = true }
        }
    }

    /// The device's zones as its cache has them.
    private func zoneLines() -> [String] {
        let zones = world.device.knownZones()
        guard !zones.isEmpty else { return ["zones: none cached yet"] }
        return ["zones:"] + zones.map { zone in
            let count = world.device.cachedRecords(in: zone).count
            let token = world.device.cachedZoneToken(for: zone).map { "token …\($0.shortForm)" } ?? "no token"
            return "  \(zone.zoneName) (owner \(zone.ownerName)): \(count) record\(count == 1 ? "" : "s"), \(token)"
        }
    }

    static func line(_ event: WorldEvent) -> String {
        "\(time(event.time))  \(event)"
    }

    private static let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "HH:mm:ss.SSS"
        return formatter
    }()

    static func time(_ milliseconds: Milliseconds) -> String {
        formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}
