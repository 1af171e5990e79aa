import Foundation
import SyncCore
import Yams

extension ScenarioReader {
    static let expectationNames = ["cache", "lastFetch", "error", "notifications", "tokens", "lastSend", "pending", "subscriptions", "retries"]

    struct ReadExpectation {
        var expectation: Expectation?
        var location: SourceLocation
    }

    /// `expect: {a: …, b: …}` or `expect: [{a: …}, {b: …}]`: one check per key.
    func expectations(_ node: Node) -> [ReadExpectation] {
        switch node {
        case .mapping(let mapping):
            if mapping.isEmpty {
                error("expect checks nothing", hint: "give one of \(Suggestions.list(Self.expectationNames, conjunction: "or"))", at: node)
                return []
            }
            var result: [ReadExpectation] = []
            for (keyNode, value) in mapping {
                guard case .scalar(let keyScalar) = keyNode, !Self.isNull(keyNode) else {
                    error("a check must start with its name, got \(Self.describe(keyNode))", at: keyNode)
                    continue
                }
                result.append(ReadExpectation(
                    expectation: expectation(named: keyScalar.string, keyNode: keyNode, value: value),
                    location: location(of: keyNode)))
            }
            return result
        case .sequence(let sequence) where !sequence.isEmpty:
            var result: [ReadExpectation] = []
            for item in sequence {
                guard case .mapping = item else {
                    error("each check in expect must be a mapping such as {lastFetch: {moreComing: false}}, got \(Self.describe(item))", at: item)
                    continue
                }
                result += expectations(item)
            }
            return result
        default:
            error(
                "expect must be a mapping of checks, got \(Self.describe(node))",
                hint: "for example expect: {lastFetch: {moreComing: false}}", at: node)
            return []
        }
    }

    private func expectation(named name: String, keyNode: Node, value: Node) -> Expectation? {
        switch name {
        case "cache": return cache(value).map(Expectation.cache)
        case "lastFetch": return lastFetch(value).map(Expectation.lastFetch)
        case "error": return errorCheck(value).map(Expectation.error)
        case "notifications": return notifications(value).map(Expectation.notifications)
        case "tokens": return tokens(value).map(Expectation.tokens)
        case "lastSend": return lastSend(value).map(Expectation.lastSend)
        case "pending": return pending(value).map(Expectation.pending)
        case "subscriptions": return subscriptions(value).map(Expectation.subscriptions)
        case "retries": return retries(value).map(Expectation.retries)
        default:
            error(
                "unknown check '\(name)' in expect",
                hint: Suggestions.hint(
                    for: name, in: Self.expectationNames,
                    otherwise: "expect checks \(Suggestions.list(Self.expectationNames, conjunction: "or"))"),
                at: keyNode)
            return nil
        }
    }

    /// Reports a check that names nothing to check.
    private func requireSomething(_ entries: Entries, of keys: [String], in context: String) -> Bool {
        guard keys.contains(where: entries.has) else {
            error(
                "\(context) checks nothing",
                hint: "give \(Suggestions.list(keys.map { "'\($0)'" }, conjunction: "or"))", at: entries.node)
            return false
        }
        return true
    }

    // MARK: cache

    private func cache(_ node: Node) -> CacheExpectation? {
        let checks = ["records", "includes", "excludes", "count"]
        guard let entries = mapping(
            node, in: "cache", keys: ["device", "database", "zone"] + checks, required: ["device", "zone"],
            example: "{device: Mac, zone: Notes, records: [note-1, note-2]}")
        else { return nil }
        var ok = requireSomething(entries, of: checks, in: "cache")
        let device = entries["device"].flatMap { self.device($0) }
        let zone = entries["zone"].flatMap { zoneRef($0) }
        var check = CacheExpectation(device: device ?? "", zone: zone ?? .defaultZone)
        if let node = entries["database"] {
            if let scope = database(node) { check.database = scope } else { ok = false }
        }
        let owner = userOf(device: device)
        if let node = entries["records"] {
            if let records = expectedRecords(node, what: "records", defaultOwner: owner) { check.records = records } else { ok = false }
        }
        if let node = entries["includes"] {
            if let records = expectedRecords(node, what: "includes", defaultOwner: owner) { check.includes = records } else { ok = false }
        }
        if let node = entries["excludes"] {
            if let names = recordNames(node, what: "excludes") { check.excludes = names } else { ok = false }
        }
        if let node = entries["count"] {
            if let count = wholeNumber(node, what: "count", atLeast: 0) { check.count = count } else { ok = false }
        }
        guard ok, device != nil, zone != nil else { return nil }
        return check
    }

