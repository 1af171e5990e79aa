import SyncCore
import SyncWorlds

/// Text for times, counts and tokens.
enum Format {
    /// "14:03:07" (UTC) for a simulation time.
    static func clock(_ time: Milliseconds) -> String {
        let seconds = Int((time / 1000) % 86_400 + 86_400) % 86_400
        return pad2(seconds / 3600) + ":" + pad2(seconds / 60 % 60) + ":" + pad2(seconds % 60)
    }

    /// "03:07" (minutes and seconds) for narrow columns.
    static func shortClock(_ time: Milliseconds) -> String {
        let seconds = Int((time / 1000) % 86_400 + 86_400) % 86_400
        return pad2(seconds / 60 % 60) + ":" + pad2(seconds % 60)
    }

    static func pad2(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// "14:03:07.250" (UTC, to the millisecond) for the event log.
    static func preciseClock(_ time: Milliseconds) -> String {
        let millis = Int((time % 1000 + 1000) % 1000)
        let digits = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return clock(time) + "." + digits
    }

    /// "…abc1234", or "—" for none.
    static func token(_ token: ServerChangeToken?) -> String {
        token.map { "…" + $0.shortForm } ?? "—"
    }

    /// "250ms", "1.2s", "3m" (the event log's wording).
    static func duration(_ milliseconds: Milliseconds) -> String {
        WorldEvent.duration(milliseconds)
    }

    /// "999", "1.2k", "100k".
    static func count(_ value: Int) -> String {
        if value < 1000 { return "\(value)" }
        if value < 10_000 {
            let hundreds = value / 100
            return "\(hundreds / 10).\(hundreds % 10)k"
        }
        if value < 1_000_000 { return "\(value / 1000)k" }
        return "\(value / 1_000_000)M"
    }

    /// "×1", "×0.5", "×20".
    static func speed(_ speed: Double) -> String {
        if speed == speed.rounded() { return "×\(Int(speed))" }
        return "×\(speed)"
    }

    /// "3 s", "1.5 s".
    static func seconds(_ milliseconds: Milliseconds) -> String {
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        return "\(Double(milliseconds) / 1000) s"
    }
}
