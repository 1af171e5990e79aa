import Foundation
import SyncCore
import Yams

extension ScenarioReader {
    static let topLevelKeys = ["name", "title", "summary", "seed", "server", "users", "devices", "subscriptions", "faults", "steps"]

    /// The whole scenario; `nil` when the file is not even shaped like one.
    func scenario(from root: Node?, defaultName: String) -> Scenario? {
        guard let root, !Self.isNull(root) else {
            error(
                "the file is empty", hint: "a scenario needs at least 'devices:' and 'steps:'",
                at: SourceLocation(file: fileName, line: 0, column: 0))
            return nil
        }
        guard case .mapping = root else {
            error(
                "a scenario must be a mapping with keys like 'name', 'devices' and 'steps', got \(Self.describe(root))",
                at: root)
            return nil
        }
        guard let top = mapping(root, in: "the scenario", keys: Self.topLevelKeys, required: ["steps"]) else { return nil }

        var scenario = Scenario(name: defaultName)
        if let node = top["name"], let name = name(node, what: "name") { scenario.name = name }
        if let node = top["title"] { scenario.title = text(node, what: "title").map(Self.trimmed) }
        if let node = top["summary"] { scenario.summary = text(node, what: "summary").map(Self.trimmed) }
        if let node = top["seed"] {
            if case .scalar(let scalar) = node, let seed = UInt64(scalar.string.trimmingCharacters(in: .whitespaces)) {
                scenario.seed = seed
            } else {
                error("seed must be a whole number from 0 up, got \(Self.describe(node))", at: node)
            }
        }
        if let node = top["server"] { scenario.server = server(node) ?? scenario.server }

        let declaresUsers = top.has("users")
        if let node = top["users"] { readUsers(node) }
        if let node = top["devices"] { readDevices(node, addingUsers: !declaresUsers) }
        scenario.users = users
        scenario.devices = devices

        if let node = top["subscriptions"], let items = list(node, what: "subscriptions") {
            for item in items {
                if let subscription = subscription(item, in: "subscription") { scenario.subscriptions.append(subscription) }
            }
        }
        if let node = top["faults"] { scenario.faults = faultPlan(node, in: "faults") ?? FaultPlan() }
        if let node = top["steps"] { scenario.steps = steps(node) }
        checkReferencesAcrossSteps(hasInitialSubscriptions: top.has("subscriptions"))
        return scenario
    }

    static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func server(_ node: Node) -> ServerSetup? {
        guard let entries = mapping(
            node, in: "server", keys: ["retention", "coalescingWindowMs", "pushLatencyMs", "container"],
            example: "{retention: 100, coalescingWindowMs: 200}")
        else { return nil }
        var setup = ServerSetup()
        if let node = entries["retention"] { setup.retention = wholeNumber(node, what: "retention", atLeast: 1) }
        if let node = entries["coalescingWindowMs"], let ms = milliseconds(node, what: "coalescingWindowMs") {
            setup.coalescingWindowMs = ms
        }
        if let node = entries["pushLatencyMs"], let ms = milliseconds(node, what: "pushLatencyMs") {
            setup.pushLatencyMs = ms
        }
        if let node = entries["container"] { setup.container = name(node, what: "container") }
        return setup
    }

    private func readUsers(_ node: Node) {
        guard let items = list(node, what: "users") else { return }
        for item in items {
            guard let name = name(item, what: "each user") else { continue }
            if users.contains(name) {
                error("user '\(name)' is declared twice", at: item)
            } else {
                users.append(name)
            }
        }
    }

    private func readDevices(_ node: Node, addingUsers: Bool) {
        guard let items = list(node, what: "devices") else { return }
        for item in items {
            guard let entries = mapping(
                item, in: "device", keys: ["name", "user", "store", "autoFetchOnPush", "retry", "environment"], required: ["name", "user"],
                example: "{name: iPhone, user: alice}")
            else { continue }
            guard let nameNode = entries["name"], let name = name(nameNode, what: "device name") else { continue }
            if deviceNames.contains(name) {
                error("device '\(name)' is declared twice", at: nameNode)
                continue
            }
            // The device counts as declared even when its other keys are
            // wrong, so that its steps do not add one error each.
            deviceNames.append(name)
            var device = DeviceSetup(name: name, user: "")
            if let userNode = entries["user"], let user = self.name(userNode, what: "user") {
                if addingUsers, !users.contains(user) { users.append(user) }
                checkUser(user, at: userNode)
                device.user = user
            }
            if let node = entries["store"], let store: DeviceSetup.Store = choice(node, what: "store") { device.store = store }
            if let node = entries["autoFetchOnPush"], let auto = bool(node, what: "autoFetchOnPush") {
                device.autoFetchOnPush = auto
            }
            if let node = entries["retry"], let retry = retryPolicy(node) { device.retry = retry }
            if let node = entries["environment"], let environment: ContainerEnvironment = choice(node, what: "environment") {
                device.environment = environment
            }
            devices.append(device)
        }
    }

