import Foundation
import SyncCore

/// A record zone, as CloudKit's `CKRecordZone`: its ID and what it can do.
public final class CKRecordZone: NSObject, NSSecureCoding, NSCopying, Sendable {
    public typealias ID = CKRecordZoneID

    /// What a zone supports (`CKRecordZone.Capabilities`).
    public struct Capabilities: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let fetchChanges = Capabilities(rawValue: 1 << 0)
        public static let atomic = Capabilities(rawValue: 1 << 1)
        public static let sharing = Capabilities(rawValue: 1 << 2)
        public static let zoneWideSharing = Capabilities(rawValue: 1 << 3)
    }

    public let zoneID: CKRecordZone.ID
    public let capabilities: Capabilities

    public convenience init(zoneName: String) {
        self.init(zoneID: CKRecordZone.ID(zoneName: zoneName))
    }

    public init(zoneID: CKRecordZone.ID) {
        self.zoneID = zoneID
        capabilities = zoneID.zoneName == CKRecordZone.ID.defaultZoneName ? [] : [.fetchChanges, .atomic, .sharing, .zoneWideSharing]
    }

    /// The current user's default zone.
    public static func `default`() -> CKRecordZone { CKRecordZone(zoneID: .default) }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        zoneID.encode(with: coder)
    }

    public convenience init?(coder: NSCoder) {
        guard let id = CKRecordZone.ID(coder: coder) else { return nil }
        self.init(zoneID: id)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? CKRecordZone)?.zoneID == zoneID
    }

    public override var hash: Int { zoneID.hash }

    public override var description: String { "<CKRecordZone: \(zoneID.zoneName)>" }
}
