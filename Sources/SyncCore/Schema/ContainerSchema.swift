/// The schema of one container in one environment: its record types (with
/// their fields and indexes) and its roles.
///
/// Development extends it just in time (``extend(recordType:fields:)``);
/// production only checks against it (``check(recordType:fields:)``); a
/// deploy copies development's to production when nothing in production
/// would be lost (``deploying(_:)``).
public struct ContainerSchema: Sendable, Hashable {
    public var recordTypes: [String: RecordTypeSchema]
    /// Roles made with `CREATE ROLE`, sorted.
    public var roles: [String]

    public init(recordTypes: [String: RecordTypeSchema] = [:], roles: [String] = []) {
        self.recordTypes = recordTypes
        self.roles = roles
    }

    /// What a save would need of the schema.
    public enum SaveCheck: Sendable, Equatable {
        /// The type and every field exist with the value's type.
        case fits
        /// Something is missing: development adds it; production refuses with this sentence.
        case missing(String)
        /// A value has another type than its field: refused in every environment, with this sentence.
        case wrongType(String)
    }

    /// Checks one record's fields against the schema (no allocation when it fits).
    public func check(recordType: String, fields: RecordFields) -> SaveCheck {
        guard let type = recordTypes[recordType] else { return Self.missingType(recordType) }
        return Self.check(fields, against: type)
    }

    /// The check of a save of a record type the schema lacks.
    public static func missingType(_ recordType: String) -> SaveCheck {
        .missing("Cannot create new type \(recordType) in production schema")
    }

    /// Checks one record's fields against its record type (no allocation when it fits).
    public static func check(_ fields: RecordFields, against type: RecordTypeSchema) -> SaveCheck {
        var missing: String?
        for index in fields.indices {
            let field = fields[index]
            guard let definition = type.fields[field.name] else {
                if missing == nil { missing = "Cannot create or modify field '\(field.name)' in record '\(type.name)' in production schema" }
                continue
            }
            if !definition.type.accepts(field.value) {
                return .wrongType(Self.wrongTypeReason(field, definition, type.name))
            }
        }
        return missing.map(SaveCheck.missing) ?? .fits
    }

    /// Adds the record type and fields a save brings that the schema lacks
    /// (development's just-in-time schema), each new field with every index
    /// its type allows, a new type with ``RecordTypeSchema/justInTimeSystemIndexes``; returns what it added, or the sentence refusing a
    /// value of another type than its field (then nothing changes).
    public mutating func extend(recordType: String, fields: RecordFields) -> Result<[SchemaChange], SchemaRefusal> {
        var changes: [SchemaChange] = []
        var type = recordTypes[recordType] ?? {
            changes.append(.addRecordType(recordType, systemIndexes: RecordTypeSchema.justInTimeSystemIndexes))
            return RecordTypeSchema(name: recordType, systemIndexes: RecordTypeSchema.justInTimeSystemIndexes)
        }()
        for field in fields {
            if let definition = type.fields[field.name] {
                guard definition.type.accepts(field.value) else {
                    return .failure(SchemaRefusal(reason: Self.wrongTypeReason(field, definition, recordType)))
                }
                continue
            }
            let fieldType = SchemaFieldType(firstValue: field.value)
            let definition = FieldDefinition(name: field.name, type: fieldType, indexes: fieldType.allowedIndexes)
            type.fields[field.name] = definition
            changes.append(.addField(recordType: recordType, definition))
        }
        if !changes.isEmpty { recordTypes[recordType] = type }
        return .success(changes)
    }

    private static func wrongTypeReason(_ field: Field, _ definition: FieldDefinition, _ recordType: String) -> String {
        "invalid attempt to set value type \(field.value.typeName) for field '\(field.name)' for type '\(recordType)', defined to be: \(definition.type)"
    }

    /// What a query needs of the schema: `nil` when it may run, else the sentence refusing it.
    public func queryRefusal(recordType: String, filterFields: some Sequence<String>, sortFields: some Sequence<String>) -> String? {
        guard let type = recordTypes[recordType] else { return "Did not find record type: \(recordType)" }
        for name in filterFields where !(type.indexes(of: name)?.contains(.queryable) ?? false) {
            return "Field '\(name)' is not marked queryable"
        }
        for name in sortFields where !(type.indexes(of: name)?.contains(.sortable) ?? false) {
            return "Field '\(name)' is not marked sortable"
        }
        return nil
    }

    /// What would change to make this schema `target`, in a stable order
    /// (roles, then types by name, then fields by name).
    public func changes(to target: ContainerSchema) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        for role in target.roles where !roles.contains(role) { changes.append(.addRole(role)) }
        for role in roles where !target.roles.contains(role) { changes.append(.removeRole(role)) }
        for name in Set(recordTypes.keys).union(target.recordTypes.keys).sorted() {
            switch (recordTypes[name], target.recordTypes[name]) {
            case (nil, let new?):
                changes.append(.addRecordType(name, systemIndexes: new.systemIndexes.filter { !$0.value.isEmpty }))
                for field in new.sortedFields { changes.append(.addField(recordType: name, field)) }
            case (_?, nil):
                changes.append(.removeRecordType(name))
            case (let old?, let new?):
                for field in Set(old.fields.keys).union(new.fields.keys).sorted() {
                    switch (old.fields[field], new.fields[field]) {
                    case (nil, let added?): changes.append(.addField(recordType: name, added))
                    case (_?, nil): changes.append(.removeField(recordType: name, field: field))
                    case (let a?, let b?):
                        if a.type != b.type {
                            changes.append(.changeFieldType(recordType: name, field: field, from: a.type, to: b.type))
                        } else if a.indexes != b.indexes {
                            changes.append(.changeIndexes(recordType: name, field: field, from: a.indexes, to: b.indexes))
                        }
                    default: break
                    }
                }
                for (system, _) in RecordTypeSchema.systemFields {
                    let from = old.systemIndexes[system] ?? []
                    let to = new.systemIndexes[system] ?? []
                    if from != to { changes.append(.changeIndexes(recordType: name, field: system, from: from, to: to)) }
                }
                if old.grants != new.grants { changes.append(.changeGrants(recordType: name)) }
            case (nil, nil): break
            }
        }
        return changes
    }

    /// The schema a deploy of `development` onto this (production) schema
    /// gives, and what it changes; refused, naming each, when it would
    /// remove a record type, a field or a role, or change a field's type
    /// (CloudKit keeps production additive: its data must stay readable).
    public func deploying(_ development: ContainerSchema) -> Result<(schema: ContainerSchema, changes: [SchemaChange]), SchemaRefusal> {
        let changes = changes(to: development)
        let losing = changes.filter(\.losesData)
        guard losing.isEmpty else {
            let list = losing.map(\.description).joined(separator: "; ")
            return .failure(SchemaRefusal(
                reason: "Cannot deploy: it would \(list), and production keeps every record type, field and role it has, with its type (data there would become unreadable). Put \(losing.count == 1 ? "it" : "them") back in the development schema and deploy again."))
        }
        return .success((development, changes))
    }

    /// Why a record already stored would not be accepted by this schema, or `nil`.
    public func refusal(recordType: String, fields: RecordFields) -> String? {
        switch check(recordType: recordType, fields: fields) {
        case .fits: nil
        case .missing(let reason), .wrongType(let reason): reason
        }
    }
}