    /// Record names; an empty list is allowed (no records).
    private func recordNames(_ node: Node, what: String) -> [String]? {
        if case .sequence(let sequence) = node, sequence.isEmpty { return [] }
        return names(node, what: what)
    }

    /// `[note-1, {record: note-2, type: Note, fields: {title: Trip}}]`.
    private func expectedRecords(_ node: Node, what: String, defaultOwner: String?) -> [ExpectedRecord]? {
        if case .sequence(let sequence) = node, sequence.isEmpty { return [] }
        guard let items = list(node, what: what) else { return nil }
        var result: [ExpectedRecord] = []
        var ok = true
        for item in items {
            if case .mapping = item {
                guard let entries = mapping(
                    item, in: "a record in \(what)", keys: ["record", "type", "fields"], required: ["record"],
                    example: "{record: note-1, fields: {title: Groceries}}"),
                    let recordNode = entries["record"], let recordName = name(recordNode, what: "record")
                else {
                    ok = false
                    continue
                }
                var record = ExpectedRecord(recordName)
                if let node = entries["type"] {
                    if let type = name(node, what: "type") { record.recordType = type } else { ok = false }
                }
                if let node = entries["fields"] {
                    if let parsed = fields(node, in: "record '\(recordName)'", defaultOwner: defaultOwner, allowRemoval: false) {
                        record.fields = parsed.fields
                    } else {
                        ok = false
                    }
                }
                result.append(record)
            } else if let recordName = name(item, what: "each of \(what)") {
                result.append(ExpectedRecord(recordName))
            } else {
                ok = false
            }
        }
        return ok ? result : nil
    }

    // MARK: lastFetch

    private func lastFetch(_ node: Node) -> LastFetchExpectation? {
        let checks = ["records", "deletions", "zones", "deletedZones", "moreComing", "tokenChanged", "batches"]
        guard let entries = mapping(
            node, in: "lastFetch", keys: ["device"] + checks, example: "{records: [note-1], moreComing: false}")
        else { return nil }
        var ok = requireSomething(entries, of: checks, in: "lastFetch")
        var check = LastFetchExpectation()
        if let node = entries["device"] {
            if let device = device(node) { check.device = device } else { ok = false }
        }
        let owner = userOf(device: check.device)
        if let node = entries["records"] {
            if let records = expectedRecords(node, what: "records", defaultOwner: owner) { check.records = records } else { ok = false }
        }
        if let node = entries["deletions"] {
            if let deletions = expectedDeletions(node) { check.deletions = deletions } else { ok = false }
        }
        if let node = entries["zones"] {
            if let zones = zoneList(node, what: "zones") { check.zones = zones } else { ok = false }
        }
        if let node = entries["deletedZones"] {
            if let zones = deletedZones(node) { check.deletedZones = zones } else { ok = false }
        }
        if let node = entries["moreComing"] {
            if let flag = bool(node, what: "moreComing") { check.moreComing = flag } else { ok = false }
        }
        if let node = entries["tokenChanged"] {
            if let flag = bool(node, what: "tokenChanged") { check.tokenChanged = flag } else { ok = false }
        }
        if let node = entries["batches"] {
            if let count = wholeNumber(node, what: "batches", atLeast: 0) { check.batches = count } else { ok = false }
        }
        return ok ? check : nil
    }

    /// `[note-1, {record: note-2, type: Note}]`.
    private func expectedDeletions(_ node: Node) -> [ExpectedDeletion]? {
        if case .sequence(let sequence) = node, sequence.isEmpty { return [] }
        guard let items = list(node, what: "deletions") else { return nil }
        var result: [ExpectedDeletion] = []
        var ok = true
        for item in items {
            guard case .mapping = item else {
                if let recordName = name(item, what: "each of deletions") { result.append(ExpectedDeletion(recordName)) } else { ok = false }
                continue
            }
            guard let entries = mapping(
                item, in: "a deletion", keys: ["record", "type"], required: ["record"], example: "{record: note-1, type: Note}"),
                let recordNode = entries["record"], let recordName = name(recordNode, what: "record")
            else {
                ok = false
                continue
            }
            var deletion = ExpectedDeletion(recordName)
            if let node = entries["type"] {
                if let type = name(node, what: "type") { deletion.recordType = type } else { ok = false }
            }
            result.append(deletion)
        }
        return ok ? result : nil
    }

    private func zoneList(_ node: Node, what: String) -> [ZoneRef]? {
        if case .sequence(let sequence) = node, sequence.isEmpty { return [] }
        guard let items = list(node, what: what) else { return nil }
        let zones = items.map { zoneRef($0) }
        return zones.contains { $0 == nil } ? nil : zones.compactMap { $0 }
    }

