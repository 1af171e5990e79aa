import Foundation
import SyncCore
import SyncWire

/// The schema calls (server admin token): a container's schema in CloudKit's
/// schema language, replacing it, and deploying development's to production.
extension HTTPCloudService {
    private func schemaPath(_ environment: ContainerEnvironment, _ operation: String) -> String {
        "/admin/1/\(escapedContainer)/\(environment.rawValue)/\(operation)"
    }

    /// `admin/schema`: the schema of one environment (default: this service's).
    public func schema(in environment: ContainerEnvironment? = nil) async throws -> WireSchemaResponse {
        try await send("POST", schemaPath(environment ?? self.environment, "schema"), WireEmpty())
    }

    /// `admin/importSchema`: replaces this service's environment's schema with a text schema.
    public func importSchema(_ text: String) async throws -> WireSchemaResponse {
        try await send("POST", schemaPath(environment, "importSchema"), WireSchemaImportRequest(schema: text))
    }

    /// `admin/deploySchema`: copies the development schema to production (with `dryRun`, only says what it would change).
    public func deploySchema(dryRun: Bool = false) async throws -> WireSchemaResponse {
        try await send("POST", schemaPath(.development, "deploySchema"), WireSchemaDeployRequest(dryRun: dryRun ? true : nil))
    }
}
