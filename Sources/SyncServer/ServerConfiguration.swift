import Foundation
import SyncCore

/// Tunable behaviour of the simulated server.
public struct ServerConfiguration: Sendable, Hashable {
    /// Keep this many changes of history per zone and per database log;
    /// tokens from before that expire. `nil`: keep everything until `compact`.
    public var retention: Int?
    /// Most items in one `records/modify` or `zones/modify` request.
    public var maxOperationsPerRequest: Int
    /// The cap, and default, of `resultsLimit`.
    public var maxResultsLimit: Int
    /// Seeds the server's random choices: token-signing key, incarnations, auth tokens.
    public var seed: UInt64
    /// Whether each container keeps a schema per environment and checks
    /// saves and queries against it (see "Schemas and environments").
    /// `false`: every environment takes any record type, field and query and
    /// keeps no schema, as SyncScope did before it had schemas (the
    /// benchmark's baseline for what the checks cost).
    public var checksSchemas: Bool

    public init(
        retention: Int? = nil, maxOperationsPerRequest: Int = 400, maxResultsLimit: Int = 400, seed: UInt64 = 1, checksSchemas: Bool = true
    ) {
        self.checksSchemas = checksSchemas
        self.retention = retention
        self.maxOperationsPerRequest = maxOperationsPerRequest
        self.maxResultsLimit = maxResultsLimit
        self.seed = seed
    }
}
