import Foundation
import SyncCore
import SyncWire

/// Network-mode figures measured beside their limit in the same run: the
/// server and ``CeilingServer`` get the same request bytes from the same
/// ``LeanHTTPLoad`` client, in alternating rounds, and the ratio is printed.
extension HTTPBenchmarkSuite {
    struct Comparison {
        var server: LeanHTTPLoad.Report
        var ceiling: LeanHTTPLoad.Report
        /// The median of the rounds' ratios, each round's server run against
        /// the ceiling run right beside it (see ``alternate(_:ceilingPort:)``).
        var ratio: Double
    }

    static let rounds = 5

    /// Seconds one run of a comparison lasts at most: five rounds of two runs
    /// take about as long as three rounds of ten-second runs did.
    var comparisonRunLimit: Double { min(timeLimit, 6) }

    var serverPort: Int { baseURL.port ?? 80 }

    private func databasePath(_ operation: String) -> String {
        "/database/1/\(container)/development/private/\(operation)"
    }

    /// Runs `load` against the server and the ceiling in alternating rounds,
    /// which of the two goes first alternating too. The ratio is the median
    /// of each round's server/ceiling ratio: two runs side by side share the
    /// machine's load of that moment (on a shared machine it drifts within
    /// seconds), so the ratio of neighbours is steadier than a ratio of medians.
    /// The throughputs and latencies shown are each side's median round.
    private func alternate(_ make: (_ port: Int, _ round: Int) -> LeanHTTPLoad, ceilingPort: Int) async throws -> Comparison {
        var servers: [LeanHTTPLoad.Report] = []
        var ceilings: [LeanHTTPLoad.Report] = []
        for round in 0..<Self.rounds {
            if round % 2 == 0 {
                ceilings.append(try await make(ceilingPort, round).run())
                servers.append(try await make(serverPort, round).run())
            } else {
                servers.append(try await make(serverPort, round).run())
                ceilings.append(try await make(ceilingPort, round).run())
            }
        }
        for report in servers + ceilings where report.failures > 0 {
            throw BenchmarkError("\(report.failures) requests failed: \(report.firstFailure ?? "")")
        }
        func median(_ reports: [LeanHTTPLoad.Report]) -> LeanHTTPLoad.Report {
            reports.sorted { $0.perSecond < $1.perSecond }[reports.count / 2]
        }
        let ratios = zip(servers, ceilings).map { $0.perSecond / $1.perSecond }.sorted()
        return Comparison(server: median(servers), ceiling: median(ceilings), ratio: ratios[ratios.count / 2])
    }

    /// Single-record `records/modify` calls from `clients` keep-alive connections.
    func measureSavesAgainstCeiling(zone: RecordZoneID, ceilingPort: Int) async throws -> Comparison {
        let zoneJSON = #"{"zoneName":"\#(zone.zoneName)","ownerRecordName":"\#(zone.ownerName)"}"#
        let path = databasePath("records/modify")
        let token = webAuthToken
        return try await alternate({ port, round in
            LeanHTTPLoad(
                port: port, connections: clients, requests: saves, timeLimit: comparisonRunLimit,
                request: { connection, index in
                    let body = #"{"operations":[{"operationType":"create","record":{"recordName":"p\#(port)-r\#(round)-c\#(connection)-\#(index)","recordType":"Item","fields":{"a":{"type":"STRING","value":"alpha\#(index % 97)"},"n":{"type":"INT64","value":\#(index)}}}}],"zoneID":\#(zoneJSON)}"#
                    return LeanHTTPLoad.requestBytes(path: path, token: token, body: Array(body.utf8))
                })
        }, ceilingPort: ceilingPort)
    }

    /// `changes/zone` pages of 400 records from a zone of `changesZoneRecords`
    /// records, each request naming one page's token. The ceiling encodes the
    /// very page the server answered for that token.
    func measureZoneChangesAgainstCeiling(ceiling: CeilingServer, ceilingPort: Int) async throws -> (comparison: Comparison, recordsPerPage: Double) {
        let zone = RecordZoneID(zoneName: "BenchChanges-\(UInt32.random(in: 0...UInt32.max))", ownerName: user)
        let service = service()
        for result in try await service.modifyRecordZones(in: .private, saving: [zone], deleting: []) { _ = try result.get() }
        defer { Task { [service] in _ = try? await service.modifyRecordZones(in: .private, saving: [], deleting: [zone]) } }

        // Fill the zone, 400 records a request.
        let zoneJSON = #"{"zoneName":"\#(zone.zoneName)","ownerRecordName":"\#(zone.ownerName)"}"#
        let batches = (changesZoneRecords + 399) / 400
        let fill = try await LeanHTTPLoad(
            port: serverPort, connections: 2, requests: batches + batches % 2, timeLimit: 600,
            request: { connection, index in
                let batch = index * 2 + connection
                let operations = (0..<400).map { (i: Int) -> String in
                    let n = batch * 400 + i
                    return #"{"operationType":"create","record":{"recordName":"z\#(n)","recordType":"Item","fields":{"title":{"type":"STRING","value":"Note number \#(n)"},"n":{"type":"INT64","value":\#(n)},"done":{"type":"INT64","value":\#(n % 2)}}}}"#
                }.joined(separator: ",")
                let body = #"{"operations":[\#(operations)],"zoneID":\#(zoneJSON),"atomic":false}"#
                return LeanHTTPLoad.requestBytes(path: databasePath("records/modify"), token: webAuthToken, body: Array(body.utf8))
            }
        ).run()
        guard fill.failures == 0 else { throw BenchmarkError("filling the zone failed: \(fill.firstFailure ?? "")") }

        // Walk the zone once to learn each page's token and content.
        var pages: [String: WireZoneChangesResponse] = [:]
        var tokens: [ServerChangeToken?] = []
        var token: ServerChangeToken?
        var records = 0
        for _ in 0..<(batches * 2 + 10) {
            let batch = try await service.fetchRecordZoneChanges(
                in: .private, [ZoneChangesRequest(zoneID: zone, previousServerChangeToken: token, resultsLimit: 400)])[0].get()
            pages[token?.rawValue ?? ""] = WireZoneChangesResponse(zones: [.success(WireZoneChanges(batch))])
            tokens.append(token)
            records += batch.changes.count
            token = batch.serverChangeToken
            if !batch.moreComing { break }
        }
        ceiling.setPages(pages)
        let bodies: [[UInt8]] = try tokens.map { token in
            let request = WireZoneChangesRequest(zones: [.init(zoneID: WireZoneID(zone), syncToken: token, resultsLimit: 400)])
            return LeanHTTPLoad.requestBytes(path: databasePath("changes/zone"), token: webAuthToken, body: Array(try WireJSON.encode(request)))
        }
        let requests = max(pages.count * 2, 500)
        let comparison = try await alternate({ port, _ in
            LeanHTTPLoad(
                port: port, connections: clients, requests: requests, timeLimit: comparisonRunLimit,
                request: { connection, index in bodies[(connection * 37 + index) % bodies.count] })
        }, ceilingPort: ceilingPort)
        return (comparison, Double(records) / Double(tokens.count))
    }
}
