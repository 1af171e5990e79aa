import Foundation
import SyncCore
import SyncScopeCloudKit
import Testing

/// The contacts example (written as Apple's CKSyncEngine sample writes its sync layer) on two
/// devices, with tests of the kinds the sample has.
@Suite struct ContactsSyncTests {
    /// Two devices of one user on a fresh server, each with its own sync engine, and the user's clock.
    struct Devices {
        let phone: SyncedDatabase
        let laptop: SyncedDatabase
        let container: CKContainer
        let clock = UserClock()

        init(_ name: String = #function) {
            let identifier = "iCloud.test.contacts.\(name).\(UUID().uuidString)"
            SyncScopeBackEnd.install(.inProcess(seed: 7), forContainer: identifier)
            container = CKContainer(identifier: identifier)
            phone = SyncedDatabase(container: container, now: clock.tick)
            laptop = SyncedDatabase(container: CKContainer(identifier: identifier), now: clock.tick)
        }
    }

    private func sync(_ devices: SyncedDatabase...) async throws {
        for device in devices {
            try await device.syncEngine.sendChanges()
            try await device.syncEngine.fetchChanges()
        }
    }

    private func names(_ device: SyncedDatabase) async -> [String: String] {
        Dictionary(uniqueKeysWithValues: await device.contacts.map { ($0.id, $0.name) })
    }

    @Test(arguments: [1, 10, 444])
    func contactsReachTheOtherDevice(count: Int) async throws {
        let devices = Devices("sync\(count)")
        for i in 0..<count { await devices.phone.saveContact(id: "c\(i)", name: "Contact \(i)") }
        try await sync(devices.phone, devices.laptop)
        let received = await names(devices.laptop)
        #expect(received.count == count)
        #expect(received["c0"] == "Contact 0")
        #expect(await devices.phone.syncEngine.state.pendingRecordZoneChanges.isEmpty)
        // Every contact kept the server's system fields.
        #expect(await devices.phone.contacts.allSatisfy { $0.lastKnownRecord?.recordChangeTag != nil })
    }

    @Test func renamesGoBothWays() async throws {
        let devices = Devices()
        await devices.phone.saveContact(id: "ada", name: "Ada")
        try await sync(devices.phone, devices.laptop)
        await devices.laptop.saveContact(id: "ada", name: "Ada Lovelace")
        try await sync(devices.laptop, devices.phone)
        #expect(await names(devices.phone) == ["ada": "Ada Lovelace"])
        await devices.phone.saveContact(id: "ada", name: "Countess")
        try await sync(devices.phone, devices.laptop)
        #expect(await names(devices.laptop) == ["ada": "Countess"])

        await devices.laptop.deleteContacts(["ada"])
        try await sync(devices.laptop, devices.phone)
        #expect(await names(devices.phone).isEmpty)
    }

    @Test func aDeletedZoneIsCreatedAgain() async throws {
        let devices = Devices()
        await devices.phone.saveContact(id: "ada", name: "Ada")
        try await sync(devices.phone)
        _ = try await devices.container.privateCloudDatabase.deleteRecordZone(withID: SyncedDatabase.zoneID)

        await devices.phone.saveContact(id: "ada", name: "Ada again")
        do {
            try await devices.phone.syncEngine.sendChanges()
            Issue.record("a save into a deleted zone succeeded")
        } catch let error as CKError {
            #expect(error.code == .partialFailure)
            let itemError = error.partialErrorsByItemID?[CKRecord.ID(recordName: "ada", zoneID: SyncedDatabase.zoneID)] as? CKError
            #expect(itemError?.code == .zoneNotFound)
        }
        // The delegate asked for the zone and the record again: the next send saves both.
        #expect(await devices.phone.syncEngine.state.pendingDatabaseChanges == [.saveZone(CKRecordZone(zoneID: SyncedDatabase.zoneID))])
        try await devices.phone.syncEngine.sendChanges()
        try await sync(devices.laptop)
        #expect(await names(devices.laptop) == ["ada": "Ada again"])
    }