    // MARK: Who acts

    /// `device: X` or `user: Y`, exactly one of them.
    func principal(_ entries: Entries, in context: String) -> Principal? {
        switch (entries["device"], entries["user"]) {
        case (let deviceNode?, nil):
            return device(deviceNode).map(Principal.device)
        case (nil, let userNode?):
            return user(userNode).map(Principal.user)
        case (_?, let userNode?):
            error("\(context) takes 'device' or 'user', not both", hint: "a device acts as its own user", at: entries.keyNode("user") ?? userNode)
            return nil
        case (nil, nil):
            error("\(context) needs 'device' or 'user'", at: entries.node)
            return nil
        }
    }

    func defaultOwner(of principal: Principal?) -> String? {
        switch principal {
        case .device(let name)?: userOf(device: name)
        case .user(let name)?: name
        case nil: nil
        }
    }

    // MARK: Subscriptions

    static let subscriptionKeys = [
        "device", "user", "subscriptionID", "type", "database", "zone", "recordType", "predicate", "firesOn",
        "firesOnce", "notificationInfo",
    ]

    func subscription(_ node: Node, in context: String) -> SubscriptionSetup? {
        guard let entries = mapping(
            node, in: context, keys: Self.subscriptionKeys, required: ["subscriptionID", "type"],
            example: "{user: alice, subscriptionID: notes, type: zone, zone: Notes}")
        else { return nil }
        let owner = principal(entries, in: context)
        let id = entries["subscriptionID"].flatMap { name($0, what: "subscriptionID") }
        let type: SubscriptionType? = entries["type"].flatMap {
            choice($0, what: "subscription type", Self.subscriptionTypes, aliases: ["recordZone": .recordZone])
        }
        var ok = owner != nil && id != nil && type != nil
        var setup = SubscriptionSetup(owner: owner ?? .user(""), subscriptionID: id ?? "", type: type ?? .database)

        if let node = entries["database"] {
            if let database = database(node) { setup.database = database } else { ok = false }
        }
        if let node = entries["zone"] {
            if let zone = zoneRef(node) {
                setup.zone = zone
                noteZoneUse(zone, at: node)
            } else {
                ok = false
            }
        }
        if let node = entries["recordType"] {
            if let recordType = name(node, what: "recordType") { setup.recordType = recordType } else { ok = false }
        }
        if let node = entries["predicate"] {
            if let filters = predicate(node, defaultOwner: defaultOwner(of: owner)) { setup.predicate = QueryPredicate(filters) } else { ok = false }
        }
        var firesOnRead = true
        if let node = entries["firesOn"] {
            if let triggers = firesOn(node) { setup.options.formUnion(triggers) } else { ok = false; firesOnRead = false }
        }
        if let node = entries["firesOnce"] {
            if let once = bool(node, what: "firesOnce") {
                if once { setup.options.insert(.firesOnce) }
            } else {
                ok = false
            }
        }
        if let node = entries["notificationInfo"] {
            if let info = notificationInfo(node) { setup.notificationInfo = info } else { ok = false }
        }

        if let type {
            let here = entries.node
            switch type {
            case .recordZone:
                if setup.zone == nil, !entries.has("zone") {
                    error("a zone subscription needs 'zone'", hint: "name the zone it watches, for example zone: Notes", at: here)
                    ok = false
                }
            case .database:
                if let zoneKey = entries.keyNode("zone") {
                    error("a database subscription watches every zone; it takes no 'zone'", hint: "use type: zone to watch one zone", at: zoneKey)
                    ok = false
                }
            case .query:
                if !entries.has("recordType") {
                    error("a query subscription needs 'recordType'", hint: "for example recordType: Note", at: here)
                    ok = false
                }
                if !entries.has("firesOn") {
                    error("a query subscription needs 'firesOn'", hint: "for example firesOn: [create, update, delete]", at: here)
                    ok = false
                } else if firesOnRead, !setup.options.firesOnAnyChange, let firesNode = entries["firesOn"] {
                    error("firesOn of a query subscription must name at least one of create, update and delete", at: firesNode)
                    ok = false
                }
            }
            if type != .query {
                for key in ["predicate", "firesOn", "firesOnce"] {
                    if let keyNode = entries.keyNode(key) {
                        error("'\(key)' applies to query subscriptions only", hint: "use type: query, or remove '\(key)'", at: keyNode)
                        ok = false
                    }
                }
            }
        }
        return ok ? setup : nil
    }

    /// The subscription types by their scenario (and wire) spelling, in the order messages list them.
    static let subscriptionTypes: [(String, SubscriptionType)] = [
        ("database", .database), ("zone", .recordZone), ("query", .query),
    ]

    /// The `firesOn` events and the options they set.
    static let firesOnEvents: [(String, QuerySubscription.Options)] = [
        ("create", .firesOnRecordCreation), ("update", .firesOnRecordUpdate), ("delete", .firesOnRecordDeletion),
    ]

