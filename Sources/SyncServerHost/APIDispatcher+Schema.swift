import Foundation
import SyncCore
import SyncWire
import SyncServer

/// `/admin/1/{container}/{environment}/schema`, `…/importSchema` and
/// `…/deploySchema`: a container's schema in CloudKit's schema language,
/// replacing it, and deploying development's to production. Each acts on
/// the container as a whole, so each takes the server admin credential.
extension APIDispatcher {
    package func exportSchema(_ call: APICall, _ arguments: RouteArguments) throws(CloudError) -> APIAnswer {
        try Self.requireServerAdmin(call, "schema")
        let schema = core.engine.schema(container: arguments.container, environment: arguments.environment)
        return try encode(WireSchemaResponse(schema: SchemaLanguage.text(of: schema)), changed: false)
    }

    package func importSchema(_ call: APICall, _ arguments: RouteArguments) throws(CloudError) -> APIAnswer {
        try Self.requireServerAdmin(call, "importSchema")
        let request = try decode(WireSchemaImportRequest.self, call)
        return try importSchema(request.schema, container: arguments.container, environment: arguments.environment)
    }

    /// `serve --schema FILE`, as a server call: the file into one environment.
    package func importSchemaFile(_ call: APICall) throws(CloudError) -> APIAnswer {
        let request = try decode(DispatcherInternal.ImportSchema.self, call)
        return try importSchema(request.schema, container: request.container, environment: request.environment)
    }

    private func importSchema(_ text: String, container: String, environment: ContainerEnvironment) throws(CloudError) -> APIAnswer {
        let schema: ContainerSchema
        do { schema = try SchemaLanguage.parse(text) } catch {
            throw CloudError(.invalidArguments, "The schema does not parse: line \(error)")
        }
        let changes = try core.engine.importSchema(schema, container: container, environment: environment)
        return try encode(WireSchemaResponse(schema: SchemaLanguage.text(of: schema), changes: changes.map(\.description)), changed: !changes.isEmpty)
    }

    package func deploySchema(_ call: APICall, _ arguments: RouteArguments) throws(CloudError) -> APIAnswer {
        try Self.requireServerAdmin(call, "deploySchema")
        guard arguments.environment == .development else {
            throw CloudError(
                .invalidArguments,
                "admin/deploySchema copies the development schema to production: call it on the development environment (/admin/1/\(arguments.container)/development/deploySchema).")
        }
        let request = try decode(WireSchemaDeployRequest.self, call)
        let dryRun = request.dryRun ?? false
        let changes = try core.engine.deploySchema(container: arguments.container, dryRun: dryRun)
        let production = core.engine.schema(container: arguments.container, environment: .production)
        return try encode(
            WireSchemaResponse(schema: SchemaLanguage.text(of: production), changes: changes.map(\.description)), changed: !dryRun && !changes.isEmpty)
    }
}
