import SyncWire

/// One client's traffic, read in order by the doctor: what it holds and was
/// told, and the mistakes that shows.
struct ClientCheckup {
    let key: String
    let name: String
    var user: String
    let doctor: SyncDoctor
    /// The record types and fields development was seen to take, from every client.
    let development: DevelopmentSchemaTraces

    /// Where each token the client was given came from: its kind, its place,
    /// and whether a fetch gave it (else a listing or query: "the zone's current token").
    private var issued: [String: (kind: ObservedFetch.Kind, target: String, byFetch: Bool)] = [:]
    /// Places the client was given a token for.
    private var holding: Set<String> = []
    /// Fetches from no token, per question (``ObservedFetch/question``), since the client held a token for its place (an expiry forgives).
    private var uncached: [String: [WireServerEvent]] = [:]
    /// Tokens answered `moreComing`, not yet presented again.
    private var moreComing: [String: (target: String, event: WireServerEvent)] = [:]
    private var moreComingIgnored: [String: [WireServerEvent]] = [:]
    /// Tokens answered `CHANGE_TOKEN_EXPIRED`.
    private var expired: [String: WireServerEvent] = [:]
    /// Zones whose data the client fetched or queried.
    private var hadData: Set<String> = []
    /// The time before which a path must not be sent again, and the answer that said so.
    private var retryAfter: [String: (until: Int64, event: WireServerEvent)] = [:]
    /// Records answered CONFLICT: the tag the client sent, the server's, and the evidence.
    private var conflicts: [String: (sent: String?, server: String?, events: [WireServerEvent], loops: Int)] = [:]
    /// Batches refused for their size: the operation count, per path.
    private var refusedBatches: [String: (count: Int, event: WireServerEvent)] = [:]
    /// Zones answered ZONE_NOT_FOUND and not created since.
    private var missingZones: [String: [WireServerEvent]] = [:]
    /// Pushes the client received, not yet followed by a fetch.
    private var unansweredPushes: [WireServerEvent] = []
    private var ignoredPushes: [WireServerEvent] = []
    private var shortPolls: [WireServerEvent] = []
    private var storm: [WireServerEvent] = []
    private var found: [Diagnosis] = []
    /// One diagnosis per code and place: where each said already is in ``found``.
    private var said: [String: Int] = [:]

    init(key: String, name: String, user: String, doctor: SyncDoctor, development: DevelopmentSchemaTraces) {
        self.key = key
        self.name = name
        self.user = user
        self.doctor = doctor
        self.development = development
    }

    /// Names a mistake; named again at the same place, the diagnosis is brought up to date (its summary, its evidence).
    private mutating func say(_ code: DiagnosisCode, _ place: String, _ summary: String, _ evidence: [WireServerEvent]) {
        let diagnosis = Diagnosis(code: code, client: name, clientKey: key, user: user, summary: summary, evidence: evidence)
        if let index = said["\(code.rawValue) \(place)"] {
            found[index] = diagnosis
        } else {
            said["\(code.rawValue) \(place)"] = found.count
            found.append(diagnosis)
        }
    }

    mutating func see(_ event: WireServerEvent) {
        if user.isEmpty, let who = event.user { user = who }
        if event.kind == "push" {
            unansweredPushes.append(event)
            return
        }
        let operation = event.operation ?? ""
        let path = event.path ?? ""
        let scope = DatabasePath.scope(of: path)
        seeRetry(event, path: path)
        if DatabasePath.environment(of: path) == "production" { seeProductionRefusals(event) }
        switch operation {
        case "changes/database", "zones/changes", "changes/zone", "records/changes":
            answerPushes(event)
            for fetch in ObservedFetch.fetches(of: event, scope: scope) { seeFetch(fetch, event) }
        case "records/query", "records/lookup":
            answerPushes(event)
            let zone = "zone \(scope)/\(event.request?.zoneName ?? "_defaultZone")"
            if event.status == 200 {
                hadData.insert(zone)
                if let token = event.answer?["syncToken"]?.string { issued[token] = (.zone, zone, false) }
            }
        case "zones/list", "zones/lookup":
            for zone in event.answer?["zones"]?.array ?? [] {
                if let token = zone["syncToken"]?.string, let name = zone.zoneName { issued[token] = (.zone, "zone \(scope)/\(name)", false) }
            }
        case "zones/modify":
            seeZonesModify(event, scope: scope)
        case "records/modify":
            seeRecordsModify(event, scope: scope)
        case "webcourier":
            seePoll(event)
        default:
            break
        }
    }

    // MARK: Fetches and tokens

