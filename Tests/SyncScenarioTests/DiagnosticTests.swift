import Foundation
import SyncCore
import Testing
@testable import SyncScenario

@Suite("Errors read like a compiler's")
struct DiagnosticTests {
    @Test func unknownKeySuggestsTheClosestKnownKey() {
        #expect(problems("""
            devices: [{name: Mac, user: alice}]
            steps:
              - fetch:
                  device: Mac
                  resultLimit: 1
            """) == ["lesson.yaml:5:7: error: unknown key 'resultLimit' in fetch; did you mean 'resultsLimit'?"])
    }

    @Test func unknownKeyFarFromAnyListsTheKnownKeys() {
        #expect(stepProblems("  - send: {device: Mac, hurry: true}\n") == [
            "steps.yaml:8:25: error: unknown key 'hurry' in send; send takes device and mergeConflicts",
        ])
    }

    @Test func otherNamesForAKeyPointToThisFormatsName() {
        #expect(stepProblems("  - save: {device: Mac, zone: Notes, recordName: n}\n") == [
            "steps.yaml:8:11: error: save needs 'record'; for example {device: iPhone, zone: Notes, record: note-1, type: Note, fields: {title: Groceries}}",
            "steps.yaml:8:38: error: unknown key 'recordName' in save; did you mean 'record'?",
        ])
    }

    @Test func wrongTypesSayWhatWasExpectedAndWhatCame() {
        #expect(stepProblems("""
              - fetch: {device: Mac, zone: Notes, resultsLimit: many, fetchAllChanges: yes}
              - fetch: {device: Mac, zone: Notes, resultsLimit: 0}
              - fetch: {device: [Mac], zone: Notes}
            """) == [
            "steps.yaml:8:53: error: resultsLimit must be a whole number, got 'many'",
            "steps.yaml:8:76: error: fetchAllChanges must be true or false, got 'yes'",
            "steps.yaml:9:53: error: resultsLimit must be at least 1, got 0",
            "steps.yaml:10:21: error: device must be text, got a list",
        ])
    }

    @Test func undeclaredDevicesListTheDeclaredOnes() {
        #expect(stepProblems("""
              - send: Ipad
              - sync: iphone
            """) == [
            "steps.yaml:8:11: error: device 'Ipad' is not declared; declared devices: iPhone, Mac, Pixel",
            "steps.yaml:9:11: error: device 'iphone' is not declared; did you mean 'iPhone'?",
        ])
    }

    @Test func undeclaredUsersAreReportedWhereverUsersAreNamed() {
        #expect(problems("""
            users: [alice, bob]
            devices:
              - {name: iPhone, user: alcie}
              - {name: Mac, user: carol}
            steps:
              - shareZone: {device: iPhone, zone: Notes, participants: [bob, dave]}
              - compact: {user: eve}
              - fetch: {device: Mac, database: shared, zone: Notes@mallory}
            """) == [
            "lesson.yaml:3:26: error: user 'alcie' is not declared; did you mean 'alice'?",
            "lesson.yaml:4:23: error: user 'carol' is not declared; declared users: alice, bob",
            "lesson.yaml:6:66: error: user 'dave' is not declared; declared users: alice, bob",
            "lesson.yaml:7:21: error: user 'eve' is not declared; declared users: alice, bob",
            "lesson.yaml:8:50: error: user 'mallory' is not declared; declared users: alice, bob",
        ])
    }

    @Test func withoutAUsersListTheDevicesDeclareTheirUsers() throws {
        let scenario = try ScenarioParser.parse(yaml: """
            devices:
              - {name: iPhone, user: alice}
              - {name: Pixel, user: bob}
              - {name: Mac, user: alice}
            steps:
              - compact: {user: bob}
            """, fileName: "s.yaml")
        #expect(scenario.users == ["alice", "bob"])
    }

    /// `sav` is as far from `say` as from `save`: a name cut short is the likelier slip.
    @Test func aStepCutShortSuggestsTheStepItBegins() {
        #expect(stepProblems("  - sav: {device: Mac, zone: Notes, record: n}\n") == [
            "steps.yaml:8:5: error: unknown step 'sav'; did you mean 'save'?",
        ])
        #expect(Suggestions.closest(to: "sav", in: ["say", "save"]) == "save")
        #expect(Suggestions.closest(to: "sya", in: ["say", "save"]) == "say")
        #expect(Suggestions.closest(to: "fecth", in: ["fetch", "send"]) == "fetch")
    }

    @Test func unknownStepsSuggestTheClosestStep() {
        #expect(stepProblems("""
              - fecth: {device: Mac}
              - jump: Mac
              - wait: 2s
            """) == [
            "steps.yaml:8:5: error: unknown step 'fecth'; did you mean 'fetch'?",
            "steps.yaml:9:5: error: unknown step 'jump'; steps are say, ask, createZone, deleteZone, purgeZone, encryptedDataReset, shareZone, revokeShare, saveShare, resolveShare, acceptShare, removeParticipant, save, delete, send, fetch, sync, subscribe, unsubscribe, online, offline, advance, compact, burst, modifyRecords, signIn, checkAccount, fault, clearFaults, deploySchema, importSchema, query or expect",
            "steps.yaml:10:5: error: unknown step 'wait'; did you mean 'advance'?",
        ])
    }

    @Test func unknownComparatorSuggestsTheClosestOne() {
        #expect(stepProblems("""
              - subscribe:
                  user: alice
                  subscriptionID: open
                  type: query
                  recordType: Note
                  firesOn: [create]
                  predicate:
                    - {field: done, comparator: EQUAL, value: 0}
                    - {field: done, comparator: SOUNDS_LIKE, value: 0}
            """) == [
            "steps.yaml:15:37: error: unknown comparator 'EQUAL'; did you mean 'EQUALS'?",
            "steps.yaml:16:37: error: unknown comparator 'SOUNDS_LIKE'; use EQUALS, NOT_EQUALS, LESS_THAN, LESS_THAN_OR_EQUALS, GREATER_THAN, GREATER_THAN_OR_EQUALS, IN, NOT_IN, BEGINS_WITH or LIST_CONTAINS",
        ])
    }

    @Test func comparatorsAcceptAnyCaseButCheckTheirValue() throws {
        #expect(try kind("""
              - subscribe: {user: alice, subscriptionID: q, type: query, recordType: Note, firesOn: [create], predicate: [{field: title, comparator: beginsWith, value: A}]}
            """) == .subscribe(SubscriptionSetup(
                owner: .user("alice"), subscriptionID: "q", type: .query, recordType: "Note",
                predicate: QueryPredicate([QueryFilter("title", .beginsWith, .string("A"))]), options: .firesOnRecordCreation)))
        #expect(stepProblems("""
              - subscribe: {user: alice, subscriptionID: q, type: query, recordType: Note, firesOn: [create], predicate: [{field: n, comparator: IN, value: 3}]}
            """) == ["steps.yaml:8:145: error: IN needs a list of values, got INT64 3"])
    }

    @Test func subscriptionsFollowTheRulesOfTheirType() {
        #expect(stepProblems("""
              - subscribe: {user: alice, subscriptionID: z, type: zone}
              - subscribe: {user: alice, subscriptionID: q, type: query, recordType: Note}
              - subscribe: {user: alice, subscriptionID: d, type: database, zone: Notes, firesOn: [create]}
              - subscribe: {user: alice, subscriptionID: e, type: everything}
            """) == [
            "steps.yaml:8:16: error: a zone subscription needs 'zone'; name the zone it watches, for example zone: Notes",
            "steps.yaml:9:16: error: a query subscription needs 'firesOn'; for example firesOn: [create, update, delete]",
            "steps.yaml:10:65: error: a database subscription watches every zone; it takes no 'zone'; use type: zone to watch one zone",
            "steps.yaml:10:78: error: 'firesOn' applies to query subscriptions only; use type: query, or remove 'firesOn'",
            "steps.yaml:11:55: error: unknown subscription type 'everything'; use database, zone or query",
        ])
    }

    @Test func capturedTokensMustBeCapturedBeforeUse() {
        #expect(stepProblems("""
              - fetch: {device: Mac, zone: Notes, token: first}
              - fetch: {device: Mac, zone: Notes, capture: first}
              - fetch: {device: Mac, zone: Notes, token: frist}
              - fetch: {device: Mac, zone: Notes, token: other}
              - expect: {tokens: {device: Mac, zone: Notes, sameAs: later}}
              - fetch: {device: Mac, capture: later}
            """) == [
            "steps.yaml:8:46: error: token 'first' is used before it is captured; it is first captured at line 9, by a later step",
            "steps.yaml:10:46: error: token 'frist' is never captured; did you mean 'first'?",
            "steps.yaml:11:46: error: token 'other' is never captured; captured tokens: first, later",
            "steps.yaml:12:57: error: token 'later' is used before it is captured; it is first captured at line 13, by a later step",
        ])
    }

    @Test func aFetchCannotUseTheTokenItCaptures() {
        #expect(stepProblems("  - fetch: {device: Mac, zone: Notes, token: t, capture: t}\n") == [
            "steps.yaml:8:46: error: token 't' is used before it is captured; it is first captured at line 8, by a later step",
        ])
    }

    @Test func reservedWordsCannotNameACapturedToken() {
        #expect(stepProblems("  - fetch: {device: Mac, zone: Notes, capture: cached}\n") == [
            "steps.yaml:8:48: error: 'cached' cannot name a captured token; it means something else in 'token:'; pick another name",
        ])
    }

    @Test func malformedDurationsShowTheFix() {
        #expect(stepProblems("""
              - advance: 500
              - advance: 2 secs
              - advance: 0.5ms
              - advance: {by: 2s}
            """) == [
            "steps.yaml:8:14: error: duration '500' in advance has no unit; write 500ms or 500s",
            "steps.yaml:9:14: error: malformed duration '2 secs' in advance; write a number and a unit, like 500ms, 2s, 1m or 1h",
            "steps.yaml:10:14: error: duration '0.5ms' in advance is not a whole number of milliseconds",
            "steps.yaml:11:14: error: advance must be a duration, got a mapping; write a number and a unit, like 500ms, 2s, 1m or 1h",
        ])
    }

    @Test func yamlSyntaxErrorsKeepTheirLineAndColumn() {
        #expect(problems("steps:\n  - say: [unclosed\n") == [
            "lesson.yaml:3:1: error: invalid YAML: did not find expected ',' or ']'; a […] list is not closed, or two of its items lack a ',' between them; while parsing a flow sequence at line 2, column 10",
        ])
        #expect(problems("steps:\n\t- say: hi\n") == [
            "lesson.yaml:2:1: error: invalid YAML: found character that cannot start any token; YAML does not allow tabs for indentation; use spaces; while scanning for the next token at line 2, column 1",
        ])
        #expect(problems("steps:\n  - say: Note: this breaks\n") == [
            "lesson.yaml:2:14: error: invalid YAML: mapping values are not allowed in this context; quote a value that contains ': ', or check the indentation of this line",
        ])
        #expect(problems("steps: []\n---\nsteps: []\n") == [
            "lesson.yaml:2:1: error: invalid YAML: but found another document; a scenario file holds one document; remove the '---' line or split the file; expected a single document in the stream at line 1, column 1",
        ])
    }

    @Test func anErrorAtTheEndOfAFileWithoutAFinalNewlinePointsAtItsLastLine() {
        #expect(problems("steps:\n  - say: [unclosed") == [
            "lesson.yaml:2:19: error: invalid YAML: did not find expected ',' or ']'; a […] list is not closed, or two of its items lack a ',' between them; while parsing a flow sequence at line 2, column 10",
        ])
    }

    @Test func aFolderIsReportedAsAFolderNotAnUnreadableFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-folder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            _ = try ScenarioParser.parse(fileAt: folder)
            Issue.record("a folder must not parse")
        } catch {
            #expect(error.diagnostics.map(\.description) == [
                "\(folder.path): error: this is a folder, not a scenario file; give the path of a .yaml file",
            ])
        }
    }

    @Test func anUnclosedQuotePointsAtWhereItOpensAndShowsThatLine() throws {
        let yaml = "steps:\n  - say: hi\n  - say: \"unclosed\n  - say: bye\n"
        #expect(problems(yaml) == [
            "lesson.yaml:3:10: error: invalid YAML: the quote \" that opens here is never closed; end the value with the same quote",
        ])
        #expect(problems("steps:\n  - say: 'unclosed") == [
            "lesson.yaml:2:10: error: invalid YAML: the quote ' that opens here is never closed; end the value with the same quote",
        ])
        do {
            _ = try ScenarioParser.parse(yaml: yaml, fileName: "lesson.yaml")
            Issue.record("an unclosed quote must not parse")
        } catch {
            #expect(error.rendered().contains("\n  - say: \"unclosed\n         ^\n"))
        }
    }

    @Test func duplicateKeysPointAtTheRepeat() {
        #expect(problems("""
            steps:
              - fetch:
                  device: Mac
                  zone: Notes
                  device: iPhone
            """) == [
            "lesson.yaml:5:7: error: key 'device' appears more than once in the same mapping; 'device' is first given at line 3; each key may appear once",
        ])
        #expect(problems("steps:\n  - send: {device: Mac, device: iPhone}\n") == [
            "lesson.yaml:2:25: error: key 'device' appears more than once in the same mapping; 'device' is first given at line 2; each key may appear once",
        ])
    }

    @Test func filesThatAreNotScenariosSaySo() {
        #expect(problems("") == ["lesson.yaml: error: the file is empty; a scenario needs at least 'devices:' and 'steps:'"])
        #expect(problems("- send: iPhone\n") == [
            "lesson.yaml:1:1: error: a scenario must be a mapping with keys like 'name', 'devices' and 'steps', got a list",
        ])
        #expect(problems("name: x\ndevice: [{name: a, user: b}]\n") == [
            "lesson.yaml:1:1: error: the scenario needs 'steps'",
            "lesson.yaml:2:1: error: unknown key 'device' in the scenario; did you mean 'devices'?",
        ])
    }

    @Test func stepsMustBeOneActionEach() {
        #expect(stepProblems("""
              - send
              - send: iPhone
                say: hello
              - 42
              - send:
            """) == [
            "steps.yaml:8:5: error: step 'send' needs a value; write it as '- send: …', for example '- send: iPhone'",
            "steps.yaml:10:5: error: one step cannot do both 'send' and 'say'; start 'say' on its own line with '- '",
            "steps.yaml:11:5: error: a step must be a mapping such as '- send: iPhone', got '42'",
            "steps.yaml:12:10: error: send needs a device; for example '- send: iPhone'",
        ])
    }

    @Test func missingRequiredKeysAreNamedTogether() {
        #expect(stepProblems("  - save: {device: Mac}\n") == [
            "steps.yaml:8:11: error: save needs 'zone' and 'record'; for example {device: iPhone, zone: Notes, record: note-1, type: Note, fields: {title: Groceries}}",
        ])
    }

    @Test func checksMustComeAfterWhatTheyCheck() {
        #expect(problems("""
            devices: [{name: Mac, user: alice}]
            steps:
              - expect: {error: zoneNotFound}
              - say: Nothing has happened yet.
              - expect: {lastFetch: {moreComing: false}}
            """) == [
            "lesson.yaml:3:14: error: this error check has no step before it to check; put it right after the step that should fail",
            "lesson.yaml:5:14: error: lastFetch checks a fetch, but no fetch or sync step comes before it; add a fetch or sync step before this check",
        ])
    }

    @Test func lastSendMustComeAfterASend() {
        #expect(problems("""
            devices: [{name: Mac, user: alice}]
            steps:
              - fetch: Mac
              - expect: {lastSend: {saved: []}}
              - send: Mac
              - expect: {lastSend: {saved: []}}
            """) == [
            "lesson.yaml:4:14: error: lastSend checks a send, but no send, sync, burst or modifyRecords step comes before it; add a send or sync step before this check",
        ])
    }

    @Test func newChecksAndOptionsReportWrongValues() {
        #expect(stepProblems("""
              - send: {device: Mac, mergeConflicts: sometimes}
              - fetch: {device: Mac, zone: Notes, interruptAfter: 0}
              - fetch: {device: Mac, zone: Notes, fetchAllChanges: false, interruptAfter: 2}
              - expect: {notifications: {device: Mac, reasons: [recordMoved]}}
              - expect: {notifications: {device: Mac, type: database, reasons: [created]}}
              - expect: {lastFetch: {deletions: [{record: a, kind: Note}]}}
              - expect: {pending: {device: Mac}}
              - expect: {subscriptions: {ids: [a]}}
              - expect: {lastSend: {device: Mac}}
            """) == [
            "steps.yaml:8:41: error: mergeConflicts must be true or false, got 'sometimes'",
            "steps.yaml:9:55: error: interruptAfter must be at least 1, got 0",
            "steps.yaml:10:79: error: interruptAfter stops a fetch of several batches, but fetchAllChanges: false fetches only one; remove one of them",
            "steps.yaml:11:53: error: unknown query notification reason 'recordMoved'; use recordCreated, recordUpdated or recordDeleted",
            "steps.yaml:12:68: error: reasons applies to query notifications, not database ones; use type: query, or remove 'reasons'",
            // The two fetches above have errors, so they do not count as fetches.
            "steps.yaml:13:14: error: lastFetch checks a fetch, but no fetch or sync step comes before it; add a fetch or sync step before this check",
            "steps.yaml:13:50: error: unknown key 'kind' in a deletion; a deletion takes record and type",
            "steps.yaml:14:23: error: pending checks nothing; give 'count' or 'records'",
            "steps.yaml:15:29: error: subscriptions needs 'device' or 'user'",
            "steps.yaml:16:24: error: lastSend checks nothing; give 'saved', 'deleted' or 'conflicts'",
        ])
    }

    @Test func unknownChecksAndErrorCodesSuggestTheClosest() {
        #expect(stepProblems("""
              - send: Mac
              - expect: {cahce: {device: Mac, zone: Notes, count: 0}}
              - expect: {error: changeTokenExpird}
              - expect: {error: TOKEN_GONE}
              - expect: {lastFetch: {}}
            """) == [
            "steps.yaml:9:14: error: unknown check 'cahce' in expect; did you mean 'cache'?",
            "steps.yaml:10:21: error: unknown error code 'changeTokenExpird'; did you mean 'changeTokenExpired'?",
            "steps.yaml:11:21: error: unknown error code 'TOKEN_GONE'; use a CloudError code such as changeTokenExpired, a server code such as CHANGE_TOKEN_EXPIRED, or none",
            "steps.yaml:12:25: error: lastFetch checks nothing; give 'records', 'deletions', 'zones', 'deletedZones', 'moreComing', 'tokenChanged' or 'batches'",
        ])
    }

    @Test func severalErrorsAreReportedAtOnceInFileOrder() {
        let problems = problems("""
            users: [alice]
            devices:
              - {name: iPhone, user: alice}
              - {name: Mac, user: alcie}
            steps:
              - fetch: {device: Mac, resultsLimit: many, token: first}
              - fetch: {device: Ipad, zone: Notes, capture: first}
              - advance: 2 secs
              - expect: {error: changeTokenExpird}
            """)
        #expect(problems == [
            "lesson.yaml:4:23: error: user 'alcie' is not declared; did you mean 'alice'?",
            "lesson.yaml:6:40: error: resultsLimit must be a whole number, got 'many'",
            "lesson.yaml:6:53: error: token 'first' is used before it is captured; it is first captured at line 7, by a later step",
            "lesson.yaml:7:21: error: device 'Ipad' is not declared; declared devices: iPhone, Mac",
            "lesson.yaml:7:33: warning: zone 'Notes' is never created in this scenario; add a createZone step before using it",
            "lesson.yaml:8:14: error: malformed duration '2 secs' in advance; write a number and a unit, like 500ms, 2s, 1m or 1h",
            "lesson.yaml:9:21: error: unknown error code 'changeTokenExpird'; did you mean 'changeTokenExpired'?",
        ])
    }

    @Test func aZoneNoStepCreatesIsAWarningNotAnError() throws {
        let scenario = try ScenarioParser.parse(yaml: prelude + """
              - save: {device: iPhone, zone: Notse, record: a}
              - fetch: {device: Mac, zone: Missing}
              - expect: {error: zoneNotFound}
              - fetch: {device: Mac, zone: _defaultZone}
            """, fileName: "s.yaml")
        #expect(scenario.warnings.map(\.description) == [
            "s.yaml:8:34: warning: zone 'Notse' is never created in this scenario; did you mean 'Notes'?",
        ])
        #expect(scenario.steps.count == 5)
    }

    @Test func renderingQuotesTheLineAndPointsAtTheColumn() {
        let yaml = "devices: [{name: Mac, user: alice}]\nsteps:\n  - fetch: {device: Mac, resultLimit: 1}\n"
        do {
            _ = try ScenarioParser.parse(yaml: yaml, fileName: "lesson.yaml")
            Issue.record("parsed a file with an unknown key")
        } catch {
            #expect(error.rendered() == """
                lesson.yaml:3:26: error: unknown key 'resultLimit' in fetch; did you mean 'resultsLimit'?
                  - fetch: {device: Mac, resultLimit: 1}
                                         ^
                1 error
                """)
            #expect(error.errors.count == 1)
            #expect(error.warnings.isEmpty)
            #expect(error.localizedDescription == error.description)
        }
    }
}