    @Test func aRecordGoneFromTheServerIsSavedAsNew() async throws {
        let devices = Devices()
        await devices.phone.saveContact(id: "ada", name: "Ada")
        try await sync(devices.phone)
        _ = try await devices.container.privateCloudDatabase.deleteRecord(withID: CKRecord.ID(recordName: "ada", zoneID: SyncedDatabase.zoneID))

        await devices.phone.saveContact(id: "ada", name: "Ada again")
        do {
            try await devices.phone.syncEngine.sendChanges()
            Issue.record("an update of a deleted record succeeded")
        } catch let error as CKError {
            let itemError = error.partialErrorsByItemID?.values.first as? CKError
            #expect(itemError?.code == .unknownItem)
        }
        #expect(await devices.phone.contacts.first?.lastKnownRecord == nil)
        try await devices.phone.syncEngine.sendChanges()
        try await sync(devices.laptop)
        #expect(await names(devices.laptop) == ["ada": "Ada again"])
    }

    /// Both devices rename the same contact; the laptop's rename is the newer one and wins.
    private func conflict(winnerSavesFirst: Bool) async throws {
        let devices = Devices("conflict\(winnerSavesFirst)")
        await devices.phone.saveContact(id: "ada", name: "Ada")
        try await sync(devices.phone, devices.laptop)
        await devices.phone.saveContact(id: "ada", name: "Phone's name")
        await devices.laptop.saveContact(id: "ada", name: "Laptop's name")

        let (first, second) = winnerSavesFirst ? (devices.laptop, devices.phone) : (devices.phone, devices.laptop)
        try await first.syncEngine.sendChanges()
        do {
            try await second.syncEngine.sendChanges()
            Issue.record("a save over a changed server record succeeded")
        } catch let error as CKError {
            #expect((error.partialErrorsByItemID?.values.first as? CKError)?.code == .serverRecordChanged)
        }
        // The loser merged the server's record and sends again; then both fetch.
        try await second.syncEngine.sendChanges()
        try await sync(first, second, first)
        #expect(await names(devices.phone) == ["ada": "Laptop's name"])
        #expect(await names(devices.laptop) == ["ada": "Laptop's name"])
        let server = try await devices.container.privateCloudDatabase.record(for: CKRecord.ID(recordName: "ada", zoneID: SyncedDatabase.zoneID))
        #expect(server.encryptedValues[.contact_name] as? String == "Laptop's name")
    }

    @Test func conflictWithTheWinnerSavingFirst() async throws {
        try await conflict(winnerSavesFirst: true)
    }

    @Test func conflictWithTheWinnerSavingLast() async throws {
        try await conflict(winnerSavesFirst: false)
    }

    @Test func aRelaunchedDeviceResumesFromItsPersistedState() async throws {
        let devices = Devices()
        await devices.phone.saveContact(id: "ada", name: "Ada")
        try await sync(devices.phone, devices.laptop)
        let saved = try #require(await devices.laptop.persistedData)

        await devices.phone.saveContact(id: "ada", name: "Ada L.")
        try await sync(devices.phone)
        let relaunched = SyncedDatabase(container: devices.container, restoring: saved, now: devices.clock.tick)
        #expect(await relaunched.contacts.first?.lastKnownRecord?.recordChangeTag != nil)
        try await relaunched.syncEngine.fetchChanges()
        #expect(await names(relaunched) == ["ada": "Ada L."])
        // It fetched only what changed since its persisted tokens: renaming it there now saves cleanly.
        await relaunched.saveContact(id: "ada", name: "Ada from the relaunch")
        try await relaunched.syncEngine.sendChanges()
        try await sync(devices.phone)
        #expect(await names(devices.phone) == ["ada": "Ada from the relaunch"])
    }
}