    private mutating func seeFetch(_ fetch: ObservedFetch, _ event: WireServerEvent) {
        let target = fetch.target
        if let token = fetch.tokenIn {
            // The next batch asked for: the moreComing was heard.
            moreComing[token] = nil
            if let origin = issued[token], origin.kind != fetch.kind {
                let given = origin.kind == .database ? "a database token" : "a zone token"
                let needs = fetch.kind == .database ? "a database token" : "a zone token"
                say(.wrongTokenKind, target, "sent \(given) (for \(origin.target)) to \(event.operation ?? "a fetch") of \(target), which needs \(needs)", [event])
            } else if fetch.reason?.contains(" token; ") == true, fetch.reason?.hasPrefix("This is a ") == true {
                say(.wrongTokenKind, target, "sent the wrong kind of token to \(event.operation ?? "a fetch") of \(target): \(fetch.reason ?? "")", [event])
            }
            if let first = expired[token] {
                say(.expiredTokenReused, target, "sent again a token of \(target) the server had answered CHANGE_TOKEN_EXPIRED; after an expiry, fetch from no token and reconcile", [first, event])
            }
            if let origin = issued[token], origin.kind == fetch.kind, !origin.byFetch, fetch.kind == .zone, !hadData.contains(target) {
                say(.tokenBeforeData, target, "fetched \(target) from the zone's current token (from a listing, not a fetch) without ever fetching its records: the changes before that token never reached the client", [event])
            }
        } else if let question = fetch.question {
            if holding.contains(target) { uncached[question, default: []].append(event) }
            let count = uncached[question]?.count ?? 0
            if count + 1 >= doctor.uncachedFetches, let events = uncached[question] {
                say(.tokenNotCached, target, "fetched \(target) from no token \(count + 1) times though the server had given it a token for it; keep the last token and fetch from it", events)
            }
        }
        if fetch.errorCode == "CHANGE_TOKEN_EXPIRED", let token = fetch.tokenIn {
            expired[token] = event
            uncached = uncached.filter { !($0.key == target || $0.key.hasPrefix(target + " ")) }
            holding.remove(target)
        }
        // A batch after which the client fetched the same place from anything but the next batch's token.
        for (token, pending) in moreComing where pending.target == target && token != fetch.tokenIn {
            moreComingIgnored[pending.target, default: []].append(pending.event)
            moreComing[token] = nil
        }
        guard event.status == 200, fetch.errorCode == nil else { return }
        if fetch.kind == .zone { hadData.insert(target) }
        if let token = fetch.tokenOut {
            issued[token] = (fetch.kind, target, true)
            holding.insert(target)
            if fetch.moreComing { moreComing[token] = (target, event) }
        }
    }

    // MARK: Writes

    private mutating func seeZonesModify(_ event: WireServerEvent, scope: String) {
        for operation in event.request?["operations"]?.array ?? [] where operation["operationType"]?.string == "create" {
            if let name = operation["zone"]?.zoneName { missingZones["zone \(scope)/\(name)"] = nil }
        }
    }

    private mutating func seeRecordsModify(_ event: WireServerEvent, scope: String) {
        let operations = event.request?["operations"]?.array ?? []
        let zone = "zone \(scope)/\(event.request?.zoneName ?? "_defaultZone")"
        // A batch over the limit, refused, sent again as it was.
        if let refused = refusedBatches[event.path ?? ""], refused.count == operations.count {
            say(.limitExceededResent, zone, "sent again the batch of \(operations.count) operations the server refused as over its limit; split it into batches of at most 400", [refused.event, event])
        }
        if event.status != 200, operations.count > 400 {
            refusedBatches[event.path ?? ""] = (operations.count, event)
        } else if event.status == 200 {
            refusedBatches[event.path ?? ""] = nil
        }
        // Writing on to a zone the server said is not there.
        if let earlier = missingZones[zone] {
            missingZones[zone] = earlier + [event]
            say(.zoneNotFoundIgnored, zone, "kept writing to \(zone) after ZONE_NOT_FOUND without creating it (zones/modify) first", earlier + [event])
        }
        let results = event.answer?["records"]?.array ?? []
        if event.errorCode == "ZONE_NOT_FOUND" || results.contains(where: { $0["serverErrorCode"]?.string == "ZONE_NOT_FOUND" }) {
            if missingZones[zone] == nil { missingZones[zone] = [event] }
        }
        // CONFLICT, and the record sent again with the same stale tag.
        for (index, operation) in operations.enumerated() {
            let record = operation["record"]
            guard let name = record?["recordName"]?.string else { continue }
            let place = "\(zone)/\(name)"
            let tag = record?["recordChangeTag"]?.string
            if var conflict = conflicts[place] {
                if tag == conflict.sent || (conflict.server != nil && tag != conflict.server) {
                    conflict.loops += 1
                } else {
                    conflict.loops = 0
                }
                conflict.events.append(event)
                conflicts[place] = conflict
            }
            let result = index < results.count ? results[index] : nil
            if result?["serverErrorCode"]?.string == "CONFLICT" {
                let server = result?["serverRecord"]?["recordChangeTag"]?.string
                var conflict = conflicts[place] ?? (sent: tag, server: server, events: [event], loops: 0)
                conflict.sent = tag
                conflict.server = server
                conflicts[place] = conflict
                if conflict.loops >= 1, conflict.events.count >= 2 {
                    say(.conflictLoop, place, "record \(name) in \(zone) was answered CONFLICT again and again, resent without the server's recordChangeTag; merge into the server's record and send its tag", conflict.events)
                }
            } else if result != nil {
                conflicts[place] = nil
            }
        }
    }

