import Foundation
import GRDB
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP
import SyncCore
import SyncServer
import Testing

/// The journal's row format (``JournaledCallBody``): `records/modify` rows keep
/// the prepared plan in binary form, every other call its JSON; rows written
/// as JSON before the binary form existed still replay, mixed with binary ones,
/// to the same state; a binary row that does not read back stops the start
/// with a sentence.
@Suite struct JournalRowFormatTests {
    let container = "iCloud.com.example.JournalRows"
    let manager = FileManager.default

    func options(_ directory: URL) -> ServeOptions {
        ServeOptions(dataDirectory: directory, coalescingWindow: 0, seed: 9, quiet: true, checkpointEvery: 20_000)
    }

    func folder() -> URL { manager.temporaryDirectory.appendingPathComponent("journal-rows-\(UUID().uuidString)") }

    func call(_ operation: String, _ json: String, device: String? = nil) -> APICall {
        APICall(
            method: "POST", path: "/database/1/\(container)/development/private/\(operation)", body: Data(json.utf8), user: "alice", deviceID: device)
    }

    /// Saves that use every kind of field value, removed fields, a client token and desired keys.
    func saves() -> [String] {
        (0..<12).map { i in
            let fields = [
                #""title":{"value":"Note \#(i) — ünïcødé \"quoted\""}"#,
                #""n":{"value":\#(i),"type":"INT64"}"#,
                #""ratio":{"value":\#(Double(i) + 0.25),"type":"DOUBLE"}"#,
                #""when":{"value":\#(1_700_000_000_000 + i),"type":"TIMESTAMP"}"#,
                #""blob":{"value":"AAEC\#(i % 10)w==","type":"BYTES"}"#,
                #""secret":{"value":"c2VjcmV0","type":"ENCRYPTED_BYTES"}"#,
                #""where":{"value":{"latitude":1.5,"longitude":-2.25},"type":"LOCATION"}"#,
                #""parent":{"value":{"recordName":"r\#((i + 1) % 12)","action":"NONE"},"type":"REFERENCE"}"#,
                #""tags":{"value":["a","b\#(i)"],"type":"STRING_LIST"}"#,
                #""numbers":{"value":[],"type":"INT64_LIST"}"#,
                #""gone":{"value":\#(i)}"#,
            ].joined(separator: ",")
            var operations = [#"{"operationType":"forceReplace","record":{"recordName":"r\#(i)","recordType":"Note","fields":{\#(fields)}}}"#]
            if i > 0 {
                operations.append(#"{"operationType":"forceUpdate","record":{"recordName":"r\#(i - 1)","recordType":"Note","fields":{"n":{"value":\#(i)},"gone":{"value":null}}}}"#)
            }
            if i > 1 { operations.append(#"{"operationType":"forceDelete","record":{"recordName":"r\#(i - 2)"}}"#) }
            let token = i % 4 == 0 ? #","clientChangeTokenData":"dG9rZW4\#(i % 10)""# : ""
            return #"{"zoneID":{"zoneName":"Notes"},"atomic":\#(i % 2 == 0),"desiredKeys":["n"]\#(token),"operations":[\#(operations.joined(separator: ","))]}"#
        }
    }

    func export(_ host: ServerHost) async -> Data {
        let answer = await host.perform(APICall(method: "POST", path: "/admin/1/\(container)/development/export", body: Data("{}".utf8), isServerAdmin: true))
        #expect(answer.status == 200)
        return answer.body
    }

    struct StoredRow {
        var seq: Int64
        var time: Int64
        var path: String
        var body: Data
    }

    func rows(_ directory: URL) throws -> [StoredRow] {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent(Journal.fileName).path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT seq, time, path, body FROM journal ORDER BY seq").map {
                StoredRow(seq: $0["seq"], time: $0["time"], path: $0["path"], body: $0["body"])
            }
        }
    }

    /// Rewrites one row's body, with the checksum that body gets (as if an older server had written it so).
    func rewrite(_ directory: URL, seq: Int64, body: Data) throws {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent(Journal.fileName).path)
        defer { try? queue.close() }
        try queue.write { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM journal WHERE seq = ?", arguments: [seq]))
            let call = APICall(
                method: row["method"], path: row["path"], body: body, user: row["user"], deviceID: row["device"],
                isServerAdmin: (row["admin"] as Int64) == 1)
            try db.execute(
                sql: "UPDATE journal SET body = ?, checksum = ? WHERE seq = ?",
                arguments: [body, Journal.checksum(time: row["time"], call), seq])
        }
    }

    /// A folder where alice made the zone and saved `saves()` (no clean stop); its exported state.
    func fill(_ directory: URL) async throws -> Data {
        let host = try await ServerHost.start(options: options(directory))
        #expect(await host.perform(call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)).status == 200)
        for (i, body) in saves().enumerated() {
            let answer = await host.perform(call("records/modify", body, device: i % 2 == 0 ? "phone" : nil))
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        }
        return await export(host)
    }

    @Test func recordsModifyRowsAreBinaryAndOtherRowsJSON() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        _ = try await fill(directory)
        let stored = try rows(directory)
        let modify = stored.filter { $0.path.hasSuffix("/records/modify") }
        #expect(modify.count == saves().count)
        for row in modify { #expect(JournaledCallBody.isBinary(row.body)) }
        for row in stored where !row.path.hasSuffix("/records/modify") {
            #expect(!JournaledCallBody.isBinary(row.body))
            #expect(row.body.first == UInt8(ascii: "{"))
        }
    }

    @Test func theBinaryPlanReadsBackAsThePlanTheJSONMakes() throws {
        for (i, body) in saves().enumerated() {
            let json = call("records/modify", body, device: i % 2 == 0 ? "phone" : nil)
            guard case .modifyRecords(let db, let plan) = APIDispatcher.prepare(json).route else {
                Issue.record("save \(i) was not prepared as records/modify")
                continue
            }
            let row = JournaledCallBody.encode(APIDispatcher.prepare(json))
            #expect(JournaledCallBody.isBinary(row.body))
            #expect(JournaledCallBody.encode(APIDispatcher.prepare(json)).body == row.body, "the same call gives the same bytes")
            guard case .modifyRecords(let decodedDB, let decoded) = try JournaledCallBody.decode(row).route else {
                Issue.record("row \(i) was not decoded as records/modify")
                continue
            }
            #expect(decodedDB == db)
            #expect(decoded.caller == plan.caller)
            #expect(decoded.zoneID == plan.zoneID)
            #expect(decoded.operations == plan.operations)
            #expect(decoded.atomic == plan.atomic)
            #expect(decoded.clientToken == plan.clientToken)
            #expect(decoded.desiredKeys == plan.desiredKeys)
        }
    }

    @Test func aJournalOfJSONAndBinaryRowsMixedReplaysToTheSameState() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        let state = try await fill(directory)
        // Every other records/modify row as an older server wrote it: the request's JSON.
        let modify = try rows(directory).filter { $0.path.hasSuffix("/records/modify") }
        let bodies = saves()
        for (index, row) in modify.enumerated() where index % 2 == 0 {
            try rewrite(directory, seq: row.seq, body: Data(bodies[index].utf8))
        }
        let mixed = try rows(directory).filter { $0.path.hasSuffix("/records/modify") }
        #expect(mixed.filter { JournaledCallBody.isBinary($0.body) }.count == modify.count / 2)

        let host = try await ServerHost.start(options: options(directory))
        #expect(host.startupReport.contains("replayed"), "\(host.startupReport)")
        #expect(await export(host) == state)
    }

    @Test func aBinaryRowThatDoesNotReadBackStopsTheStartWithASentence() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        _ = try await fill(directory)
        let last = try #require(try rows(directory).last)
        #expect(JournaledCallBody.isBinary(last.body))
        try rewrite(directory, seq: last.seq, body: last.body.prefix(last.body.count - 3))
        do {
            _ = try await ServerHost.start(options: options(directory))
            Issue.record("a truncated binary row was replayed")
        } catch {
            let sentence = "\(error)"
            #expect(sentence.contains("journal row cannot be read"), "\(sentence)")
        }
        var future = last.body
        future[JournaledCallBody.magic.count + 1] = 7
        try rewrite(directory, seq: last.seq, body: future)
        do {
            _ = try await ServerHost.start(options: options(directory))
            Issue.record("a row of an unknown version was replayed")
        } catch {
            #expect("\(error)".contains("version 7"), "\(error)")
        }
    }
}
