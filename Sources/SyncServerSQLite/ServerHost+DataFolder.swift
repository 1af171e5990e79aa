import Foundation
import SyncServerHost

extension ServerHost {
    /// Starts a server on the data folder `options` names (``ServeOptions/dataDirectory``),
    /// or keeping nothing when it names none (`--in-memory`).
    public static func start(options: ServeOptions) async throws -> ServerHost {
        if let directory = options.dataDirectory {
            return try await start(options: options, on: SQLiteServerStore(directory: directory, options: options))
        }
        return try await start(options: options, on: VolatileStore())
    }
}
