import Foundation

/// The User-Agent `syncscope device` sends, `SyncScope-Device/1 (iPhone)`:
/// the server's client directory names that device's client after it
/// (`alice · iPhone`), so two devices of one user read apart in the inspector
/// and the sync doctor. Ours, not CloudKit's.
public enum DeviceUserAgent {
    /// How the User-Agent starts.
    public static let prefix = "SyncScope-Device/"

    /// The User-Agent of a device with this name: printable ASCII (a header
    /// value), no parentheses, at most 40 characters of the name.
    public static func make(deviceName: String) -> String {
        let name = String(String(deviceName.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7F && scalar != "(" && scalar != ")" ? Character(scalar) : "_"
        }).prefix(40))
        return "\(prefix)1 (\(name))"
    }

    /// The device's name in a User-Agent ``make(deviceName:)`` made; `nil` for any other.
    public static func deviceName(in userAgent: String) -> String? {
        guard userAgent.lowercased().hasPrefix(prefix.lowercased()), let open = userAgent.firstIndex(of: "("),
              let close = userAgent.lastIndex(of: ")"), open < close else { return nil }
        let name = userAgent[userAgent.index(after: open)..<close].trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? nil : String(name.prefix(40))
    }
}
