import Foundation
import HTTPTypes
import SyncCore
import SyncWire
import SyncTestSupport
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The request front's fast paths (bytes first, the general Unicode way only
/// for what is not ASCII) give the same answers as the general way they stand
/// in for, on both sides of the line between them.
@Suite struct RequestFrontTests {
    // MARK: Headers in one pass

    static let deviceName = HTTPField.Name("X-SyncScope-Device")!

    @Test func headersReadInOnePassMatchTheLookupsByNameInAnyCaseAndRepeated() throws {
        let cases: [[(String, String)]] = [
            [],
            [("Content-Type", "application/json"), ("Content-Length", "12")],
            [("content-type", "text/plain;charset=UTF-8"), ("AUTHORIZATION", "bearer abc"), ("x-syncscope-device", "phone")],
            [("X-SYNCSCOPE-DEVICE", "a"), ("X-SyncScope-Device", "b"), ("Transfer-Encoding", "chunked")],
            [("Content-Type", "application/json"), ("Accept", "*/*"), ("Content-Type", "application/json")],
            [("Authorization", "Bearer one"), ("Host", "x"), ("authorization", "Bearer two"), ("Content-Length", " 3 ")],
            [("X-SyncScope-Devices", "not it"), ("Content-Types", "nor this"), ("Cookie", "a=1"), ("Cookie", "b=2")],
        ]
        for fields in cases {
            var headers = HTTPFields()
            for (name, value) in fields { headers.append(HTTPField(name: try #require(HTTPField.Name(name)), value: value)) }
            #expect(RequestHeaders(headers) == RequestHeaders(lookingUpEachIn: headers), "\(fields)")
        }
        var headers = HTTPFields()
        headers.append(HTTPField(name: try #require(HTTPField.Name("content-TYPE")), value: "a"))
        headers.append(HTTPField(name: .contentType, value: "b"))
        headers.append(HTTPField(name: try #require(HTTPField.Name("x-syncscope-device")), value: "d"))
        #expect(RequestHeaders(headers) == RequestHeaders(device: "d", contentType: "a, b"))
    }

    // MARK: Authorization

    /// What `authenticate` did before the byte-wise reading: split into characters.
    static func bearerTokenByCharacters(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, Authentication.isASCIICaseInsensitive(parts[0], "bearer") else { return nil }
        return Authentication.trimmingWhitespace(parts[1])
    }

    @Test func theBearerTokenReadByBytesIsTheOneReadByCharacters() {
        let headers = [
            "Bearer abc", "bearer abc", "BEARER abc", "BeArEr abc", "Bearer", "Bearer ", "Bearer  abc", "  Bearer abc", "Bearer abc ",
            "Bearer abc def", "Bearer\tabc", "Basic abc", "Bearerx abc", "", " ", "   ", "Bearer   ", "Bearer \t abc \t", "abc",
            // Not ASCII: the general way, by characters (a space followed by a combining mark is no space).
            "Bearer t\u{00E9}st", "Bearer \u{301}abc", "B\u{00E9}arer abc", "Bearer\u{00A0}abc", "Bearer abc\u{2003}", "\u{301} Bearer abc",
        ]
        for header in headers {
            #expect(Authentication.bearerToken(header) == Self.bearerTokenByCharacters(header), "\(header.debugDescription)")
        }
        #expect(Authentication.bearerToken("bearer  tok ") == "tok")
        #expect(Authentication.bearerToken("Bearer \u{301}abc") == nil)
        #expect(Authentication.asciiBearerToken("Bearer t\u{00E9}st") == .notASCII)
        #expect(Authentication.asciiBearerToken("bEARER \t abc\t ") == .token("abc"))
        #expect(Authentication.asciiBearerToken("Basic abc") == .refused)
        #expect(Authentication.asciiBearerToken("Bearer   ") == .token(""))
    }

    // MARK: Paths

    @Test func aPlainPathIsSplitAsTheDecodingWayWouldAndEveryOtherPathGoesThatWay() throws {
        let plain = [
            "/database/1/iCloud.com.example.App/development/private/records/modify", "/a", "/internal/addUser", "/.../x", "/a./.b/a..b",
            "/device/1/C/development/webcourier/abc-DEF_123",
        ]
        for path in plain {
            let segments = try #require(CanonicalPath.plainSegments(path), "\(path)")
            let decoded = try CanonicalPath.decoding(path)
            #expect(segments == decoded.parts && decoded.path == path, "\(path)")
            #expect(try CanonicalPath.parse(path).parts == segments)
        }
        let notPlain = [
            "/", "", "a/b", "//a", "/a/", "/a//b", "/./a", "/a/..", "/a/%41", "/a\\b", "/caf\u{00E9}/x", "/%2Finternal", "/x/\u{301}y",
        ]
        for path in notPlain {
            #expect(CanonicalPath.plainSegments(path) == nil, "\(path)")
            // The general way answers these as it always did: decoded, or refused with a reason.
            let general = Result { () throws(CloudError) in try CanonicalPath.decoding(path) }
            let front = Result { () throws(CloudError) in try CanonicalPath.parse(path) }
            switch (general, front) {
            case (.success(let a), .success(let b)): #expect(a.parts == b.parts && a.path == b.path, "\(path)")
            case (.failure(let a), .failure(let b)): #expect(a.reason == b.reason, "\(path)")
            default: Issue.record("\(path): \(general) vs \(front)")
            }
        }
        #expect(try CanonicalPath.parse("/a/%41b").path == "/a/Ab")
        #expect(try CanonicalPath.parse("/caf\u{00E9}/x").parts == ["caf\u{00E9}", "x"])
    }

    @Test func pathSegmentsAreTheCharacterSplitForASCIIAndOtherPaths() {
        let paths = [
            "/database/1/C/development/private/records/modify", "", "/", "//", "a", "/a//b/", "///x///y", "/caf\u{00E9}/x",
            "/x/\u{301}y", "/x\u{301}/y", "/\u{301}/a",
        ]
        for path in paths {
            #expect(TextChecks.pathSegments(path) == path.split(separator: "/").map(String.init), "\(path.debugDescription)")
        }
    }

    // MARK: Control characters

    @Test func controlCharactersAreFoundByBytesInASCIIAndByCategoryOtherwise() {
        func byCategory(_ text: String) -> Bool { text.unicodeScalars.contains { $0.properties.generalCategory == .control } }
        var texts = ["", "iCloud.com.example.App", "a b", "tab\there", "del\u{7F}", "nul\u{0}x", "~", "caf\u{00E9}", "\u{0085}", "x\u{009F}",
                     "\u{00A0}", "\u{200B}", "emoji \u{1F600}", "caf\u{00E9}\u{1}", "\u{1}caf\u{00E9}", "e\u{301}"]
        for scalar in 0...0xFF { texts.append("a" + String(Character(Unicode.Scalar(UInt8(scalar)))) + "b") }
        for text in texts {
            #expect(TextChecks.containsControlCharacter(text) == byCategory(text), "\(text.debugDescription)")
        }
        #expect(TextChecks.containsControlCharacter("x\u{0085}"))
        #expect(!TextChecks.containsControlCharacter("caf\u{00E9}"))
        #expect(throws: CloudError.self) { try APIDispatcher.parseContainer("iCloud.\u{0085}App") }
        #expect(throws: CloudError.self) { try DeviceOwnership.checkFormat("phone\u{7F}") }
        #expect(throws: Never.self) { try DeviceOwnership.checkFormat("t\u{00E9}l\u{00E9}phone") }
    }

    // MARK: Records from the wire

    @Test func aWireRecordsFieldsComeOutSortedWithoutTheNullOnes() throws {
        let wire = WireRecord(
            recordName: "r", recordType: "Note",
            fields: [
                "zeta": WireField(value: .string("z")), "alpha": WireField(value: .integer(1)), "gone": WireField(value: .null),
                "mid": WireField(value: .double(1.5)), "also-gone": WireField(value: nil), "Beta": WireField(value: .string("B")),
            ])
        let record = try Record(wire, zoneID: RecordZoneID(zoneName: "Z", ownerName: "u"))
        #expect(record.fields.names == ["Beta", "alpha", "mid", "zeta"])
        #expect(record.fields["alpha"] == .int64(1) && record.fields["mid"] == .double(1.5))
        #expect(wire.fieldNamesWithoutValue == ["also-gone", "gone"])
        #expect(WireRecord(recordName: "r").fieldNamesWithoutValue == [])
        // With several bad fields, the error names the first by name.
        let bad = WireRecord(recordName: "r", recordType: "Note", fields: ["b": WireField(value: .bool(true)), "a": WireField(value: .bool(false))])
        let error = try #require(throws: CloudError.self) { try Record(bad, zoneID: RecordZoneID(zoneName: "Z", ownerName: "u")) }
        #expect(error.reason.hasPrefix("Field 'a' of record 'r':"), "\(error.reason)")
    }

    // MARK: Over HTTP

    static let container = "iCloud.com.example.Front"

    static func save(_ name: String) -> Data {
        Data(#"{"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"Note","fields":{"title":{"value":"t"}}}}]}"#.utf8)
    }

    @Test func headersInAnyCaseAndTheTokenInTheQueryOrTheHeaderGiveTheSameAnswers() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, seed: 3))
        defer { server.stop() }
        let path = "/database/1/\(Self.container)/development/private/records/modify"
        func exchange(_ path: String, _ headers: [(String, String)], body: Data) async throws -> RawHTTP.Answer {
            try await server.raw.exchange(RawHTTP.request("POST", path, headers: headers, body: body))
        }
        let token = server.aliceToken
        let spellings: [(String, [(String, String)])] = [
            (path, [("Content-Type", "application/json"), ("Authorization", "Bearer \(token)")]),
            (path, [("content-type", "application/json"), ("authorization", "bearer \(token)")]),
            (path, [("CONTENT-TYPE", "text/plain;charset=UTF-8"), ("AUTHORIZATION", "BEARER  \(token) "), ("x-syncscope-device", "phone-1")]),
            (path + "?ckWebAuthToken=\(token)", [("Content-Type", "application/json; charset=utf-8")]),
            (path + "?ckWebAuthToken=\(token)", [("cOnTeNt-TyPe", "Application/JSON"), ("Authorization", "Basic ignored-when-the-query-has-one")]),
        ]
        for (index, (path, headers)) in spellings.enumerated() {
            let answer = try await exchange(path, headers, body: Self.save("n\(index)"))
            #expect(answer.status == 200, "\(headers): \(answer.text)")
            let records = answer.json["records"] as? [[String: Any]]
            #expect(records?.first?["recordName"] as? String == "n\(index)", "\(answer.text)")
        }
        // The same refusals, whatever the spelling.
        let basic = try await exchange(path, [("content-type", "application/json"), ("AUTHORIZATION", "Basic \(token)")], body: Self.save("x"))
        #expect(basic.status == 401 && basic.reason == "The Authorization header must be 'Bearer TOKEN'.", "\(basic.text)")
        let bareScheme = try await exchange(path, [("Content-Type", "application/json"), ("Authorization", "Bearer")], body: Self.save("x"))
        #expect(bareScheme.status == 401 && bareScheme.reason == "The Authorization header must be 'Bearer TOKEN'.", "\(bareScheme.text)")
        let unknown = try await exchange(path, [("Content-Type", "application/json"), ("authorization", "bearer nobody")], body: Self.save("x"))
        let unknownInQuery = try await exchange(path + "?ckWebAuthToken=nobody", [("Content-Type", "application/json")], body: Self.save("x"))
        #expect(unknown.status == 401 && unknown.reason == unknownInQuery.reason && unknown.reason.contains("no user's web auth token"))
        // Without credentials only application/json is taken, whatever the header's spelling.
        let html = try await exchange(path, [("CONTENT-TYPE", "text/html")], body: Self.save("x"))
        #expect(html.status == 415 && html.reason.contains("'text/html'"), "\(html.text)")
        let twice = try await exchange(
            path, [("Content-Type", "application/json"), ("content-type", "application/json")], body: Self.save("x"))
        #expect(twice.status == 415 && twice.reason.contains("'application/json, application/json'"), "\(twice.text)")
        let longDevice = try await exchange(
            path, [("Content-Type", "application/json"), ("Authorization", "Bearer \(token)"), ("X-SYNCSCOPE-DEVICE", String(repeating: "d", count: 256))],
            body: Self.save("x"))
        #expect(longDevice.status == 400 && longDevice.reason.contains("X-SyncScope-Device must be 1 to 255 bytes"), "\(longDevice.text)")
        // None of the refused saves happened.
        let lookup = try await exchange(
            "/database/1/\(Self.container)/development/private/records/lookup", [("Content-Type", "application/json"), ("Authorization", "Bearer \(token)")],
            body: Data(#"{"records":[{"recordName":"x"}]}"#.utf8))
        let first = (lookup.json["records"] as? [[String: Any]])?.first
        #expect(first?["serverErrorCode"] as? String == "NOT_FOUND", "\(lookup.text)")
    }
}

extension RequestHeaders {
    /// What `HTTPFields`' subscript reads for these names, one lookup each: the slow way, to compare with.
    init(lookingUpEachIn fields: HTTPFields) {
        self.init(
            device: fields[APIResponder.deviceHeader], authorization: fields[.authorization], contentType: fields[.contentType],
            contentLength: fields[.contentLength], transferEncoding: fields[.transferEncoding])
    }
}
