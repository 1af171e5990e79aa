import Foundation
import SyncCore
import Testing
@testable import SyncScenario

/// What a lesson writes for a class (issue 27): `ask:` steps, and `code:`
/// and `note:` beside any step; and the code made from a step when the lesson
/// writes none.
@Suite("Teaching steps: ask, code, note")
struct TeachingStepTests {
    func steps(_ text: String) throws -> [Step] {
        try Array(ScenarioParser.parse(yaml: prelude + text, fileName: "steps.yaml").steps.dropFirst())
    }

    @Test func askTakesTheAnswerByNumberLetterOrText() throws {
        for answer in ["2", "B", "every record"] {
            let kind = try kind("  - ask: {question: What comes back?, choices: [nothing, every record], answer: \(answer), why: No token.}\n")
            #expect(kind == .ask(AskAction(question: "What comes back?", choices: ["nothing", "every record"], answer: 1, explanation: "No token.")))
        }
        #expect(stepProblems("  - ask: {question: Q, choices: [a, b], answer: 3}\n") == [
            "steps.yaml:8:49: error: the answer '3' is none of the 2 choices; give its number (1 to 2), its letter (A, B, …) or its text",
        ])
        #expect(stepProblems("  - ask: {question: Q, choices: [a], answer: 1}\n").first?.contains("ask needs at least two choices") == true)
    }

    @Test func codeAndNoteGoWithTheStepBesideThem() throws {
        let parsed = try steps("""
              - send: iPhone
                note: Ask the room first.
                code:
                  title: Saving with a policy
                  wrong: |
                    op.savePolicy = .allKeys
                  fixed: |
                    op.savePolicy = .ifServerRecordUnchanged

              - fetch: {device: Mac, zone: Notes}
                code: |
                  database.add(op)

            """)
        #expect(parsed.count == 2)
        #expect(parsed[0].note == "Ask the room first.")
        #expect(parsed[0].code == StepCode(title: "Saving with a policy", fixed: "op.savePolicy = .ifServerRecordUnchanged", wrong: "op.savePolicy = .allKeys"))
        #expect(parsed[0].clientCode == parsed[0].code)
        #expect(parsed[1].code == StepCode(title: "Swift", fixed: "database.add(op)"))
        #expect(parsed[1].note == nil)
        // Alone, they are no step.
        #expect(stepProblems("  - note: hello\n") == [
            "steps.yaml:8:5: error: code and note go with a step; write them under a step, for example '- fetch: …' then '  note: …'",
        ])
    }

    /// The code made from a step names CloudKit's own API.
    @Test func codeIsMadeFromTheStepWhereTheMappingIsMechanical() throws {
        let parsed = try steps("""
              - fetch: {device: Mac, zone: Notes, token: nil, resultsLimit: 2}
              - fetch: {device: Mac}
              - send: iPhone
              - send: {device: iPhone, mergeConflicts: false}
              - sync: Mac
              - say: nothing to run
              - expect: {cache: {device: Mac, zone: Notes, count: 0}}

            """)
        let zoneFetch = try #require(parsed[0].clientCode)
        #expect(zoneFetch.title == "CKFetchRecordZoneChangesOperation")
        #expect(zoneFetch.fixed.contains("config.previousServerChangeToken = nil"))
        #expect(zoneFetch.fixed.contains("config.resultsLimit = 2"))
        #expect(zoneFetch.fixed.contains("e.code == .changeTokenExpired"))
        #expect(zoneFetch.fixed.contains("container.privateCloudDatabase.add(op)"))
        #expect(try #require(parsed[1].clientCode).fixed.contains("CKFetchDatabaseChangesOperation(previousServerChangeToken: previous)"))
        let send = try #require(parsed[2].clientCode)
        #expect(send.fixed.contains("op.savePolicy = .ifServerRecordUnchanged"))
        #expect(send.fixed.contains("resend(merge(recordID, into: e.serverRecord!))"))
        #expect(try #require(parsed[3].clientCode).fixed.contains("keepPending(recordID)"))
        let sync = try #require(parsed[4].clientCode)
        #expect(sync.fixed.contains("case .stateUpdate(let update)"))
        #expect(sync.fixed.contains("case .fetchedRecordZoneChanges"))
        #expect(parsed[5].clientCode == nil)
        #expect(parsed[6].clientCode == nil)
    }

    /// A client mistake comes with the wrong code beside the fixed one.
    @Test func aMistakeStepShowsTheWrongCodeAndTheFix() throws {
        let code = StepKind.modifyRecords(ModifyRecordsAction(
            device: "iPhone", database: .private, zone: nil, perRequest: nil, records: [])).generatedCode
        #expect(code?.wrong?.contains("no result block") == true)
        #expect(code?.fixed.contains("case .zoneNotFound") == true)
    }
}
