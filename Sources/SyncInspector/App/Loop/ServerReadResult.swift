import SyncCore
import SyncClient

/// What a server read found, and the world read after it.
public struct ServerReadResult: Sendable, Equatable {
    public var request: ServerReadRequest
    /// Where the server was read ("the in-process server", a URL).
    public var source: String
    public var reading: Result<ServerReading, CloudError>
    /// The world after the read (the focused device's side built with the new reading, or the last one after a failure).
    public var world: WorldSnapshot

    public init(request: ServerReadRequest, source: String, reading: Result<ServerReading, CloudError>, world: WorldSnapshot) {
        self.request = request
        self.source = source
        self.reading = reading
        self.world = world
    }
}
