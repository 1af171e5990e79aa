import SyncCore
import SyncClient

/// One record name of the selected zone, with the server's and the device's version.
public struct RecordRow: Hashable, Sendable {
    public var name: String
    public var server: Record? {
        get { versions.server }
        set { versions = Versions(server: newValue, device: versions.device) }
    }
    public var device: Record? {
        get { versions.device }
        set { versions = Versions(server: versions.server, device: newValue) }
    }
    public var marker: RecordMarker
    /// The device has a change to this record waiting to be sent.
    public var hasPendingChange: Bool
    /// The two versions, boxed: a row is a few words, so inserting one among
    /// 100,000 rows moves little memory (see ``RecordRowsModel``).
    private var versions: Versions

    private final class Versions: Sendable {
        let server: Record?
        let device: Record?

        init(server: Record?, device: Record?) {
            self.server = server
            self.device = device
        }
    }

    public init(name: String, server: Record?, device: Record?, marker: RecordMarker, hasPendingChange: Bool) {
        self.name = name
        versions = Versions(server: server, device: device)
        self.marker = marker
        self.hasPendingChange = hasPendingChange
    }

    public static func == (a: RecordRow, b: RecordRow) -> Bool {
        a.name == b.name && a.marker == b.marker && a.hasPendingChange == b.hasPendingChange
            && (a.versions === b.versions || (a.server == b.server && a.device == b.device))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(server)
        hasher.combine(device)
        hasher.combine(marker)
        hasher.combine(hasPendingChange)
    }

    public var type: String { server?.recordType ?? device?.recordType ?? "" }

    /// The first string field (the title of a note), for the list.
    public static func summary(of record: Record?) -> String {
        guard let record else { return "" }
        for key in ["title", "caption", "text", "name"] {
            if case .string(let s)? = record[key] { return s }
        }
        for field in record.fields {
            if case .string(let s) = field.value { return s }
        }
        return record.fields.first.map { "\($0.name)=\($0.value.displayString)" } ?? ""
    }

    /// Who changed it last, for example "alice-iPhone". A device ID the
    /// world names (a device on a real server has a random one) shows as
    /// that device, "alice-Mac"; an ID no device here has shows as its user's
    /// "alice, another device" rather than a string of hex.
    public static func modifiedBy(_ record: Record?, devices: [DeviceSummary] = []) -> String {
        guard let stamp = record?.modified else { return "" }
        guard let deviceID = stamp.deviceID else { return stamp.userRecordName }
        if let device = devices.first(where: { $0.deviceID == deviceID }) {
            return "\(device.user)-\(device.name)"
        }
        return isOpaque(deviceID) ? "\(stamp.userRecordName), another device" : deviceID
    }

    /// An identifier no one reads: long, and hex digits and dashes only (a UUID, a hash).
    static func isOpaque(_ deviceID: String) -> Bool {
        deviceID.count >= 16 && deviceID.allSatisfy { $0.isHexDigit || $0 == "-" }
    }
}
