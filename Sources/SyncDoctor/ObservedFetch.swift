import SyncWire

/// One zone or database a fetch asked about, as its request and answer show it.
struct ObservedFetch: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case database
        case zone
    }

    var kind: Kind
    /// `database private` or `zone private/Notes`.
    var target: String
    /// The zone's owner as the request named it (`ownerRecordName`, a shared zone's); `nil`: the caller's.
    var zoneOwner: String? = nil
    var tokenIn: String?
    var tokenOut: String?
    var moreComing: Bool
    /// The error this target was answered (the whole request's, or its zone's).
    var errorCode: String?
    var reason: String?
    /// Records (or zones) the answer carried.
    var items: Int
    /// The record types asked for (`desiredRecordTypes`, sorted); `nil`: every type.
    var recordTypes: [String]? = nil

    /// The question a fetch from no token asks of its place: the same
    /// place with other record types is another read (a listing of folders,
    /// then of notes), not a client re-reading what it has. `nil` for a fetch
    /// that asks for no records at all (it only wants a token).
    var question: String? {
        guard let types = recordTypes else { return target }
        return types.isEmpty ? nil : "\(target) \(types.joined(separator: ","))"
    }

    /// The fetches a request made, one per target: `changes/database`,
    /// `zones/changes`, `changes/zone` (one per zone) and `records/changes`.
    static func fetches(of event: WireServerEvent, scope: String) -> [ObservedFetch] {
        let request = event.request
        let answer = event.answer
        let wholeError = event.status == 200 ? nil : event.errorCode
        let reason = event.status == 200 ? nil : answer?["reason"]?.string
        switch event.operation {
        case "changes/database", "zones/changes":
            return [ObservedFetch(
                kind: .database, target: "database \(scope)", tokenIn: request?["syncToken"]?.string, tokenOut: answer?["syncToken"]?.string,
                moreComing: answer?["moreComing"]?.bool ?? false, errorCode: wholeError, reason: reason, items: answer?["zones"]?.array.count ?? 0)]
        case "records/changes":
            let zone = request?.zoneName ?? "_defaultZone"
            return [ObservedFetch(
                kind: .zone, target: "zone \(scope)/\(zone)", zoneOwner: request?.zoneOwner, tokenIn: request?["syncToken"]?.string, tokenOut: answer?["syncToken"]?.string,
                moreComing: answer?["moreComing"]?.bool ?? false, errorCode: wholeError, reason: reason, items: answer?["records"]?.array.count ?? 0,
                recordTypes: request?["desiredRecordTypes"].map { $0.array.compactMap(\.string).sorted() })]
        case "changes/zone":
            let answered = answer?["zones"]?.array ?? []
            return (request?["zones"]?.array ?? []).map { asked in
                let zone = asked.zoneName ?? "_defaultZone"
                let result = answered.first { $0.zoneName == zone }
                let types = asked["desiredRecordTypes"] ?? request?["desiredRecordTypes"]
                return ObservedFetch(
                    kind: .zone, target: "zone \(scope)/\(zone)", zoneOwner: asked.zoneOwner, tokenIn: asked["syncToken"]?.string, tokenOut: result?["syncToken"]?.string,
                    moreComing: result?["moreComing"]?.bool ?? false, errorCode: wholeError ?? result?["serverErrorCode"]?.string,
                    reason: reason ?? result?["reason"]?.string, items: result?["records"]?.array.count ?? 0,
                    recordTypes: types.map { $0.array.compactMap(\.string).sorted() })
            }
        default:
            return []
        }
    }
}
