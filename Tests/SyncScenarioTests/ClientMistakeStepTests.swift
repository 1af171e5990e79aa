import Foundation
import SyncCore
import Testing
@testable import SyncScenario

@Suite("Steps for client mistakes: modifyRecords, signIn, checkAccount, fetch's crash")
struct ClientMistakeStepTests {
    @Test func modifyRecordsReadsZoneRequestSizeAndRecords() throws {
        let steps = try kinds("""
              - modifyRecords: iPhone
              - modifyRecords: {device: iPhone, zone: Notes, perRequest: 400}
              - modifyRecords: {device: Mac, zone: Notes, perRequest: all}
              - modifyRecords: {device: iPhone, zone: _defaultZone, records: [{record: n1, type: Note, fields: {title: Hi}}]}
            """)
        var fields = RecordFields()
        fields["title"] = .string("Hi")
        #expect(steps == [
            .modifyRecords(ModifyRecordsAction(device: "iPhone")),
            .modifyRecords(ModifyRecordsAction(device: "iPhone", zone: ZoneRef("Notes"), perRequest: 400)),
            .modifyRecords(ModifyRecordsAction(device: "Mac", zone: ZoneRef("Notes"), perRequest: nil)),
            .modifyRecords(ModifyRecordsAction(
                device: "iPhone", zone: .defaultZone, records: [.init(recordName: "n1", recordType: "Note", fields: fields)])),
        ])
    }

    @Test func modifyRecordsProblemsAreNamed() {
        #expect(stepProblems("""
              - modifyRecords: {device: iPhone, perRequest: 0}
              - modifyRecords: {device: iPhone, records: [{record: a, type: Note}]}
              - modifyRecords: {device: iPhone, zone: Notes, records: [{record: a}]}
            """) == [
            "steps.yaml:8:49: error: perRequest must be at least 1, got 0",
            "steps.yaml:9:46: error: records needs 'zone': the zone the request saves them in",
            "steps.yaml:10:60: error: each of records needs 'type'; for example {record: note-1, type: Note, fields: {title: Groceries}}",
        ])
    }

    @Test func signInAndCheckAccountNameADeviceAndADeclaredUser() throws {
        let steps = try kinds("""
              - signIn: {device: Mac, user: bob}
              - checkAccount: Mac
              - checkAccount: {device: iPhone}
            """)
        #expect(steps == [
            .signIn(SignInAction(device: "Mac", user: "bob")), .checkAccount(device: "Mac"), .checkAccount(device: "iPhone"),
        ])
        #expect(stepProblems("""
              - signIn: {device: Mac, user: carol}
            """) == ["steps.yaml:8:33: error: user 'carol' is not declared; declared users: alice, bob"])
    }

    @Test func fetchCrashReadsBatchAndWayOfStoring() throws {
        let step = try kind("""
              - fetch: {device: Mac, zone: Notes, token: nil, resultsLimit: 2, crash: {batch: 2, storing: tokenFirst}}
            """)
        #expect(step == .fetch(FetchAction(
            device: "Mac", target: .zoneChanges([ZoneRef("Notes")]), token: .noToken, resultsLimit: 2,
            crash: FetchCrash(batch: 2, storing: .tokenFirst))))
        let fixed = try kind("""
              - fetch: {device: Mac, zone: Notes, crash: {batch: 1, storing: oneTransaction}}
            """)
        #expect(fixed == .fetch(FetchAction(
            device: "Mac", target: .zoneChanges([ZoneRef("Notes")]), crash: FetchCrash(batch: 1, storing: .oneTransaction))))
    }

    @Test func fetchCrashProblemsAreNamed() {
        let problems = stepProblems("""
              - fetch: {device: Mac, crash: {batch: 1, storing: tokenFirst}}
              - fetch: {device: Mac, zone: Notes, crash: {batch: 1, storing: later}}
              - fetch: {device: Mac, zone: Notes, interruptAfter: 1, crash: {batch: 2, storing: tokenFirst}}
            """)
        #expect(problems.count == 3, "\(problems)")
        #expect(problems[0].contains("crash applies to zone changes"))
        #expect(problems[1].contains("unknown storing 'later'"))
        #expect(problems[2].contains("a fetch is either interrupted or crashes, not both"))
    }
}
