import Foundation
import SyncCore

/// CloudKit's name for the current user as a zone's owner (`CKCurrentUserDefaultName`).
public let CKCurrentUserDefaultName = RecordZoneID.currentUserName

/// Identifies a record zone: its name and its owner, as CloudKit's `CKRecordZone.ID`
/// (`CKRecordZoneID`) does. Secure coding keeps both names.
public final class CKRecordZoneID: NSObject, NSSecureCoding, NSCopying, Sendable {
    public let zoneName: String
    public let ownerName: String

    /// The default zone's name (`CKRecordZoneDefaultName`).
    public static let defaultZoneName = RecordZoneID.defaultZoneName

    /// The current user's default zone.
    public static let `default` = CKRecordZoneID(zoneName: defaultZoneName, ownerName: CKCurrentUserDefaultName)

    public init(zoneName: String = CKRecordZoneID.defaultZoneName, ownerName: String = CKCurrentUserDefaultName) {
        self.zoneName = zoneName
        self.ownerName = ownerName
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(zoneName as NSString, forKey: "zoneName")
        coder.encode(ownerName as NSString, forKey: "ownerName")
    }

    public init?(coder: NSCoder) {
        guard let zoneName = coder.decodeObject(of: NSString.self, forKey: "zoneName"),
            let ownerName = coder.decodeObject(of: NSString.self, forKey: "ownerName")
        else { return nil }
        self.zoneName = zoneName as String
        self.ownerName = ownerName as String
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKRecordZoneID else { return false }
        return zoneName == other.zoneName && ownerName == other.ownerName
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(zoneName)
        hasher.combine(ownerName)
        return hasher.finalize()
    }

    public override var description: String { "<CKRecordZoneID: zoneName=\(zoneName), ownerName=\(ownerName)>" }
}

extension CKRecordZoneID {
    /// The server's zone ID for this one, with the current user's name for `__defaultOwner__`.
    func serverZoneID(user: String) -> RecordZoneID {
        RecordZoneID(zoneName: zoneName, ownerName: ownerName == CKCurrentUserDefaultName ? user : ownerName)
    }

    /// CloudKit's view of a server zone ID: the current user's own zones are owned by `__defaultOwner__`.
    convenience init(_ id: RecordZoneID, user: String) {
        self.init(zoneName: id.zoneName, ownerName: id.ownerName == user ? CKCurrentUserDefaultName : id.ownerName)
    }
}
