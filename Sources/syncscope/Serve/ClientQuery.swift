import ArgumentParser
import Foundation
import SyncCore
import SyncNetwork

/// `syncscope client query TYPE --filter 'field=value' --sort field`: records/query.
struct ClientQuery: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Query the records of a type: syncscope client query Note --zone Notes --filter 'stars>=3' --sort -stars",
        discussion: """
            Filters are ANDed. Each is FIELD OP VALUE with OP one of = != < <= > >= and ^= (begins with); \
            a value that is a whole number is an INT64, one with a decimal point a DOUBLE, anything else a STRING. \
            System fields: ___recordID, ___createTime, ___modTime. --sort FIELD sorts ascending, --sort -FIELD descending; \
            repeat it for more keys. Every page is fetched (continuationMarker) and printed.
            """)
    @OptionGroup var options: ClientOptions
    @Argument(help: "Record type.") var type: String
    @Option(help: "Zone name (default: the default zone).") var zone: String = RecordZoneID.defaultZoneName
    @Option(help: "private, shared or public.") var database: DatabaseScope = .private
    @Option(help: "The owner of the zone, for a zone shared with you. Default: you.") var owner: String?
    @Flag(name: .customLong("zone-wide"), help: "Search every zone of the database instead of one.") var zoneWide = false
    @Option(parsing: .unconditionalSingleValue, help: "A filter such as 'title=Hello' or 'stars>=3' (repeatable, ANDed).") var filter: [String] = []
    @Option(parsing: .unconditionalSingleValue, help: "A field to sort by; prefix '-' for descending (repeatable).") var sort: [String] = []
    @Option(name: .customLong("results-limit"), parsing: .unconditional, help: "Records per page (default: the server's limit).")
    var resultsLimit: Int?

    func validate() throws {
        _ = try filters()
        if let resultsLimit, resultsLimit < 1 { throw ValidationError("--results-limit must be at least 1 (got \(resultsLimit)).") }
        if sort.contains(where: { $0.isEmpty || $0 == "-" }) { throw ValidationError("--sort needs a field name, such as --sort title or --sort -title.") }
    }

    static let operators: [(String, QueryComparator)] = [
        (">=", .greaterThanOrEquals), ("<=", .lessThanOrEquals), ("!=", .notEquals), ("^=", .beginsWith), ("=", .equals), (">", .greaterThan),
        ("<", .lessThan),
    ]

    func filters() throws -> [QueryFilter] {
        try filter.map { text in
            for (symbol, comparator) in Self.operators {
                guard let range = text.range(of: symbol) else { continue }
                let field = String(text[..<range.lowerBound]).trimmingCharacters(in: .whitespaces)
                let raw = String(text[range.upperBound...])
                guard !field.isEmpty else { break }
                let value: FieldValue
                if comparator == .beginsWith {
                    value = .string(raw)
                } else if let integer = Int64(raw) {
                    value = .int64(integer)
                } else if let double = Double(raw), double.isFinite, raw.contains(".") {
                    value = .double(double)
                } else {
                    value = .string(raw)
                }
                return QueryFilter(field, comparator, value)
            }
            throw ValidationError("'\(text)' is not a filter; write FIELD OP VALUE with OP one of = != < <= > >= ^= (for example title=Hello).")
        }
    }

    func run() async throws {
        let query = RecordQuery(
            recordType: type, predicate: QueryPredicate(try filters()),
            sortBy: sort.map { $0.hasPrefix("-") ? RecordQuery.Sort(String($0.dropFirst()), ascending: false) : RecordQuery.Sort($0) })
        let zoneID = RecordZoneID(zoneName: zone, ownerName: owner ?? (database == .public ? "" : options.user))
        print("query \(type) where \(query.predicate)\(sort.isEmpty ? "" : " sorted by \(sort.joined(separator: ", "))") in \(zoneWide ? "every zone" : zone) (\(database.rawValue))")
        try await clientRun {
            let service = try options.service()
            var marker: String?
            var count = 0
            var pages = 0
            repeat {
                let page = try await service.queryRecords(
                    in: database,
                    QueryRequest(
                        query: query, zoneID: zoneWide ? nil : zoneID, zoneWide: zoneWide, resultsLimit: resultsLimit, continuationMarker: marker),
                    currentSyncToken: marker == nil && !zoneWide)
                pages += 1
                for record in page.records { print("  \(describe(record))") }
                count += page.records.count
                if let token = page.syncToken { print("  zone token: \(token.rawValue)") }
                marker = page.continuationMarker
                if marker != nil { print("  … continuationMarker, next page") }
            } while marker != nil && pages < 100_000
            print("\(count) record\(count == 1 ? "" : "s")")
        }
    }
}
