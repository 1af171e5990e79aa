import Foundation
import SyncCore
import SyncWire

extension ServerHost {
    /// `serve --schema FILE`: the file's schema into both environments of a
    /// container, as server calls kept in the journal (production first, so
    /// a file that would take something away from production is refused
    /// before development changes).
    func importSchemaFile(_ file: URL, container: String) async throws {
        let text: String
        do { text = try String(contentsOf: file, encoding: .utf8) } catch {
            throw ServeError("Cannot read the schema file \(file.path): \(error.localizedDescription)")
        }
        do { _ = try SchemaLanguage.parse(text) } catch {
            throw ServeError("The schema file does not parse: \(error.located(in: file.path))")
        }
        for environment in [ContainerEnvironment.production, .development] {
            let answer = await perform(.server(
                "importSchema", DispatcherInternal.ImportSchema(container: container, environment: environment, schema: text)))
            guard answer.status == 200 else {
                throw ServeError("Cannot start with the schema file \(file.path) (\(environment.rawValue)): \(answer.wireError?.reason ?? "status \(answer.status)")")
            }
        }
    }
}

extension ServerHost {
    /// A container's schema in one environment, as the engine holds it now.
    package func schema(container: String, environment: ContainerEnvironment) -> ContainerSchema {
        state.withLock { $0.core.engine.schema(container: container, environment: environment) }
    }
}