    /// `[Notes, {zone: Trips, reason: purged}]`.
    private func deletedZones(_ node: Node) -> [ExpectedDeletedZone]? {
        if case .sequence(let sequence) = node, sequence.isEmpty { return [] }
        guard let items = list(node, what: "deletedZones") else { return nil }
        var result: [ExpectedDeletedZone] = []
        var ok = true
        for item in items {
            guard case .mapping = item else {
                if let zone = zoneRef(item) { result.append(ExpectedDeletedZone(zone)) } else { ok = false }
                continue
            }
            guard let entries = mapping(
                item, in: "a deleted zone", keys: ["zone", "reason"], required: ["zone"],
                example: "{zone: Notes, reason: purged}"),
                let zoneNode = entries["zone"], let zone = zoneRef(zoneNode)
            else {
                ok = false
                continue
            }
            var expected = ExpectedDeletedZone(zone)
            if let node = entries["reason"] {
                if let reason: ZoneDeletionReason = choice(node, what: "zone deletion reason") { expected.reason = reason } else { ok = false }
            }
            result.append(expected)
        }
        return ok ? result : nil
    }

    // MARK: error

    static var serverErrorCodes: [String] {
        var codes: [String] = []
        for code in CloudError.Code.allCases where !codes.contains(code.serverErrorCode) {
            codes.append(code.serverErrorCode)
        }
        return codes
    }

    /// `changeTokenExpired`, `CHANGE_TOKEN_EXPIRED`, `none`, or `{code: …, reasonContains: …}`.
    private func errorCheck(_ node: Node) -> ErrorExpectation? {
        if case .mapping = node {
            guard let entries = mapping(
                node, in: "error", keys: ["code", "reasonContains"], required: ["code"],
                example: "{code: changeTokenExpired, reasonContains: expired}"),
                let codeNode = entries["code"]
            else { return nil }
            let match = errorMatch(codeNode)
            var reason: String?
            var ok = true
            if let node = entries["reasonContains"] {
                reason = text(node, what: "reasonContains")
                if reason == nil { ok = false }
            }
            guard ok, let match else { return nil }
            return ErrorExpectation(match, reasonContains: reason)
        }
        return errorMatch(node).map { ErrorExpectation($0) }
    }

    private func errorMatch(_ node: Node) -> ErrorExpectation.Match? {
        guard let word = name(node, what: "error code") else { return nil }
        if word == "none" { return .noError }
        if let code = CloudError.Code(rawValue: word) { return .code(code) }
        let wire = Self.serverErrorCodes
        if wire.contains(word) { return .serverErrorCode(word) }
        let candidates = CloudError.Code.allCases.map(\.rawValue) + wire
        error(
            "unknown error code '\(word)'",
            hint: Suggestions.hint(
                for: word, in: candidates,
                otherwise: "use a CloudError code such as changeTokenExpired, a server code such as CHANGE_TOKEN_EXPIRED, or none"),
            at: node)
        return nil
    }

    // MARK: notifications

    private func notifications(_ node: Node) -> NotificationsExpectation? {
        let checks = ["count", "coalescedCount", "type", "subscriptionID", "reasons"]
        guard let entries = mapping(
            node, in: "notifications", keys: ["device"] + checks, required: ["device"],
            example: "{device: Mac, count: 1, coalescedCount: 3}")
        else { return nil }
        var ok = requireSomething(entries, of: checks, in: "notifications")
        let device = entries["device"].flatMap { self.device($0) }
        var check = NotificationsExpectation(device: device ?? "")
        if let node = entries["count"] {
            if let count = wholeNumber(node, what: "count", atLeast: 0) { check.count = count } else { ok = false }
        }
        if let node = entries["coalescedCount"] {
            if let count = wholeNumber(node, what: "coalescedCount", atLeast: 1) { check.coalescedCount = count } else { ok = false }
        }
        if let node = entries["type"] {
            if let type: NotificationsExpectation.Kind = choice(node, what: "notification type", aliases: ["zone": .recordZone]) {
                check.type = type
            } else {
                ok = false
            }
        }
        if let node = entries["subscriptionID"] {
            if let id = name(node, what: "subscriptionID") { check.subscriptionID = id } else { ok = false }
        }
        if let node = entries["reasons"] {
            if let reasons = queryReasons(node) {
                check.reasons = reasons
                if let type = check.type, type != .query {
                    error("reasons applies to query notifications, not \(type.rawValue) ones", hint: "use type: query, or remove 'reasons'", at: node)
                    ok = false
                }
            } else {
                ok = false
            }
        }
        guard ok, device != nil else { return nil }
        return check
    }

