import Foundation
import SyncCore
import SyncTestSupport
@testable import SyncServerHost
@testable import SyncServerSQLite
import SyncServerHTTP
import Testing

/// A seeded fuzz run: thousands of malformed requests (paths, methods,
/// headers, content types, bodies, encodings, numbers, nesting, query
/// values, chunked framing), each of which must get a 4xx whose reason a
/// person can read, with the server alive after every one.
@Suite(.serialized) struct MalformedRequestFuzzTests {
    static let container = "iCloud.com.example.Fuzz"
    static let requests = 2_400

    struct Generator {
        var random: SeededRandom
        init(state: UInt64) { random = SeededRandom(seed: state) }
        mutating func next() -> UInt64 { random.next() }
        mutating func int(_ range: Range<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        mutating func pick<T>(_ items: [T]) -> T { items[int(0..<items.count)] }
    }

    /// One malformed request: its bytes, and what kind of damage it carries.
    struct Case {
        var kind: String
        var bytes: Data
    }

    static func db(_ operation: String, scope: String = "private") -> String {
        "/database/1/\(container)/development/\(scope)/\(operation)"
    }

    static let validBodies: [(String, String)] = [
        (db("records/modify"), #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceReplace","record":{"recordName":"r1","recordType":"Note","fields":{"n":{"value":5}}}}]}"#),
        (db("changes/zone"), #"{"zones":[{"zoneID":{"zoneName":"Notes"},"resultsLimit":5}]}"#),
        (db("zones/modify"), #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Other"}}}]}"#),
        (db("records/lookup"), #"{"zoneID":{"zoneName":"Notes"},"records":[{"recordName":"r1"}]}"#),
        (db("subscriptions/modify"), #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"s","subscriptionType":"database"}}]}"#),
    ]

    static func makeCase(_ random: inout Generator, token: String) -> Case {
        let auth = [("Authorization", "Bearer \(token)")]
        let json = [("Content-Type", "application/json")]
        let (path, body) = random.pick(validBodies)
        switch random.int(0..<12) {
        case 0:
            // A path in another spelling.
            let mutations: [(String) -> String] = [
                { $0.replacingOccurrences(of: "/1/", with: "//1/") },
                { "/" + $0 },
                { $0 + "/" },
                { $0.replacingOccurrences(of: "/development/", with: "/./development/") },
                { $0.replacingOccurrences(of: "/development/", with: "/development/../development/") },
                { $0.replacingOccurrences(of: "/development/", with: "/%2e%2e/development/") },
                { $0.replacingOccurrences(of: "/development/", with: "%2Fdevelopment/") },
                { $0.replacingOccurrences(of: "/development/", with: "%2fdevelopment/") },
                { $0.replacingOccurrences(of: "/development/", with: "/devel%zzopment/") },
                { "//internal/addUser" + String($0.prefix(0)) },
                { "/%2Finternal/import" + String($0.prefix(0)) },
                { "/internal/import" + String($0.prefix(0)) },
                { $0.replacingOccurrences(of: "/private/", with: "/secret/") },
                { $0.replacingOccurrences(of: "/development/", with: "/staging/") },
                { $0.replacingOccurrences(of: "/database/1/", with: "/database/2/") },
                { $0 + "/extra" },
                { $0 + "z" },
            ]
            return Case(kind: "path", bytes: RawHTTP.request("POST", random.pick(mutations)(path), headers: auth + json, body: Data(body.utf8)))
        case 1:
            let method = random.pick(["HEAD", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND", "FOO"])
            return Case(kind: "method", bytes: RawHTTP.request(method, path, headers: auth + json, body: method == "HEAD" ? nil : Data(body.utf8)))
        case 2:
            let header = random.pick([
                ("Authorization", "Basic YWxpY2U6c2VjcmV0"), ("Authorization", "Bearer"), ("Authorization", "Bearer \(token)x"),
                ("Authorization", "Bearer " + String(repeating: "a", count: random.int(1..<300))), ("Authorization", "token \(token)"),
                ("X-SyncScope-Device", String(repeating: "d", count: 300 + random.int(0..<100))),
            ])
            return Case(kind: "header", bytes: RawHTTP.request("POST", path, headers: [header] + json, body: Data(body.utf8)))
        case 3:
            let type = random.pick([
                "text/html", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", "image/png",
                "application/jsonx", "text/plain", "",
            ])
            let headers: [(String, String)] = type.isEmpty ? [] : [("Content-Type", type)]
            // With credentials any type is read as JSON; without, only application/json: sent here without any.
            return Case(kind: "content-type", bytes: RawHTTP.request("POST", path, headers: headers, body: Data(body.utf8)))
        case 4:
            // A proper prefix of a JSON object is never JSON.
            let cut = random.int(1..<body.utf8.count)
            return Case(kind: "truncated body", bytes: RawHTTP.request("POST", path, headers: auth + json, body: Data(body.utf8.prefix(cut))))
        case 5:
            let number = random.pick([
                "18446744073709551616", "1e400", "-1e400", "9223372036854775808", "-9223372036854775809", "1.5", "\"five\"", "true",
                "[]", "{}", "1" + String(repeating: "0", count: 400),
            ])
            let text = #"{"zones":[{"zoneID":{"zoneName":"Notes"},"resultsLimit":\#(number)}]}"#
            return Case(kind: "number", bytes: RawHTTP.request("POST", db("changes/zone"), headers: auth + json, body: Data(text.utf8)))
        case 6:
            let depth = random.int(2..<3000)
            let text = #"{"zones":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
            return Case(kind: "nesting", bytes: RawHTTP.request("POST", db("changes/zone"), headers: auth + json, body: Data(text.utf8)))
        case 7:
            let value = random.pick(["123", "[]", "{}", "true", "-0.5"])
            let text = #"{"zoneID":{"zoneName":\#(value)},"operations":[{"operationType":"forceReplace","record":{"recordName":"r","recordType":"Note"}}]}"#
            return Case(kind: "type", bytes: RawHTTP.request("POST", db("records/modify"), headers: auth + json, body: Data(text.utf8)))
        case 8:
            // Bytes that are not UTF-8 inside a string, or no JSON at all.
            var data = Data(#"{"zones":[{"zoneID":{"zoneName":""#.utf8)
            data.append(contentsOf: (0..<random.int(1..<8)).map { _ in UInt8(0x80 + random.int(0..<64)) })
            data.append(Data(#""}}]}"#.utf8))
            if random.int(0..<2) == 0 { data = Data((0..<random.int(1..<64)).map { _ in UInt8(random.int(0..<256)) }) }
            if data.first == UInt8(ascii: "{") || data.first == UInt8(ascii: "[") || data.first == UInt8(ascii: " ") { data.insert(UInt8(ascii: "#"), at: 0) }
            return Case(kind: "encoding", bytes: RawHTTP.request("POST", db("changes/zone"), headers: auth + json, body: data))
        case 9:
            let operation = random.pick(["frobnicate", "", "CREATE", "update ", "Replace", "save"])
            let text = #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"\#(operation)","record":{"recordName":"r","recordType":"Note"}}]}"#
            return Case(kind: "operation", bytes: RawHTTP.request("POST", db("records/modify"), headers: auth + json, body: Data(text.utf8)))
        case 10:
            let query = random.pick([
                "?timeout=abc", "?timeout=-1", "?timeout=1e400", "?timeout=nan", "?lastNotificationID=" + String(repeating: "n", count: 300),
            ])
            let anonymous = random.int(0..<3) == 0
            let device = anonymous ? "somedevice" : "no-such-device"
            return Case(
                kind: "webcourier",
                bytes: RawHTTP.request("GET", "/device/1/\(container)/development/webcourier/\(device)" + (anonymous ? "?timeout=0" : query), headers: anonymous ? [] : auth))
        default:
            // Chunked framing that does not parse.
            let chunk = random.pick(["zz\r\n{}\r\n0\r\n\r\n", "5\r\n{\"a\"}\r\n0\r\n\r\n", "-1\r\n{}\r\n0\r\n\r\n", "2;\u{1}\r\n{}\r\n0\r\n\r\n", "3\r\n{}\n0\r\n\r\n"])
            var text = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            text += chunk
            return Case(kind: "chunked", bytes: Data(text.utf8))
        }
    }

    /// Words that mean a reason leaked the program's insides.
    static let insideWords = ["Swift.", "Dictionary<", "Array<", "Optional(", "DecodingError", "Error Domain", "NSCocoaErrorDomain", "HTTPParserError", "CodingKeys"]

    @Test func thousandsOfMalformedRequestsEachGetA4xxWithAReasonAndTheServerLives() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await LiveServer(ServeOptions(dataDirectory: directory, coalescingWindow: 0, seed: 5))
        defer { server.stop() }
        let token = server.aliceToken
        let raw = server.raw
        let zone = try await raw.exchange(RawHTTP.request(
            "POST", Self.db("zones/modify"), headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: Data(#"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#.utf8)))
        #expect(zone.status == 200)
        let usersBefore = server.host.users

        var random = Generator(state: 0x5EED_2026)
        var tried = 0
        var failures: [String] = []
        var kinds: [String: Int] = [:]
        for index in 0..<Self.requests {
            let request = Self.makeCase(&random, token: token)
            kinds[request.kind, default: 0] += 1
            tried += 1
            let answer: RawHTTP.Answer
            do {
                answer = try await raw.exchange(request.bytes)
            } catch {
                failures.append("#\(index) \(request.kind): no answer (\(error))")
                continue
            }
            let reason = answer.reason
            // A HEAD answer has no body by HTTP's rules: its headers announce the reason's length.
            let isHead = request.bytes.starts(with: Data("HEAD ".utf8))
            let hasReason = isHead ? Int(answer.headers["content-length"] ?? "0") ?? 0 > 0 && answer.headers["allow"] != nil : !reason.isEmpty
            if !(400..<500).contains(answer.status) || !hasReason || Self.insideWords.contains(where: reason.contains) {
                failures.append("#\(index) \(request.kind): \(answer.status) \(answer.text.prefix(300)) for \(String(decoding: request.bytes.prefix(300), as: UTF8.self))")
            }
        }
        #expect(tried >= 2_000)
        #expect(failures.isEmpty, "\(failures.count) of \(tried) failed; first: \(failures.prefix(5).joined(separator: "\n"))")
        #expect(kinds.count == 12, "\(kinds)")
        // Nothing got through: no user was added, the zone holds no record.
        #expect(server.host.users == usersBefore)
        let alive = try await raw.exchange(RawHTTP.request(
            "POST", Self.db("changes/zone"), headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: Data(#"{"zones":[{"zoneID":{"zoneName":"Notes"}}]}"#.utf8)))
        #expect(alive.status == 200, "\(alive.text)")
        #expect((alive.json["zones"] as? [[String: Any]])?.first?["records"] as? [Any] != nil)
        print("fuzz: \(tried) malformed requests, \(failures.count) without a 4xx and a reason; by kind: \(kinds.sorted { $0.key < $1.key })")
    }
}

/// Reasons that name the problem: numbers out of range, resultsLimit's rule.
@Suite struct RequestReasonTests {
    @Test func numbersOutOfRangeAndResultsLimitAreNamed() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, seed: 4))
        defer { server.stop() }
        func post(_ operation: String, _ body: String) async throws -> RawHTTP.Answer {
            try await server.raw.exchange(RawHTTP.request(
                "POST", MalformedRequestFuzzTests.db(operation),
                headers: [("Authorization", "Bearer \(server.aliceToken)"), ("Content-Type", "application/json")], body: Data(body.utf8)))
        }
        for number in ["18446744073709551616", "1e400", "-1e400"] {
            let answer = try await post("changes/database", #"{"resultsLimit":\#(number)}"#)
            #expect(answer.status == 400)
            #expect(answer.reason.contains("the number \(number) at 'resultsLimit' is out of range"), "\(answer.reason)")
        }
        let tooBigForAnInt = try await post("changes/database", #"{"resultsLimit":9223372036854775808}"#)
        #expect(
            tooBigForAnInt.status == 400 && tooBigForAnInt.reason.contains("the number 9223372036854775808 at 'resultsLimit' is out of range"),
            "\(tooBigForAnInt.reason)")
        // resultsLimit: 0 is the server's default, a negative number is refused with that rule.
        #expect(try await post("changes/database", #"{"resultsLimit":0}"#).status == 200)
        let negative = try await post("changes/database", #"{"resultsLimit":-1}"#)
        #expect(negative.status == 400 && negative.reason.contains("must be 0 (the server's default"), "\(negative.reason)")
        let nested = try await post("changes/zone", #"{"zones":"# + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "}")
        #expect(nested.status == 400 && !nested.reason.isEmpty)
        #expect(!nested.reason.contains("Swift") && !nested.reason.contains("Dictionary<"))
    }
}
