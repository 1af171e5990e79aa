import SyncCore

/// The schema part of the record detail: the record's type in each
/// environment's schema, its fields with their types and indexes, and
/// whether a production schema would take the record as it is.
enum RecordSchemaLines: Equatable {
    case heading(String)
    case field(String)
    case accepted(String)
    case refused(String)

    /// Production's schema once something was deployed there (the records
    /// pane marks `✗prod` the records it would refuse); `nil` before, when
    /// every record would be refused, and over HTTP.
    static func deployedProduction(_ schemas: [ContainerEnvironment: ContainerSchema]) -> ContainerSchema? {
        guard let production = schemas[.production], !production.recordTypes.isEmpty else { return nil }
        return production
    }

    /// Nothing when the observer reads no schema (over HTTP), or before
    /// production has one (a world that never deployed, such as the demo,
    /// shows records as it always did).
    static func lines(for record: Record?, schemas: [ContainerEnvironment: ContainerSchema]) -> [RecordSchemaLines] {
        guard let record, deployedProduction(schemas) != nil else { return [] }
        var lines: [RecordSchemaLines] = []
        for environment in ContainerEnvironment.allCases {
            guard let schema = schemas[environment] else { continue }
            guard let type = schema.recordTypes[record.recordType] else {
                lines.append(.heading("Schema (\(environment.rawValue)): no record type \(record.recordType)"))
                continue
            }
            lines.append(.heading("Schema (\(environment.rawValue)): \(type.name)"))
            let indexed = type.systemIndexes.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
            let definitions = type.sortedFields.map { ($0.name, $0.type.description, $0.indexes) }
                + indexed.map { name, indexes in (name, RecordTypeSchema.systemFieldType(name)?.description ?? "", indexes) }
            let width = min(16, definitions.map { TextWidth.of($0.0) }.max() ?? 0)
            for (name, type, indexes) in definitions {
                let index = indexes.isEmpty ? "no index" : indexes.names.joined(separator: " ")
                lines.append(.field("  " + TextWidth.pad(name, to: width) + "  " + type + "  " + index))
            }
        }
        if let production = schemas[.production] {
            if let reason = production.refusal(recordType: record.recordType, fields: record.fields) {
                lines.append(.refused("✗ production would refuse it: \(reason)"))
            } else {
                lines.append(.accepted("✓ production's schema takes it"))
            }
        }
        return lines
    }
}