    // MARK: Schemas

    /// A production save or query refused for a record type or field that
    /// development has (another client saved it there): the schema was not deployed.
    private mutating func seeProductionRefusals(_ event: WireServerEvent) {
        var reasons = (event.answer?["records"]?.array ?? []).compactMap { $0["reason"]?.string }
        if let reason = event.answer?["reason"]?.string { reasons.append(reason) }
        for reason in reasons {
            guard let missing = DevelopmentSchemaTraces.Missing(productionRefusal: reason), development.has(missing) else { continue }
            say(.schemaNotDeployed, missing.description, "production refused \(missing.description), which development has: deploy the development schema to production (syncscope schema deploy) before shipping the build", [event])
        }
    }

    // MARK: Retries

    private mutating func seeRetry(_ event: WireServerEvent, path: String) {
        let started = event.time - Int64(event.latencyMs ?? 0)
        if let wait = retryAfter[path] {
            if started < wait.until {
                say(.retriedTooEarly, path, "sent \(event.operation ?? path) again \(max(0, wait.until - started)) ms before the retryAfter the server gave (\(String(format: "%g", Double(wait.until - wait.event.time) / 1000)) s)", [wait.event, event])
            }
            retryAfter[path] = nil
        }
        var seconds = event.retryAfter
        if seconds == nil, event.status == 200 {
            seconds = (event.answer?["records"]?.array ?? []).compactMap { $0["retryAfter"]?.number }.max()
        }
        if let seconds, seconds > 0 { retryAfter[path] = (event.time + Int64(seconds * 1000), event) }
    }

    // MARK: Pushes and polls

    private mutating func seePoll(_ event: WireServerEvent) {
        // Too many open at once: the server refused one.
        if event.status == 503, event.errorCode == "TRY_AGAIN_LATER" {
            say(.pollStorm, "polls", "opened more long-polls at once than the server allows one device; keep one open", [event])
        }
        let empty = event.status == 200 && event.answer == nil
        if empty, Int64(event.latencyMs ?? 0) < doctor.pollFloor {
            shortPolls.append(event)
            shortPolls.removeAll { event.time - $0.time > doctor.stormWindow }
            if shortPolls.count >= doctor.stormPolls {
                say(.pollStorm, "polls", "sent \(shortPolls.count) web courier long-polls within \(doctor.stormWindow / 1000) s that came back empty at once; poll with a timeout (30 s is usual) and wait before polling again after an error", shortPolls)
            }
        }
    }

    /// A fetch answers every push the client had by then.
    private mutating func answerPushes(_ event: WireServerEvent) {
        for push in unansweredPushes where event.time - push.time > doctor.pushWindow { ignoredPushes.append(push) }
        unansweredPushes = []
    }

    mutating func finish(now: Int64) -> [Diagnosis] {
        for push in unansweredPushes where now - push.time > doctor.pushWindow { ignoredPushes.append(push) }
        if !ignoredPushes.isEmpty {
            say(.pushIgnored, "pushes", "received \(ignoredPushes.count) push\(ignoredPushes.count == 1 ? "" : "es") and fetched nothing within \(doctor.pushWindow / 1000) s; a push says something changed: fetch the changes", ignoredPushes)
        }
        // A batch the client has not followed up for as long as a push may wait.
        for pending in moreComing.values where now - pending.event.time > doctor.pushWindow {
            moreComingIgnored[pending.target, default: []].append(pending.event)
        }
        for (target, events) in moreComingIgnored.sorted(by: { $0.key < $1.key }) {
            say(.moreComingIgnored, target, "a fetch of \(target) was answered moreComing: true, and the client never asked for the next batch (its token) — the rest of the changes never reached it", events)
        }
        return found
    }

}
