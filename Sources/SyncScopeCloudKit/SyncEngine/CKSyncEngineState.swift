import Foundation
import Synchronization

extension CKSyncEngine {
    /// What the engine keeps between launches, as CloudKit's `CKSyncEngine.State`: the
    /// pending changes the app added, and (opaque to the app) the change tokens, the account
    /// it synced for and the device it is.
    ///
    /// Adding a change that is already pending does nothing; adding a save of a record whose
    /// deletion is pending (or the other way round) replaces it, so one send never carries
    /// both. Every change to the state ends in a `stateUpdate` event.
    public final class State: Sendable, CustomStringConvertible {
        /// The state as the app persists it (`Codable`; its content is the engine's).
        public struct Serialization: Codable, Sendable, Hashable {
            let data: Data

            init(_ stored: Stored) {
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                data = (try? encoder.encode(stored)) ?? Data()
            }

            var stored: Stored? { try? JSONDecoder().decode(Stored.self, from: data) }
        }

        struct ZoneKey: Codable, Hashable {
            var zoneName: String
            var ownerName: String

            init(_ id: CKRecordZone.ID) {
                zoneName = id.zoneName
                ownerName = id.ownerName
            }

            var zoneID: CKRecordZone.ID { CKRecordZone.ID(zoneName: zoneName, ownerName: ownerName) }
        }

        struct RecordKey: Codable, Hashable {
            var recordName: String
            var zone: ZoneKey
            var delete: Bool
        }

        struct ZoneChangeKey: Codable, Hashable {
            var zone: ZoneKey
            var delete: Bool
        }

        struct ZoneToken: Codable, Hashable {
            var zone: ZoneKey
            var token: String
        }

        /// Everything the serialization holds.
        struct Stored: Codable, Hashable {
            var user: String?
            var deviceID: String?
            var subscribed = false
            var databaseToken: String?
            var zoneTokens: [ZoneToken] = []
            var unfetchedZones: [ZoneKey] = []
            var pendingRecordZoneChanges: [RecordKey] = []
            var pendingDatabaseChanges: [ZoneChangeKey] = []
            var hasPendingUntrackedChanges = false
        }

        private let stored: Mutex<Stored>
        /// Set by the engine: told when the app changed the state (true: changes to send were added).
        private let onChange = Mutex<(@Sendable (_ addedChanges: Bool) -> Void)?>(nil)

        init(_ serialization: Serialization?) {
            stored = Mutex(serialization?.stored ?? Stored())
        }

        func observe(_ observer: (@Sendable (Bool) -> Void)?) {
            onChange.withLock { $0 = observer }
        }

        // MARK: The app's view

        public var pendingRecordZoneChanges: [PendingRecordZoneChange] {
            stored.withLock { $0.pendingRecordZoneChanges.map(Self.change) }
        }

        public var pendingDatabaseChanges: [PendingDatabaseChange] {
            stored.withLock { $0.pendingDatabaseChanges.map(Self.change) }
        }

        /// Set it when the app has changes it did not add to the state (say, on first launch
        /// after an update); the engine schedules a send, and asks for a batch even when
        /// nothing is pending.
        public var hasPendingUntrackedChanges: Bool {
            get { stored.withLock { $0.hasPendingUntrackedChanges } }
            set {
                stored.withLock { $0.hasPendingUntrackedChanges = newValue }
                changed(added: newValue)
            }
        }

        /// Zones the server has changes in that the engine has not fetched yet.
        public var zoneIDsWithUnfetchedServerChanges: [CKRecordZone.ID] {
            stored.withLock { $0.unfetchedZones.map(\.zoneID) }
        }

        public func add(pendingRecordZoneChanges changes: [PendingRecordZoneChange]) {
            stored.withLock { s in
                for change in changes {
                    let key = Self.key(change)
                    s.pendingRecordZoneChanges.removeAll { $0.recordName == key.recordName && $0.zone == key.zone && $0.delete != key.delete }
                    if !s.pendingRecordZoneChanges.contains(key) { s.pendingRecordZoneChanges.append(key) }
                }
            }
            changed(added: !changes.isEmpty)
        }

        public func remove(pendingRecordZoneChanges changes: [PendingRecordZoneChange]) {
            let keys = Set(changes.map(Self.key))
            stored.withLock { $0.pendingRecordZoneChanges.removeAll(where: keys.contains) }
            changed(added: false)
        }

        public func add(pendingDatabaseChanges changes: [PendingDatabaseChange]) {
            stored.withLock { s in
                for change in changes {
                    let key = Self.key(change)
                    s.pendingDatabaseChanges.removeAll { $0.zone == key.zone && $0.delete != key.delete }
                    if !s.pendingDatabaseChanges.contains(key) { s.pendingDatabaseChanges.append(key) }
                }
            }
            changed(added: !changes.isEmpty)
        }

        public func remove(pendingDatabaseChanges changes: [PendingDatabaseChange]) {
            let keys = Set(changes.map(Self.key))
            stored.withLock { $0.pendingDatabaseChanges.removeAll(where: keys.contains) }
            changed(added: false)
        }

        public var description: String {
            let s = stored.withLock { $0 }
            return "<CKSyncEngine.State: \(s.pendingRecordZoneChanges.count) record changes, \(s.pendingDatabaseChanges.count) zone changes pending, \(s.zoneTokens.count) zone tokens>"
        }

        private func changed(added: Bool) {
            onChange.withLock { $0 }?(added)
        }

        // MARK: The engine's view

        var serialization: Serialization { Serialization(stored.withLock { $0 }) }

        func read<T>(_ body: (Stored) -> T) -> T { stored.withLock { body($0) } }

        func update<T>(_ body: (inout Stored) -> T) -> T { stored.withLock { body(&$0) } }

        static func key(_ change: PendingRecordZoneChange) -> RecordKey {
            switch change {
            case .saveRecord(let id): RecordKey(recordName: id.recordName, zone: ZoneKey(id.zoneID), delete: false)
            case .deleteRecord(let id): RecordKey(recordName: id.recordName, zone: ZoneKey(id.zoneID), delete: true)
            }
        }

        static func change(_ key: RecordKey) -> PendingRecordZoneChange {
            let id = CKRecord.ID(recordName: key.recordName, zoneID: key.zone.zoneID)
            return key.delete ? .deleteRecord(id) : .saveRecord(id)
        }

        static func key(_ change: PendingDatabaseChange) -> ZoneChangeKey {
            switch change {
            case .saveZone(let zone): ZoneChangeKey(zone: ZoneKey(zone.zoneID), delete: false)
            case .deleteZone(let id): ZoneChangeKey(zone: ZoneKey(id), delete: true)
            }
        }

        static func change(_ key: ZoneChangeKey) -> PendingDatabaseChange {
            key.delete ? .deleteZone(key.zone.zoneID) : .saveZone(CKRecordZone(zoneID: key.zone.zoneID))
        }
    }
}
