import SyncCore
import SyncScenario
import SyncServer
import SyncSimulation
import SyncWorlds

/// The schema steps: the team deploys or imports a schema, an app queries.
extension ScenarioRunner {
    func deploySchema() throws {
        let container = simulation.setup.container
        let changes = try simulation.server.withEngine { (engine) throws(CloudError) in try engine.deploySchema(container: container) }
        record(.note(
            device: nil,
            changes.isEmpty
                ? "schema deployed: production already had the development schema"
                : "schema deployed to production: \(changes.map(\.description).joined(separator: "; "))"))
    }

    func importSchema(_ action: SchemaImportAction) throws {
        let container = simulation.setup.container
        let schema: ContainerSchema
        do { schema = try SchemaLanguage.parse(action.schema) } catch {
            throw CloudError(.invalidArguments, "The schema does not parse: line \(error)")
        }
        let changes = try simulation.server.withEngine { (engine) throws(CloudError) in
            try engine.importSchema(schema, container: container, environment: action.environment)
        }
        record(.note(
            device: nil,
            changes.isEmpty
                ? "schema imported into \(action.environment.rawValue): no change"
                : "schema imported into \(action.environment.rawValue): \(changes.map(\.description).joined(separator: "; "))"))
    }

    func query(_ action: QueryAction, on device: SyncDevice) async throws {
        let zoneID = try await self.zoneID(action.zone, for: device, in: .private)
        let query = RecordQuery(
            recordType: action.recordType, predicate: QueryPredicate(action.filter.map { QueryFilter($0.name, .equals, $0.value) }),
            sortBy: action.sortBy.map { RecordQuery.Sort($0) })
        let caller = Caller(user: user(of: device), deviceID: device.deviceID)
        let environment = simulation.setup.devices.first { $0.name == device.name }?.environment ?? .development
        let database = DatabaseID(container: simulation.setup.container, environment: environment, scope: .private)
        let result = try simulation.server.withEngine { (engine) throws(CloudError) in
            try engine.queryRecords(caller: caller, database: database, QueryRequest(query: query, zoneID: zoneID))
        }
        let names = result.records.map(\.recordID.recordName)
        record(.note(device: device.name, names.isEmpty ? "records/query found nothing" : "records/query found \(names.joined(separator: ", "))"))
    }
}
