import Foundation
import Testing
@testable import SyncScenario

/// The `CKShare` steps as the file writes them, and their mistakes.
@Suite("CKShare steps")
struct ShareStepTests {
    @Test func theFourStepsParse() throws {
        let steps = try kinds("""
              - saveShare: {device: iPhone, zone: Notes, participants: {bob: READ_WRITE}, publicPermission: READ_ONLY}
              - resolveShare: {device: Pixel, zone: Notes@alice}
              - acceptShare: {device: Pixel, zone: {name: Notes, owner: alice}}
              - removeParticipant: {device: iPhone, zone: Notes, participants: [bob]}
            """)
        #expect(steps == [
            .saveShare(ZoneShareAction(
                device: "iPhone", zone: ZoneRef("Notes"), participants: [.init(user: "bob", permission: "READ_WRITE")], publicPermission: "READ_ONLY")),
            .resolveShare(ZoneShareAction(device: "Pixel", zone: ZoneRef("Notes", ownerName: "alice"))),
            .acceptShare(ZoneShareAction(device: "Pixel", zone: ZoneRef("Notes", ownerName: "alice"))),
            .removeParticipant(ZoneShareAction(device: "iPhone", zone: ZoneRef("Notes"), participants: [.init(user: "bob", permission: "NONE")])),
        ])
        #expect(steps.map(\.name) == ["saveShare", "resolveShare", "acceptShare", "removeParticipant"])
        #expect(steps.map(\.device) == ["iPhone", "Pixel", "Pixel", "iPhone"])
        // Each has the CloudKit code an app writes for it.
        #expect(steps.compactMap(\.generatedCode?.title) == [
            "CKShare of a whole zone, with participants", "CKFetchShareMetadataOperation", "CKAcceptSharesOperation",
            "CKShare: removing participants",
        ])
        #expect(steps[0].generatedCode?.fixed.contains("share.publicPermission = .readOnly") == true)
    }

    @Test func mistakesAreNamed() {
        #expect(stepProblems("  - saveShare: {device: iPhone, zone: Notes, participants: {bob: WRITE}}\n") == [
            "steps.yaml:8:66: error: unknown permission of bob 'WRITE'; use READ_ONLY or READ_WRITE",
        ])
        #expect(stepProblems("  - saveShare: {device: iPhone, zone: Notes, participants: [bob]}\n") == [
            "steps.yaml:8:60: error: saveShare participants must be a mapping of users to permissions, got a list; for example {bob: READ_WRITE}",
        ])
        #expect(stepProblems("  - acceptShare: {device: Pixel, zone: Notes}\n") == [
            "steps.yaml:8:40: error: acceptShare names the owner's zone with its owner; for example Notes@alice",
        ])
        #expect(stepProblems("  - removeParticipant: {device: iPhone, zone: Notes, participants: [carol]}\n") == [
            "steps.yaml:8:69: error: user 'carol' is not declared; declared users: alice, bob",
        ])
    }
}
