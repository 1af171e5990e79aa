import Foundation
import SyncCore
import SyncRemoteWorld
import SyncWorlds
import Testing

/// SyncScope's own device engine (`syncscope device`) behaves: two devices
/// syncing through the built server, edits both ways, one of them offline for
/// a while, pushes and fetches — and the doctor names no mistake. A
/// diagnosis here is a false positive.
@Suite struct DoctorOwnDevicesTests {
    let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")

    func note(_ name: String, _ title: String) -> Record {
        Record(recordID: RecordID(recordName: name, zoneID: notes), recordType: "Note", fields: ["title": .string(title)])
    }

    func names(_ world: RemoteWorld) -> [String] {
        world.device.cachedRecords(in: notes).map(\.recordID.recordName)
    }

    @Test func ourOwnDevicesGetNoDiagnosis() async throws {
        let server = try await ServerProcess.start(arguments: ["--coalescing-window", "0"])
        defer { server.stop(); server.removeData() }
        let phone = try await server.remoteDevice("iPhone")
        let mac = try await server.remoteDevice("Mac")
        defer { phone.close(); mac.close() }
        #expect(await phone.createZone("Notes", on: phone.device).error == nil)
        for index in 0..<3 {
            #expect(await phone.save(note("p\(index)", "from the phone"), on: phone.device).error == nil)
        }
        #expect(await mac.tick { self.names($0) == ["p0", "p1", "p2"] }, "\(mac.events.suffix(10))")
        #expect(await mac.save(note("m0", "from the Mac"), on: mac.device).error == nil)
        #expect(await phone.tick { self.names($0) == ["m0", "p0", "p1", "p2"] })
        // The Mac goes offline, the phone writes on, the Mac catches up when back.
        await mac.setOnline(false, device: mac.device)
        #expect(await phone.save(note("p3", "while the Mac was away"), on: phone.device).error == nil)
        await mac.setOnline(true, device: mac.device)
        #expect(await mac.tick { self.names($0).contains("p3") })

        let doctor = try BinaryRunner.run(["doctor", "--server", server.baseURL.absoluteString, "--admin-token", server.adminToken, "--json", "--fail-on", "warning"])
        #expect(doctor.status == 0 && doctor.stdout.isEmpty, "syncscope doctor named mistakes of our own devices:\n\(doctor.stdout)\(doctor.stderr)")
        // The devices were there to be judged: the feed has their requests.
        let text = try BinaryRunner.run(["doctor", "--server", server.baseURL.absoluteString, "--admin-token", server.adminToken])
        #expect(text.stdout.contains("events of 2 clients") || text.stdout.contains("events of 3 clients"), "\(text.stdout)")
    }
}
