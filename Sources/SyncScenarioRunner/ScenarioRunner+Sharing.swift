import SyncCore
import SyncScenario
import SyncServer
import SyncSimulation
import SyncWorlds

/// The `CKShare` steps, as Web Services serves them: the owner saves the
/// share record `cloudkit.zoneshare` with its participants (`records/modify`),
/// an invitee resolves and accepts it by the short GUID of its URL
/// (`records/resolve`, `records/accept`), the owner removes participants.
extension ScenarioRunner {
    /// `saveShare`: the share record saved in the zone, then the share.
    func saveShare(_ action: ZoneShareAction, on device: SyncDevice) async throws {
        let zoneID = try await zoneID(action.zone, for: device, in: .private)
        let save = ShareSave(
            publicPermission: permission(action.publicPermission),
            invitations: action.participants.map { ShareSave.Invitation(user: $0.user, permission: permission($0.permission)) })
        let share = try saveZoneShare(save, zoneID: zoneID, on: device)
        let invited = share.participants.map { "\($0.user) \($0.permission.rawValue) (\($0.acceptanceStatus.rawValue))" }
        record(.note(
            device: device.name,
            "CKShare of zone \(zoneID.zoneName) saved, public \(share.publicPermission.rawValue): "
                + (invited.isEmpty ? "no participants" : invited.joined(separator: ", ")) + "; its URL ends in \(share.shortGUID)"))
    }

    /// `removeParticipant`: the share saved again without them.
    func removeParticipants(_ action: ZoneShareAction, on device: SyncDevice) async throws {
        let zoneID = try await zoneID(action.zone, for: device, in: .private)
        let removed = Set(action.participants.map(\.user))
        let current = try currentShare(of: zoneID, database: database(.private, for: device))
        for user in action.participants.map(\.user) where current.participant(user) == nil {
            throw CloudError(.invalidArguments, "\(user) is not a participant of the share of zone \(zoneID.zoneName).", zoneID: zoneID)
        }
        let save = ShareSave(
            publicPermission: current.publicPermission,
            invitations: current.participants.map { ShareSave.Invitation(user: $0.user, permission: $0.permission, removed: removed.contains($0.user)) })
        try saveZoneShare(save, zoneID: zoneID, on: device)
        let names = action.participants.map(\.user).joined(separator: ", ")
        record(.note(device: device.name, "\(names) removed from the CKShare of zone \(zoneID.zoneName): the zone leaves their shared database"))
    }

    /// `resolveShare` (`accepting` false) and `acceptShare`, by the short GUID of the owner's share of the zone.
    func resolveShare(_ action: ZoneShareAction, on device: SyncDevice, accepting: Bool) async throws {
        let zoneID = try await zoneID(action.zone, for: device, in: .shared)
        let caller = Caller(user: user(of: device), deviceID: device.deviceID)
        let shared = database(.shared, for: device)
        let guid = try currentShare(of: zoneID, database: database(.private, for: device)).shortGUID
        let resolution = try simulation.server.withEngine { (engine) throws(CloudError) -> ShareResolution in
            accepting
                ? try engine.acceptShare(caller: caller, database: shared, shortGUID: guid)
                : try engine.resolveShare(caller: caller, database: shared, shortGUID: guid)
        }
        let place = resolution.caller.map { "\(caller.user) is \($0.acceptanceStatus.rawValue) with \($0.permission.rawValue)" }
            ?? "\(caller.user) is not a participant (public \(resolution.share.publicPermission.rawValue))"
        record(.note(
            device: device.name,
            accepting
                ? "records/accept \(guid): zone \(zoneID.zoneName) of \(zoneID.ownerName) is in \(caller.user)'s shared database; \(place)"
                : "records/resolve \(guid): zone \(zoneID.zoneName) of \(zoneID.ownerName); \(place)"))
    }

    // MARK: Helpers

    private func permission(_ name: String) -> SharePermission { SharePermission(rawValue: name) ?? .none }

    private func database(_ scope: DatabaseScope, for device: SyncDevice) -> DatabaseID {
        let environment = simulation.setup.devices.first { $0.name == device.name }?.environment ?? .development
        return DatabaseID(container: simulation.setup.container, environment: environment, scope: scope)
    }

    /// The share of a zone, read as its owner (the URL they send an invitee carries its short GUID).
    private func currentShare(of zoneID: RecordZoneID, database: DatabaseID) throws -> ZoneShare {
        let share = simulation.server.withEngine { engine in
            engine.zoneShare(caller: Caller(user: zoneID.ownerName), database: database, zoneID: zoneID)
        }
        guard let share else {
            throw CloudError(.unknownItem, "Zone \(zoneID.zoneName) of \(zoneID.ownerName) has no share; save one with saveShare first.", zoneID: zoneID)
        }
        return share
    }

    /// Saves the share record `cloudkit.zoneshare` in the zone and the share
    /// itself in one engine step, as `records/modify` does for a share record.
    @discardableResult
    private func saveZoneShare(_ save: ShareSave, zoneID: RecordZoneID, on device: SyncDevice) throws -> ZoneShare {
        let caller = Caller(user: user(of: device), deviceID: device.deviceID)
        let database = database(.private, for: device)
        return try simulation.server.withEngine { (engine) throws(CloudError) -> ZoneShare in
            try engine.checkZoneShare(caller: caller, database: database, zoneID: zoneID, save)
            let shareRecord = Record(recordID: RecordID(recordName: ZoneShare.recordName, zoneID: zoneID), recordType: ZoneShare.recordType)
            let results = try engine.modifyRecords(
                caller: caller, database: database, zoneID: zoneID, operations: [RecordOperation(type: .forceReplace, record: shareRecord)],
                atomic: true, clientChangeTokenData: nil)
            if case .failure(let error)? = results.first { throw error }
            return try engine.saveZoneShare(caller: caller, database: database, zoneID: zoneID, save)
        }
    }
}
