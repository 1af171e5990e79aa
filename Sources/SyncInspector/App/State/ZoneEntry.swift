import SyncCore
import SyncClient
import SyncWorlds

/// One zone of the zones pane.
public struct ZoneEntry: Hashable, Sendable {
    public var scope: DatabaseScope
    public var zoneID: RecordZoneID
    /// Records on the server (`nil` when the server no longer has the zone).
    public var recordCount: Int?
    /// The sequence of the zone's latest change on the server.
    public var lastSequence: Int64?
    public var serverToken: ServerChangeToken?
    public var deviceToken: ServerChangeToken?
    /// The change each token stands for ("through change 41"), when the
    /// server's inside can be seen. Two tokens can differ in text and stand
    /// for the same change: a token also keeps where its first fetch began.
    public var serverThrough: Int64?
    public var deviceThrough: Int64?
    public var state: ZoneSyncState
    /// The zone's `CKShare`s as the server says (the zones pane lists each, with its participants, under the zone).
    public var shares: [ServerShare] = []

    public var key: ZoneKey { ZoneKey(scope: scope, zoneID: zoneID) }

    /// One line on how the device's token compares with the server's, for
    /// the zones pane's footer: the first of the wordings that fits `width`.
    public func tokenComparison(width: Int) -> String {
        let options: [String]
        switch state {
        case .noChangeFetching:
            options = ["The default zone has no change tokens: devices do not fetch changes from it.", "No change tokens in a default zone."]
        case .notFetched:
            options = ["The device has no token yet: its first fetch brings every record.", "No token yet: a fetch brings every record.", "No token yet."]
        case .notSent, .deleted, .purged, .reset:
            options = ["The server has no token for this zone now (\(state.long)).", "No server token (\(state.short))."]
        case .tokenExpired, .tokenRefused:
            options = ["The server refuses the device's token: its next fetch starts again from no token.", "Token refused: next fetch starts over.", "Token refused."]
        case .inSync, .behind:
            guard let serverToken, let deviceToken else { return "" }
            let same = serverToken == deviceToken
            if case .behind = state {
                if let serverThrough, let deviceThrough {
                    // The changes between the tokens, and the records a fetch brings
                    // (fewer when one record changed more than once): two counts, each named.
                    let changes = serverThrough - deviceThrough
                    let records = if case .behind(let n) = state { n } else { 0 }
                    let changeWord = changes == 1 ? "change" : "changes"
                    let recordWord = records == 1 ? "record" : "records"
                    options = [
                        "Device's token through change \(deviceThrough), server's through change \(serverThrough): \(changes) \(changeWord) behind, a fetch brings \(records) \(recordWord).",
                        "Device through change \(deviceThrough), server \(serverThrough): a fetch brings \(records) \(recordWord).",
                        "Device #\(deviceThrough), server #\(serverThrough): a fetch brings \(records) \(recordWord).",
                        "Device #\(deviceThrough), server #\(serverThrough): \(records) to fetch.",
                        "Device #\(deviceThrough), server #\(serverThrough).",
                    ]
                } else {
                    options = ["A fetch from the device's token brings changes: \(state.long).", "\(state.long)."]
                }
            } else if same {
                options = [
                    "The device holds the server's latest token" + (serverThrough.map { ": through change \($0)." } ?? "."),
                    "Same token" + (serverThrough.map { ", through change \($0)." } ?? "."),
                ]
            } else if let serverThrough, let deviceThrough, serverThrough == deviceThrough {
                options = [
                    "Tokens differ in text, yet both stand for change \(serverThrough): same changes (a token also keeps where its first fetch began).",
                    "Tokens differ, same changes: both through change \(serverThrough).",
                    "Differ, same changes: both #\(serverThrough).",
                ]
            } else {
                options = [
                    "Tokens differ in text, yet cover the same changes: a fetch from the device's token brings nothing.",
                    "Tokens differ, same changes: nothing to fetch.",
                    "Differ, same changes.",
                ]
            }
        }
        return options.first { TextWidth.of($0) <= width } ?? TextWidth.truncate(options.last ?? "", to: width)
    }

    /// "Notes", or "Notes@alice" for another user's zone.
    public func displayName(for user: String) -> String {
        if zoneID.ownerName == user || zoneID.ownerName == RecordZoneID.publicOwnerName {
            return zoneID.isDefaultZone ? "default" : zoneID.zoneName
        }
        return "\(zoneID.zoneName)@\(zoneID.ownerName)"
    }
}