    private func firesOn(_ node: Node) -> QuerySubscription.Options? {
        if case .sequence(let sequence) = node, sequence.isEmpty { return [] }
        guard let items = list(node, what: "firesOn") else { return nil }
        var options: QuerySubscription.Options = []
        var ok = true
        for item in items {
            if let event = choice(item, what: "firesOn event", Self.firesOnEvents) {
                options.formUnion(event)
            } else {
                ok = false
            }
        }
        return ok ? options : nil
    }

    private func notificationInfo(_ node: Node) -> NotificationInfo? {
        guard let entries = mapping(
            node, in: "notificationInfo", keys: ["alertBody", "shouldSendContentAvailable", "desiredKeys", "collapseIDKey"],
            example: "{shouldSendContentAvailable: true}")
        else { return nil }
        var info = NotificationInfo()
        var ok = true
        if let node = entries["alertBody"] {
            if let text = text(node, what: "alertBody") { info.alertBody = text } else { ok = false }
        }
        if let node = entries["shouldSendContentAvailable"] {
            if let flag = bool(node, what: "shouldSendContentAvailable") { info.shouldSendContentAvailable = flag } else { ok = false }
        }
        if let node = entries["desiredKeys"] {
            if let keys = fieldNames(node, what: "desiredKeys") { info.desiredKeys = keys } else { ok = false }
        }
        if let node = entries["collapseIDKey"] {
            if let key = name(node, what: "collapseIDKey") { info.collapseIDKey = key } else { ok = false }
        }
        return ok ? info : nil
    }

    /// Field names: a list (possibly empty), or one name.
    func fieldNames(_ node: Node, what: String) -> [String]? {
        if case .sequence(let sequence) = node, sequence.isEmpty { return [] }
        guard let names = names(node, what: what) else { return nil }
        var ok = true
        for (name, item) in zip(names, list(node, what: what) ?? []) where !Self.isValidFieldName(name) {
            error("'\(name)' in \(what) is not a valid field name", hint: "use ASCII letters, digits and '_', starting with a letter", at: item)
            ok = false
        }
        return ok ? names : nil
    }

    private func predicate(_ node: Node, defaultOwner: String?) -> [QueryFilter]? {
        if case .sequence(let sequence) = node, sequence.isEmpty { return [] }
        guard let items = list(node, what: "predicate") else { return nil }
        var filters: [QueryFilter] = []
        var ok = true
        for item in items {
            guard let entries = mapping(
                item, in: "predicate filter", keys: ["field", "comparator", "value"], required: ["field", "comparator", "value"],
                example: "{field: done, comparator: EQUALS, value: 0}"),
                let fieldNode = entries["field"], let comparatorNode = entries["comparator"], let valueNode = entries["value"]
            else {
                ok = false
                continue
            }
            let field = name(fieldNode, what: "field")
            if let field, !Self.isValidFieldName(field) {
                error("'\(field)' is not a valid field name", hint: "use ASCII letters, digits and '_', starting with a letter", at: fieldNode)
                ok = false
            }
            let comparator = self.comparator(comparatorNode)
            var value: FieldValue?
            if Self.isNull(valueNode) {
                error("a filter needs a value to compare with", at: valueNode)
            } else {
                value = fieldValue(valueNode, what: "the value of '\(field ?? "?")'", defaultOwner: defaultOwner)
            }
            guard let field, let comparator, let value else {
                ok = false
                continue
            }
            if let problem = Self.problem(with: comparator, value) {
                error("\(comparator.rawValue) \(problem), got \(value.typeName) \(value.displayString)", at: valueNode)
                ok = false
                continue
            }
            filters.append(QueryFilter(field, comparator, value))
        }
        return ok ? filters : nil
    }

    private func comparator(_ node: Node) -> QueryComparator? {
        // Accept any letter case (`equals`, `beginsWith`) for the wire spelling.
        if case .scalar(let scalar) = node {
            let squashed = scalar.string.replacingOccurrences(of: "_", with: "").lowercased()
            if let match = QueryComparator.allCases.first(where: {
                $0.rawValue.replacingOccurrences(of: "_", with: "").lowercased() == squashed
            }) {
                return match
            }
        }
        return choice(node, what: "comparator")
    }

    /// Why a filter's value does not suit its comparator, or `nil`.
    static func problem(with comparator: QueryComparator, _ value: FieldValue) -> String? {
        switch comparator {
        case .in, .notIn:
            if case .list = value { return nil }
            return "needs a list of values"
        case .beginsWith:
            if case .string = value { return nil }
            return "needs a STRING prefix"
        case .listContains:
            if case .list = value { return "needs a single value to look for in a list field" }
            return nil
        case .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals:
            switch value {
            case .string, .int64, .double, .timestamp: return nil
            default: return "needs a STRING, INT64, DOUBLE or TIMESTAMP value to order by"
            }
        case .equals, .notEquals:
            return nil
        }
    }
}