    /// `[recordCreated, recordUpdated]`; `created`, `updated` and `deleted` also do.
    private func queryReasons(_ node: Node) -> [QueryNotification.Reason]? {
        if case .sequence(let sequence) = node, sequence.isEmpty { return [] }
        guard let items = list(node, what: "reasons") else { return nil }
        let reasons = items.map { item -> QueryNotification.Reason? in
            choice(item, what: "query notification reason", aliases: [
                "created": .recordCreated, "updated": .recordUpdated, "deleted": .recordDeleted,
                "create": .recordCreated, "update": .recordUpdated, "delete": .recordDeleted,
            ])
        }
        return reasons.contains { $0 == nil } ? nil : reasons.compactMap { $0 }
    }

    // MARK: lastSend, pending, subscriptions

    private func lastSend(_ node: Node) -> LastSendExpectation? {
        let checks = ["saved", "deleted", "conflicts"]
        guard let entries = mapping(
            node, in: "lastSend", keys: ["device"] + checks, example: "{device: Mac, saved: [note-1], conflicts: [note-1]}")
        else { return nil }
        var ok = requireSomething(entries, of: checks, in: "lastSend")
        var check = LastSendExpectation()
        if let node = entries["device"] {
            if let device = device(node) { check.device = device } else { ok = false }
        }
        if let node = entries["saved"] {
            if let names = recordNames(node, what: "saved") { check.saved = names } else { ok = false }
        }
        if let node = entries["deleted"] {
            if let names = recordNames(node, what: "deleted") { check.deleted = names } else { ok = false }
        }
        if let node = entries["conflicts"] {
            if let names = recordNames(node, what: "conflicts") { check.conflicts = names } else { ok = false }
        }
        return ok ? check : nil
    }

    private func pending(_ node: Node) -> PendingExpectation? {
        let checks = ["count", "records"]
        guard let entries = mapping(
            node, in: "pending", keys: ["device"] + checks, required: ["device"], example: "{device: Mac, count: 0}")
        else { return nil }
        var ok = requireSomething(entries, of: checks, in: "pending")
        let device = entries["device"].flatMap { self.device($0) }
        var check = PendingExpectation(device: device ?? "")
        if let node = entries["count"] {
            if let count = wholeNumber(node, what: "count", atLeast: 0) { check.count = count } else { ok = false }
        }
        if let node = entries["records"] {
            if let names = recordNames(node, what: "records") { check.records = names } else { ok = false }
        }
        guard ok, device != nil else { return nil }
        return check
    }

    private func subscriptions(_ node: Node) -> SubscriptionsExpectation? {
        guard let entries = mapping(
            node, in: "subscriptions", keys: ["device", "user", "database", "ids"], required: ["ids"],
            example: "{user: bob, database: shared, ids: [shared-db]}")
        else { return nil }
        let owner = principal(entries, in: "subscriptions")
        var ok = owner != nil
        var database = DatabaseScope.private
        if let node = entries["database"] {
            if let scope = self.database(node) { database = scope } else { ok = false }
        }
        var ids: [String] = []
        if let node = entries["ids"] {
            if let names = recordNames(node, what: "ids") { ids = names } else { ok = false }
        }
        guard ok, let owner else { return nil }
        return SubscriptionsExpectation(owner: owner, database: database, ids: ids)
    }

    // MARK: tokens

    private func tokens(_ node: Node) -> TokenExpectation? {
        guard let entries = mapping(
            node, in: "tokens", keys: ["device", "database", "zone", "cached", "sameAs"], required: ["device"],
            example: "{device: Mac, zone: Notes, cached: true}")
        else { return nil }
        var ok = true
        let device = entries["device"].flatMap { self.device($0) }
        var check = TokenExpectation(device: device ?? "")
        if let node = entries["database"] {
            if let scope = database(node) { check.database = scope } else { ok = false }
        }
        if let node = entries["zone"] {
            if let zone = zoneRef(node) { check.zone = zone } else { ok = false }
        }
        if let node = entries["cached"] {
            if let cached = bool(node, what: "cached") { check.cached = cached } else { ok = false }
        }
        if let node = entries["sameAs"] {
            if let name = name(node, what: "sameAs") {
                check.sameAs = name
                tokenUses.append(TokenUse(name: name, location: location(of: node), stepIndex: currentStepIndex))
                if !check.cached {
                    error("a token that is not cached cannot be the same as '\(name)'", hint: "remove 'cached: false' or 'sameAs'", at: node)
                    ok = false
                }
            } else {
                ok = false
            }
        }
        guard ok, device != nil else { return nil }
        return check
    }
}
