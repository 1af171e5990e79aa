import Crypto
import Foundation
import SyncCore
import SyncNetwork
import SyncTestSupport
import SyncWire
@testable import SyncServerHost
@testable import SyncServerHTTP
import Testing

/// Server-to-server keys, signed in the test with swift-crypto as a back-end
/// tool signs them: `date:base64(sha256(body)):subpath`, ECDSA P-256.
@Suite struct ServerKeyTests {
    static let container = "iCloud.com.example.Keys"
    static func db(_ operation: String, scope: String = "public") -> String { "/database/1/\(container)/development/\(scope)/\(operation)" }
    static let save = #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"news-1","recordType":"News","fields":{"title":{"value":"Hi"}}}}]}"#

    let key = P256.Signing.PrivateKey()

    func server(_ keys: [String: String]) async throws -> LiveServer {
        var options = ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 21)
        options.serverKeys = keys
        return try await LiveServer(options)
    }

    /// A request signed with `key` as `keyID`, its signature over `signedBody` (the body sent, unless told).
    func signed(
        _ path: String, body: String, keyID: String, key: P256.Signing.PrivateKey, date: Date = Date(), signedBody: String? = nil,
        contentType: String = "application/json"
    ) -> Data {
        let signer = ServerKeySigner(keyID: keyID, privateKey: key)
        let headers = signer.headers(body: Data((signedBody ?? body).utf8), subpath: path, date: date).map { ($0.name, $0.value) }
        return RawHTTP.request("POST", path, headers: [("Content-Type", contentType)] + headers, body: Data(body.utf8))
    }

    @Test func aSignedRequestReachesThePublicDatabaseAsTheKeysUser() async throws {
        let server = try await server(["k1": key.publicKey.pemRepresentation])
        defer { server.stop() }
        let answer = try await server.raw.exchange(signed(Self.db("records/modify"), body: Self.save, keyID: "k1", key: key))
        #expect(answer.status == 200, "\(answer.text)")
        let record = try #require((answer.json["records"] as? [[String: Any]])?.first)
        #expect((record["created"] as? [String: Any])?["userRecordName"] as? String == "_k1")
        // Any content type is read as JSON: a signature is a credential.
        let lookup = #"{"records":[{"recordName":"news-1"}]}"#
        let looked = try await server.raw.exchange(signed(Self.db("records/lookup"), body: lookup, keyID: "k1", key: key, contentType: "text/plain"))
        #expect(looked.status == 200 && looked.text.contains("Hi"), "\(looked.text)")
        // The date may carry fractional seconds; any within the window is taken.
        let early = try await server.raw.exchange(signed(Self.db("records/lookup"), body: lookup, keyID: "k1", key: key, date: Date() - 200))
        #expect(early.status == 200, "\(early.text)")
    }

    @Test func eachWrongPartIsRefusedSayingWhich() async throws {
        let server = try await server(["k1": key.publicKey.pemRepresentation])
        defer { server.stop() }
        let path = Self.db("records/modify")
        // A key the server does not have.
        let unknown = try await server.raw.exchange(signed(path, body: Self.save, keyID: "k9", key: key))
        #expect(unknown.status == 401 && unknown.json["serverErrorCode"] as? String == "AUTHENTICATION_FAILED")
        #expect(unknown.reason.contains("no server-to-server key 'k9'"), "\(unknown.text)")
        // The right key ID, another private key.
        let forged = try await server.raw.exchange(signed(path, body: Self.save, keyID: "k1", key: P256.Signing.PrivateKey()))
        #expect(forged.status == 401 && forged.reason.contains("signature"), "\(forged.text)")
        // A body other than the one signed.
        let swapped = try await server.raw.exchange(signed(path, body: Self.save, keyID: "k1", key: key, signedBody: "{}"))
        #expect(swapped.status == 401 && swapped.reason.contains("signature"), "\(swapped.text)")
        // A path other than the one signed.
        let signer = ServerKeySigner(keyID: "k1", privateKey: key)
        let otherPath = signer.headers(body: Data(Self.save.utf8), subpath: Self.db("records/query")).map { ($0.name, $0.value) }
        let moved = try await server.raw.exchange(RawHTTP.request("POST", path, headers: [("Content-Type", "application/json")] + otherPath, body: Data(Self.save.utf8)))
        #expect(moved.status == 401, "\(moved.text)")
        // A stale date, and one from the future.
        let stale = try await server.raw.exchange(signed(path, body: Self.save, keyID: "k1", key: key, date: Date() - 3600))
        #expect(stale.status == 401 && stale.reason.contains("behind") && stale.reason.contains("300 s"), "\(stale.text)")
        let future = try await server.raw.exchange(signed(path, body: Self.save, keyID: "k1", key: key, date: Date() + 3600))
        #expect(future.status == 401 && future.reason.contains("ahead"), "\(future.text)")
        // A good signature on a private database path: the public database only.
        let privatePath = Self.db("records/modify", scope: "private")
        let refused = try await server.raw.exchange(signed(privatePath, body: Self.save, keyID: "k1", key: key))
        #expect(refused.status == 403 && refused.json["serverErrorCode"] as? String == "ACCESS_DENIED", "\(refused.text)")
        #expect(refused.reason.contains("public database only"))
        let tokens = try await server.raw.exchange(signed("/database/1/\(Self.container)/development/tokens/create", body: "{}", keyID: "k1", key: key))
        #expect(tokens.status == 403, "\(tokens.text)")
        // A header missing.
        var partial = signer.headers(body: Data(Self.save.utf8), subpath: path).map { ($0.name, $0.value) }
        partial.removeLast()
        let missing = try await server.raw.exchange(RawHTTP.request("POST", path, headers: [("Content-Type", "application/json")] + partial, body: Data(Self.save.utf8)))
        #expect(missing.status == 401 && missing.reason.contains(WireRequestSignature.signatureHeader), "\(missing.text)")
        // Nothing was saved by any of them.
        let lookup = #"{"records":[{"recordName":"news-1"}]}"#
        let none = try await server.raw.exchange(RawHTTP.request("POST", Self.db("records/lookup"), headers: [("Content-Type", "application/json")], body: Data(lookup.utf8)))
        #expect(none.text.contains("NOT_FOUND"), "\(none.text)")
    }

    @Test func theAdminAddsAKeyAndTheClientSignsWithIt() async throws {
        let server = try await server([:])
        defer { server.stop() }
        let add = #"{"keyID":"tool","publicKey":"\#(key.publicKey.pemRepresentation.replacingOccurrences(of: "\n", with: "\\n"))"}"#
        let path = "/admin/1/\(Self.container)/development/serverKeys"
        let byUser = try await server.raw.exchange(
            RawHTTP.request("POST", path, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(server.aliceToken)")], body: Data(add.utf8)))
        #expect(byUser.status == 403, "\(byUser.text)")
        let notAKey = try await server.raw.exchange(
            RawHTTP.request(
                "POST", path, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(server.host.adminToken)")],
                body: Data(#"{"keyID":"tool","publicKey":"nope"}"#.utf8)))
        #expect(notAKey.status == 400 && notAKey.reason.contains("PEM"), "\(notAKey.text)")
        let added = try await server.raw.exchange(
            RawHTTP.request("POST", path, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(server.host.adminToken)")], body: Data(add.utf8)))
        #expect(added.status == 200 && added.json["userRecordName"] as? String == "_tool", "\(added.text)")
        // syncscope client's way: HTTPCloudService with the signer.
        let base = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
        let tool = HTTPCloudService(
            baseURL: base, webAuthToken: "", userRecordName: "_tool", container: Self.container, serverKeySigner: ServerKeySigner(keyID: "tool", privateKey: key))
        let zone = RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: RecordZoneID.publicOwnerName)
        let record = Record(recordID: RecordID(recordName: "notice", zoneID: zone), recordType: "Notice", fields: ["text": .string("Maintenance")])
        let saved = try await tool.modifyRecords(in: .public, zoneID: zone, operations: [.save(record)], atomic: false, clientChangeTokenData: nil)
        guard case .saved(let stored)? = try saved.first?.get() else { Issue.record("not saved: \(saved)"); return }
        #expect(stored.created?.userRecordName == "_tool")
        let read = try await tool.lookupRecords(in: .public, zoneID: zone, recordNames: ["notice"], desiredKeys: nil)
        #expect(try read.first?.get().fields["text"] == .string("Maintenance"))
        // The private database stays closed to it.
        await #expect(throws: CloudError.self) { _ = try await tool.listRecordZones(in: .private) }
    }
}
