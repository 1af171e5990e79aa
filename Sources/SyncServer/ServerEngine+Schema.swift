import Foundation
import SyncCore

/// Schemas and environments: each container keeps a schema per environment.
/// Development extends its schema just in time as records are saved;
/// production refuses what its schema lacks; queries need indexes in both;
/// a deploy copies development's schema to production when production would
/// lose nothing. (The SyncServer page "Schemas and environments" says what
/// Apple documents and where we chose.)
extension ServerEngine {
    /// A container's schema in one environment (empty when the container was never used there).
    public func schema(container: String, environment: ContainerEnvironment) -> ContainerSchema {
        containers[ContainerKey(container: container, environment: environment)]?.schema ?? ContainerSchema()
    }

    /// Replaces a container's schema in one environment with `schema` (the
    /// text form's import), and returns what changed. Refused, naming what,
    /// when production's schema would lose a record type, a field or a role,
    /// or a field would change type: in production that is the deploy rule;
    /// in development it keeps the next deploy possible (as `cktool
    /// import-schema` checks against production).
    @discardableResult
    public func importSchema(_ schema: ContainerSchema, container: String, environment: ContainerEnvironment) throws(CloudError) -> [SchemaChange] {
        let production = self.schema(container: container, environment: .production)
        if case .failure(let refusal) = production.deploying(schema) {
            throw CloudError(.invalidArguments, refusal.reason)
        }
        let state = containerState(DatabaseID(container: container, environment: environment, scope: .private))
        let changes = state.schema.changes(to: schema)
        state.schema = schema
        return changes
    }

    /// Copies a container's development schema to production (the CloudKit
    /// Console's "Deploy Schema Changes"), returning what changed in
    /// production; refused, naming each, when production would lose a record
    /// type, a field or a role, or a field would change type. With `dryRun`
    /// it only says what a deploy would change.
    @discardableResult
    public func deploySchema(container: String, dryRun: Bool = false) throws(CloudError) -> [SchemaChange] {
        let development = schema(container: container, environment: .development)
        let production = schema(container: container, environment: .production)
        switch production.deploying(development) {
        case .failure(let refusal):
            throw CloudError(.invalidArguments, refusal.reason)
        case .success(let deployed):
            if !dryRun, !deployed.changes.isEmpty {
                containerState(DatabaseID(container: container, environment: .production, scope: .private)).schema = deployed.schema
            }
            return deployed.changes
        }
    }

    /// Checks one save against the schema of its environment. Development
    /// adds a missing type or field to `draft` (a copy of the container's
    /// schema made at the first addition of a request, kept only when the
    /// request applies); production refuses it. A value of another type than
    /// its field is refused in both.
    ///
    /// `memo` keeps what the request's previous save found (a request's
    /// records are mostly of one type and one shape): its record type, and
    /// the fields of the last record that fitted it. A record with the same
    /// field names and value types fits too, with no lookup: the caller asks
    /// ``SaveSchemaMemo/admits(_:_:)`` first, and calls this for the others,
    /// which are checked field by field.
    func admitSave(
        recordType: String, fields: RecordFields, container: ContainerState, environment: ContainerEnvironment,
        draft: inout ContainerSchema?, memo: inout SaveSchemaMemo, recordName: String, zoneID: RecordZoneID
    ) throws(CloudError) {
        // `cloudkit.share` is a system type, in every schema as in Apple's (never memoized, so it always comes here).
        guard recordType != ZoneShare.recordType else { return }
        if memo.type?.name != recordType {
            memo.type = if let draft { draft.recordTypes[recordType] } else { container.schema.recordTypes[recordType] }
            memo.fitted = nil
        }
        let check = if let type = memo.type { ContainerSchema.check(fields, against: type) } else { ContainerSchema.missingType(recordType) }
        switch check {
        case .fits:
            memo.fitted = fields
            return
        case .wrongType(let reason):
            throw CloudError(.invalidArguments, reason, recordName: recordName, zoneID: zoneID)
        case .missing(let reason):
            guard environment == .development else {
                throw CloudError(
                    .invalidArguments,
                    "\(reason). Production takes only record types and fields deployed to it: deploy the development schema (syncscope schema deploy).",
                    recordName: recordName, zoneID: zoneID)
            }
            var schema = draft ?? container.schema
            if case .failure(let refusal) = schema.extend(recordType: recordType, fields: fields) {
                throw CloudError(.invalidArguments, refusal.reason, recordName: recordName, zoneID: zoneID)
            }
            draft = schema
            memo.type = schema.recordTypes[recordType]
            memo.fitted = fields
        }
    }

    /// Checks a query against the schema of its environment: its record
    /// type must exist (in development, a type no save has created yet
    /// answers no records instead), each filtered field be QUERYABLE and
    /// each sort field SORTABLE.
    func admitQuery(_ query: RecordQuery, database: DatabaseID) throws(CloudError) {
        guard configuration.checksSchemas else { return }
        let schema = containers[ContainerKey(container: database.container, environment: database.environment)]?.schema ?? ContainerSchema()
        if database.environment == .development, schema.recordTypes[query.recordType] == nil { return }
        guard let reason = schema.queryRefusal(
            recordType: query.recordType, filterFields: query.predicate.filters.lazy.map(\.fieldName),
            sortFields: query.sortBy.lazy.map(\.fieldName))
        else { return }
        let hint = reason.hasPrefix("Did not find")
            ? ": production has only the record types deployed to it; deploy the development schema (syncscope schema deploy)"
            : ": a query filters only on QUERYABLE fields and sorts only by SORTABLE ones; add the index to the schema (syncscope schema import, then deploy)"
        throw CloudError(.invalidArguments, reason + hint)
    }

    /// Why a stored record would be refused by a container's production schema, or `nil` (the inspector marks such records).
    public func productionRefusal(container: String, recordType: String, fields: RecordFields) -> String? {
        schema(container: container, environment: .production).refusal(recordType: recordType, fields: fields)
    }
}
