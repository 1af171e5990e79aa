import Foundation
import SyncCore
import SyncScenario
import Testing
@testable import SyncScenarioRunner

@Suite("Running the client-mistake steps")
struct ClientMistakeRunnerTests {
    static let setup = """
        name: mistakes
        seed: 7
        users: [alice, bob]
        devices:
          - {name: iPhone, user: alice}
          - {name: Mac, user: alice, autoFetchOnPush: false}
        steps:
          - createZone: {device: iPhone, zone: Inbox}

        """

    @Test func modifyRecordsSplitsIntoRequestsOfTheSizeAsked() async throws {
        let runner = try runner(Self.setup + """
              - burst: {device: iPhone, zone: Inbox, count: 9, send: none}
              - modifyRecords: {device: iPhone, zone: Inbox, perRequest: 4}
              - expect: {pending: {device: iPhone, count: 0}}
            """)
        let (text, failure) = await textTranscript(runner)
        #expect(failure == nil, "\(text)")
        let requests = runner.transcript.filter { if case .recordsSent = $0.kind { true } else { false } }
        #expect(requests.count == 3, "4 + 4 + 1 operations")
        #expect(text.contains("records/modify Inbox: saved [item-1, item-2, item-3, item-4]"))
    }

    @Test func aRequestOverTheServersLimitFailsWholeAndKeepsEverythingQueued() async throws {
        let runner = try runner(Self.setup + """
              - burst: {device: iPhone, zone: Inbox, count: 401, send: none}
              - modifyRecords: {device: iPhone, zone: Inbox}
              - expect: {error: {code: limitExceeded}}
              - expect: {pending: {device: iPhone, count: 401}}
              - sync: Mac
              - expect: {cache: {device: Mac, zone: Inbox, count: 0}}
            """)
        let (text, failure) = await textTranscript(runner)
        #expect(failure == nil, "\(text)")
        #expect(text.contains("failed as a whole: nothing applied, the changes stay queued"))
    }

    @Test func storingTheTokenFirstLosesTheBatchOneTransactionDoesNot() async throws {
        let steps = """
              - burst: {device: iPhone, zone: Inbox, count: 4, send: end}
              - fetch: {device: Mac, zone: Inbox, token: nil, resultsLimit: 2, crash: {batch: 1, storing: STORING}}
              - fetch: {device: Mac, zone: Inbox}
            """
        let lost = try runner(Self.setup + steps.replacingOccurrences(of: "STORING", with: "tokenFirst"))
        _ = await textTranscript(lost)
        let inbox = RecordZoneID(zoneName: "Inbox", ownerName: "alice")
        let mac = try #require(lost.simulation.device(named: "Mac"))
        #expect(mac.cachedRecords(in: inbox).map(\.recordID.recordName).sorted() == ["item-3", "item-4"])

        let kept = try runner(Self.setup + steps.replacingOccurrences(of: "STORING", with: "oneTransaction"))
        _ = await textTranscript(kept)
        let keptMac = try #require(kept.simulation.device(named: "Mac"))
        #expect(keptMac.cachedRecords(in: inbox).count == 4)
    }

    @Test func anotherAccountUsesItsOwnConnectionUntilTheCacheIsCleared() async throws {
        let runner = try runner(Self.setup + """
              - sync: Mac
              - signIn: {device: Mac, user: bob}
              - sync: Mac
              - expect: {error: {code: invalidArguments, reasonContains: "issued to another user (alice), not to bob"}}
              - checkAccount: Mac
              - expect: {tokens: {device: Mac, database: private, cached: false}}
              - sync: Mac
              - expect: {error: none}
              - expect: {tokens: {device: Mac, database: private, cached: true}}
            """)
        let (text, failure) = await textTranscript(runner)
        #expect(failure == nil, "\(text)")
        #expect(text.contains("bob signed in instead of alice"))
        #expect(text.contains("signed-in user record name bob is not alice"))
        // reset() forgets the account change.
        try runner.reset()
        #expect(runner.signedIn.isEmpty && runner.cacheOwners.isEmpty)
    }
}
