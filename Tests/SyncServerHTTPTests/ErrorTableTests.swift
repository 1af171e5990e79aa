import Foundation
import NIOHTTP1
@testable import SyncServerHost
@testable import SyncServerHTTP
import SyncCore
import Testing

/// The API reference's error table lists every status the server can answer,
/// with the `serverErrorCode` it comes with.
@Suite struct ErrorTableTests {
    /// The rows of the table: (serverErrorCode, HTTP status).
    static func rows() throws -> Set<String> {
        let reference = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/SyncServerHTTP/SyncServerHTTP.docc/WebServicesAPI.md")
        let text = try String(contentsOf: reference, encoding: .utf8)
        let start = try #require(text.range(of: "| serverErrorCode | HTTP | when |"))
        var rows: Set<String> = []
        for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2) {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2 else { continue }
            rows.insert(cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")) + " " + cells[1])
        }
        return rows
    }

    @Test func everyStatusTheServerAnswersIsInTheTable() throws {
        let rows = try Self.rows()
        let statuses = rows.compactMap { Int($0.split(separator: " ").last ?? "") }
        // Every code the server answers with, at its status (networkFailure and partialFailure are the client's).
        for code in CloudError.Code.allCases where code != .networkFailure && code != .partialFailure {
            #expect(rows.contains("\(code.serverErrorCode) \(code.httpStatus)"), "\(code)")
        }
        // Every status a route declares, and those the HTTP layer answers on its own.
        let declared = Set(WebServicesRoute.table.flatMap(\.allErrorStatuses))
        let layer = [HTTPParserError.headerOverflow.status, HTTPParserError.invalidMethod.status, HTTPParserError.invalidURL.status, 408, 415]
        for status in declared.union(layer) {
            #expect(statuses.contains(status), "\(status) is not in the error table")
        }
    }
}
