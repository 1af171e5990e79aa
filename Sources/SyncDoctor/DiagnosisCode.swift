/// A client mistake the doctor names, as seen in a server's traffic.
public enum DiagnosisCode: String, Sendable, Hashable, Codable, CaseIterable {
    /// The same zone or database fetched from no token again and again (3 times or more) while the client holds a token for it.
    case tokenNotCached
    /// A zone token passed to `changes/database`, or a database token to a zone fetch.
    case wrongTokenKind
    /// A fetch answered `moreComing: true`, and the client went on without asking for the next batch.
    case moreComingIgnored
    /// A retry sooner than the `retryAfter` the server gave.
    case retriedTooEarly
    /// After `CHANGE_TOKEN_EXPIRED` the client sent the same token again.
    case expiredTokenReused
    /// Web courier long-polls sent again faster than a reasonable floor, or more open at once than the server allows.
    case pollStorm
    /// A push the client received was not followed by any fetch.
    case pushIgnored
    /// The same record answered `CONFLICT` again and again, resent without the server's change tag.
    case conflictLoop
    /// A batch over the limit refused with `LIMIT_EXCEEDED`, then sent again as it was.
    case limitExceededResent
    /// `ZONE_NOT_FOUND`, and the client kept writing to the zone without creating it.
    case zoneNotFoundIgnored
    /// A zone fetch started from a token the client took before it had the zone's data.
    case tokenBeforeData
    /// A production request refused for a record type or field that development has: the schema was not deployed.
    case schemaNotDeployed

    public var severity: DiagnosisSeverity {
        switch self {
        case .tokenNotCached, .retriedTooEarly, .pollStorm, .pushIgnored, .zoneNotFoundIgnored: .warning
        case .wrongTokenKind, .moreComingIgnored, .expiredTokenReused, .conflictLoop, .limitExceededResent, .tokenBeforeData, .schemaNotDeployed: .error
        }
    }

    /// The lesson that teaches the fix (`syncscope lesson NAME`).
    public var lesson: String {
        switch self {
        case .tokenNotCached: "01-first-fetch"
        case .wrongTokenKind: "02-two-kinds-of-token"
        case .moreComingIgnored: "03-batches"
        case .expiredTokenReused: "06-expired-token"
        case .conflictLoop: "09-conflicts"
        case .tokenBeforeData: "11-token-before-data"
        case .zoneNotFoundIgnored: "12-zone-gone"
        case .limitExceededResent: "13-over-400"
        case .retriedTooEarly: "16-rate-limiting"
        case .pushIgnored, .pollStorm: "17-lost-and-early-pushes"
        case .schemaNotDeployed: "18-works-in-development"
        }
    }
}
