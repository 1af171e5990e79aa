import SyncWire

/// The record types and fields development took, as the feed shows them:
/// records saved with success in a development `records/modify`, by any
/// client. What production refused is compared with it (`schemaNotDeployed`).
struct DevelopmentSchemaTraces: Sendable {
    /// A record type, or a field of one, that a production refusal names.
    enum Missing: Hashable, CustomStringConvertible {
        case type(String)
        case field(type: String, field: String)

        /// Reads CloudKit's sentences: "Cannot create new type Note in production schema",
        /// "Cannot create or modify field 'body' in record 'Note' in production schema",
        /// "Did not find record type: Note".
        init?(productionRefusal reason: String) {
            if let rest = reason.dropPrefix("Cannot create new type "), let end = rest.range(of: " in production schema") {
                self = .type(String(rest[..<end.lowerBound]))
            } else if let rest = reason.dropPrefix("Cannot create or modify field '"), let close = rest.firstIndex(of: "'"),
                      let typePart = rest[close...].dropPrefix("' in record '"), let typeEnd = typePart.firstIndex(of: "'") {
                self = .field(type: String(typePart[..<typeEnd]), field: String(rest[..<close]))
            } else if let rest = reason.dropPrefix("Did not find record type: ") {
                self = .type(String(rest.prefix { $0 != ":" && $0 != " " && $0 != "(" }))
            } else {
                return nil
            }
        }

        var description: String {
            switch self {
            case .type(let type): "record type \(type)"
            case .field(let type, let field): "field \(type).\(field)"
            }
        }
    }

    private var types: Set<String> = []
    private var fields: Set<String> = []

    init(_ events: [WireServerEvent]) {
        for event in events where event.kind == "request" && event.operation == "records/modify" && event.status == 200 {
            guard DatabasePath.environment(of: event.path ?? "") == "development" else { continue }
            let results = event.answer?["records"]?.array ?? []
            for (index, operation) in (event.request?["operations"]?.array ?? []).enumerated() {
                guard index < results.count, results[index]["serverErrorCode"] == nil, let record = operation["record"],
                      let type = record["recordType"]?.string
                else { continue }
                types.insert(type)
                if case .object(let recordFields)? = record["fields"] {
                    for name in recordFields.keys { fields.insert("\(type).\(name)") }
                }
            }
        }
    }

    func has(_ missing: Missing) -> Bool {
        switch missing {
        case .type(let type): types.contains(type)
        case .field(let type, let field): fields.contains("\(type).\(field)")
        }
    }
}

extension StringProtocol {
    /// The rest after `prefix`, or `nil` when it does not start with it.
    fileprivate func dropPrefix(_ prefix: String) -> SubSequence? {
        hasPrefix(prefix) ? dropFirst(prefix.count) : nil
    }
}
