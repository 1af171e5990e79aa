import Foundation
import SyncCore
import SyncSimulation
@testable import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// What a teacher and a newcomer tripped on (issue 27), reproduced with
/// keys on the demo world and held fixed.
@Suite("Inspector: what a teacher tripped on")
struct TeacherDefectsTests {
    /// After `c` with every device in sync, no token expired: the message
    /// says so and how to see the error, instead of sending the person to a
    /// fetch that just succeeds.
    @Test func compactingWithEveryDeviceInSyncSaysNoTokenExpired() async throws {
        let inspector = try await makeInspector()
        await inspector.settle()
        await inspector.press(.character("c"))
        await inspector.press(.character("y"))
        let message = try #require(inspector.state.message?.text)
        #expect(message.contains("no token expired"), "\(message)")
        #expect(message.contains("take a device offline (o), save on another, compact (c), then fetch (f) on the first"), "\(message)")
        #expect(!message.contains("Fetch (f) on a device"))
        // And indeed: a fetch on the Mac succeeds.
        try await inspector.focus("Mac")
        await inspector.press(.character("f"))
        await inspector.settle()
        #expect(inspector.state.message?.kind != .error, "\(String(describing: inspector.state.message))")
        #expect(inspector.state.zone?.state != .tokenExpired)
    }

    /// The message names each device whose token expired, with its zones.
    @Test func theCompactionMessageNamesTheDevicesBehind() {
        let message = InspectorWorld.compactedMessage(
            user: "alice", expired: [("iPad", "Notes@alice"), ("Mac", "Notes"), ("iPad", "Photos@alice")])
        #expect(message.contains("expired: iPad (Notes@alice, Photos@alice), Mac (Notes)."), "\(message)")
        #expect(message.contains("Fetch (f) on iPad to see changeTokenExpired"), "\(message)")
    }

    /// `.` steps the clock and says what happened as the event log would:
    /// no clock readings in milliseconds, no notification UUIDs.
    @Test func stepSaysWhatHappenedInWords() async throws {
        let notification = CloudNotification.database(DatabaseNotification(
            notificationID: "EFB47A4D-CF95-4F8C-D44F-4E2D14EB478A", subscriptionID: "private-changes", containerIdentifier: "c",
            databaseScope: .private))
        let push = PushEvent(
            time: 1_767_225_760_506,
            kind: .queued(deviceID: "alice-Mac", notificationID: notification.notificationID, arrivesAt: 1_767_225_760_756))
        let event = WorldEvent(number: 9, time: 1_767_225_760_506, device: nil, kind: .push(push))
        let text = InspectorWorld.steppedText(event, devices: [("Mac", "alice-Mac")])
        #expect(text == "push: #efb4 on its way to Mac, arrives in 250ms", "\(text)")
        #expect(!text.contains("1767225760"))
        #expect(!text.contains("EFB47A4D"))

        // On the demo world, every step says it that way.
        let inspector = try await makeInspector()
        await inspector.press(.character("n"))
        await inspector.type("stepped")
        await inspector.press(.tab, .tab)
        await inspector.type("A note")
        await inspector.press(.enter)
        let uuid = try Regex("[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}")
        let epochMilliseconds = try Regex("[0-9]{10,}")
        for _ in 0..<6 {
            await inspector.press(.character("."))
            let said = inspector.state.message?.text ?? ""
            #expect(said.firstMatch(of: uuid) == nil, "\(said)")
            #expect(said.firstMatch(of: epochMilliseconds) == nil, "\(said)")
        }
    }

    /// An edit a minute ago is still in the "actions" view after hundreds of
    /// fetch and push events: a filtered view reaches back as far as the
    /// world keeps events, not only through the latest 500 of every kind.
    @Test func theActionsViewKeepsAnEarlyEdit() async throws {
        let inspector = try await makeInspector(size: Size(width: 120, height: 40))
        let world = inspector.simulation
        let iPhone = try inspector.device("iPhone")
        world.note("the early edit", device: "iPhone")
        let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")
        while world.eventCount < 1_200 {
            let name = "busy-\(world.eventCount)"
            await world.save(Record(recordID: RecordID(recordName: name, zoneID: notes), recordType: "Note", fields: ["title": .string(name)]), on: iPhone)
            await world.advance(by: 1_000)
        }
        await inspector.press(.character("E"))
        for _ in 0..<6 { await inspector.press(.character("K")) }
        await inspector.settle()
        #expect(inspector.state.eventLog.category == .action)
        #expect(inspector.state.snapshot.events.contains { $0.description.contains("the early edit") },
                "\(inspector.lines.joined(separator: "\n"))")
        // Without a filter, the log keeps its latest 500, as before.
        for _ in 0..<1 { await inspector.press(.character("K")) }
        await inspector.settle()
        #expect(inspector.state.eventLog.category == nil)
        #expect(inspector.state.snapshot.events.count == EventLog.keptEvents)
    }
}
