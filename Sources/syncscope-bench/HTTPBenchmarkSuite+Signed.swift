import Foundation
import SyncCore
import SyncNetwork
import SyncWire

/// What a request signed with a server-to-server key costs beside the same
/// request with a web auth token: `records/lookup` of one public record,
/// sent by the lean keep-alive client, the signed one verified by the server
/// each time (the body's SHA-256 and an ECDSA P-256 verification); best of
/// three rounds each, interleaved, in the same run against the same server.
extension HTTPBenchmarkSuite {
    struct SignedFigures {
        var unsigned: LeanHTTPLoad.Report
        var signed: LeanHTTPLoad.Report
    }

    func measureSignedRequests(_ signer: ServerKeySigner) async throws -> SignedFigures {
        let publicZone = RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: RecordZoneID.publicOwnerName)
        let tool = HTTPCloudService(
            baseURL: baseURL, webAuthToken: "", userRecordName: "_" + signer.keyID, container: container, serverKeySigner: signer)
        let notice = Record(recordID: RecordID(recordName: "bench-notice", zoneID: publicZone), recordType: "Notice", fields: ["text": .string("Signed")])
        for result in try await tool.modifyRecords(in: .public, zoneID: publicZone, operations: [.save(notice)]) { _ = try result.get() }

        let path = "/database/1/\(container)/development/public/records/lookup"
        let body = Array(#"{"records":[{"recordName":"bench-notice"}]}"#.utf8)
        let unsignedBytes = LeanHTTPLoad.requestBytes(path: path, token: webAuthToken, body: body)
        // One signature for the whole run: the date stays within the server's window for minutes.
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        for header in signer.headers(body: Data(body), subpath: path) { head += "\(header.name): \(header.value)\r\n" }
        let signedBytes = Array((head + "\r\n").utf8) + body
        let requests = max(clients * 20, saves / 10)
        func load(_ bytes: [UInt8]) async throws -> LeanHTTPLoad.Report {
            let report = try await LeanHTTPLoad(
                port: serverPort, connections: clients, requests: requests, timeLimit: min(timeLimit, 10), request: { _, _ in bytes }
            ).run()
            if report.failures > 0 { throw BenchmarkError("\(report.failures) records/lookup requests failed: \(report.firstFailure ?? "")") }
            return report
        }
        // Best of three each, in rounds that alternate which goes first, so
        // that a busy moment of the machine does not fall on one side only.
        var unsigned: LeanHTTPLoad.Report?
        var signed: LeanHTTPLoad.Report?
        for round in 0..<3 {
            for isSigned in round.isMultiple(of: 2) ? [false, true] : [true, false] {
                let report = try await load(isSigned ? signedBytes : unsignedBytes)
                if isSigned {
                    if report.perSecond > signed?.perSecond ?? 0 { signed = report }
                } else if report.perSecond > unsigned?.perSecond ?? 0 {
                    unsigned = report
                }
            }
        }
        guard let unsigned, let signed else { throw BenchmarkError("the signed-request rounds measured nothing") }
        return SignedFigures(unsigned: unsigned, signed: signed)
    }

    func signedFigures(_ figures: SignedFigures) -> [BenchmarkFigure] {
        [
            BenchmarkFigure(
                key: "http_unsigned_lookups_per_s", label: "public records/lookup, web auth token", value: figures.unsigned.perSecond, unit: "req/s", goal: nil),
            BenchmarkFigure(
                key: "http_signed_lookups_per_s", label: "  the same, signed with a server-to-server key", value: figures.signed.perSecond, unit: "req/s", goal: nil),
            BenchmarkFigure(
                key: "http_signed_p50_extra_ms", label: "  signed p50 − token p50", value: figures.signed.percentile(0.5) - figures.unsigned.percentile(0.5),
                unit: "ms", goal: nil),
            BenchmarkFigure(
                key: "http_signed_request_ratio", label: "  signed / token requests per second", value: figures.signed.perSecond / figures.unsigned.perSecond,
                unit: "×", goal: nil),
        ]
    }
}
