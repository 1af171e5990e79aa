import Foundation
import SyncCore
import Yams

extension ScenarioReader {
    static let stepNames = [
        "say", "ask", "createZone", "deleteZone", "purgeZone", "encryptedDataReset", "shareZone", "revokeShare",
        "saveShare", "resolveShare", "acceptShare", "removeParticipant", "save",
        "delete", "send", "fetch", "sync", "subscribe", "unsubscribe", "online", "offline", "advance", "compact",
        "burst", "modifyRecords", "signIn", "checkAccount", "fault", "clearFaults", "deploySchema", "importSchema", "query", "expect",
    ]

    /// Keys a step may carry beside its name: the client code it stands
    /// for, and a note for the presenter.
    static let stepAttachments = ["code", "note"]

    /// Reserved `token:` words, which cannot name a captured token.
    static let reservedTokenNames = ["cached", "nil", "null"]

    func steps(_ node: Node) -> [Step] {
        guard case .sequence(let sequence) = node else {
            if Self.isNull(node) { return [] }
            error(
                "steps must be a list, one '- step: …' per line, got \(Self.describe(node))",
                hint: "for example '- send: iPhone'", at: node)
            return []
        }
        var result: [Step] = []
        for item in sequence {
            switch item {
            case .mapping(let mapping):
                var first: String?
                var firstStep: Int?
                var code: StepCode?
                var note: String?
                for (keyNode, value) in mapping {
                    guard case .scalar(let keyScalar) = keyNode, !Self.isNull(keyNode) else {
                        error("a step must start with its name, got \(Self.describe(keyNode))", at: keyNode)
                        continue
                    }
                    let name = keyScalar.string
                    // `code:` and `note:` go with the step beside them.
                    if name == "code" {
                        code = stepCode(value)
                        continue
                    }
                    if name == "note" {
                        note = text(value, what: "note").map(Self.trimmed)
                        continue
                    }
                    if let first {
                        error(
                            "one step cannot do both '\(first)' and '\(name)'",
                            hint: "start '\(name)' on its own line with '- '", at: keyNode)
                    }
                    first = first ?? name
                    let before = result.count
                    result += step(named: name, keyNode: keyNode, value: value)
                    if firstStep == nil, result.count > before { firstStep = before }
                }
                if let firstStep {
                    result[firstStep].code = code
                    result[firstStep].note = note
                } else if first == nil {
                    error(
                        code != nil || note != nil ? "code and note go with a step" : "a step is empty",
                        hint: code != nil || note != nil ? "write them under a step, for example '- fetch: …' then '  note: …'" : "for example '- send: iPhone'",
                        at: item)
                }
            case .scalar(let scalar) where Self.stepNames.contains(scalar.string):
                error(
                    "step '\(scalar.string)' needs a value",
                    hint: "write it as '- \(scalar.string): …', for example '- send: iPhone'", at: item)
            default:
                error(
                    "a step must be a mapping such as '- send: iPhone', got \(Self.describe(item))", at: item)
            }
        }
        return result
    }

    /// The step (or, for `expect`, the steps) one key of the list writes.
    private func step(named name: String, keyNode: Node, value: Node) -> [Step] {
        let here = location(of: keyNode)
        currentStepIndex += 1
        if name == "expect" {
            var result: [Step] = []
            for (offset, read) in expectations(value).enumerated() {
                if offset > 0 { currentStepIndex += 1 }
                let kind = read.expectation.map(StepKind.expect)
                readSteps.append(ReadStep(index: currentStepIndex, kind: kind, location: read.location))
                if let kind { result.append(Step(kind, at: read.location)) }
            }
            return result
        }
        let kind: StepKind?
        switch name {
        case "say": kind = say(value)
        case "ask": kind = ask(value)
        case "createZone", "deleteZone", "purgeZone": kind = zoneStep(name, value)
        case "encryptedDataReset": kind = deviceOnly(value, step: name).map(StepKind.encryptedDataReset)
        case "shareZone", "revokeShare": kind = shareStep(name, value)
        case "saveShare", "resolveShare", "acceptShare", "removeParticipant": kind = zoneShareStep(name, value)
        case "save": kind = save(value)
        case "delete": kind = delete(value)
        case "send": kind = send(value)
        case "fetch": kind = fetch(value)
        case "sync": kind = deviceOnly(value, step: name).map(StepKind.sync)
        case "subscribe": kind = subscription(value, in: "subscribe").map(StepKind.subscribe)
        case "unsubscribe": kind = unsubscribe(value)
        case "online": kind = deviceOnly(value, step: name).map(StepKind.online)
        case "offline": kind = deviceOnly(value, step: name).map(StepKind.offline)
        case "advance": kind = duration(value, what: "advance").map(StepKind.advance)
        case "compact": kind = compact(value)
        case "burst": kind = burst(value)
        case "modifyRecords": kind = modifyRecords(value)
        case "signIn": kind = signIn(value)
        case "checkAccount": kind = deviceOnly(value, step: name).map(StepKind.checkAccount)
        case "fault": kind = faultPlan(value, in: "fault").map(StepKind.fault)
        case "clearFaults": kind = clearFaults(value)
        case "deploySchema": kind = deploySchema(value)
        case "importSchema": kind = importSchema(value)
        case "query": kind = query(value)
        default:
            error(
                "unknown step '\(name)'",
                hint: Suggestions.hint(
                    for: name, in: Self.stepNames, otherwise: "steps are \(Suggestions.list(Self.stepNames, conjunction: "or"))"),
                at: keyNode)
            return []
        }
        readSteps.append(ReadStep(index: currentStepIndex, kind: kind, location: here))
        guard let kind else { return [] }
        return [Step(kind, at: here)]
    }

    // MARK: Simple steps

    private func say(_ node: Node) -> StepKind? {
        guard let text = text(node, what: "say") else { return nil }
        let trimmed = Self.trimmed(text)
        guard !trimmed.isEmpty else {
            error("say has nothing to say", at: node)
            return nil
        }
        return .say(trimmed)
    }

    /// `ask: {question: …, choices: [a, b, c], answer: 2, why: …}`; the
    /// answer is a choice's number (from 1), its letter, or its text.
    private func ask(_ node: Node) -> StepKind? {
        guard let entries = mapping(node, in: "ask", keys: ["question", "choices", "answer", "why"], required: ["question", "choices", "answer"]) else {
            return nil
        }
        guard let questionNode = entries["question"], let question = text(questionNode, what: "question") else { return nil }
        guard let choicesNode = entries["choices"], case .sequence(let items) = choicesNode, items.count >= 2 else {
            error("ask needs at least two choices, as a list", hint: "for example choices: [the records, nothing, an error]", at: entries["choices"] ?? node)
            return nil
        }
        let choices = items.compactMap { text($0, what: "a choice") }.map(Self.trimmed)
        guard choices.count == items.count, let answerNode = entries["answer"], let answerText = text(answerNode, what: "answer") else { return nil }
        let wanted = Self.trimmed(answerText)
        var answer: Int?
        if let number = Int(wanted), choices.indices.contains(number - 1) { answer = number - 1 }
        if answer == nil, wanted.count == 1, let index = (0..<choices.count).first(where: { AskAction.letter($0) == wanted.uppercased() }) {
            answer = index
        }
        if answer == nil { answer = choices.firstIndex(of: wanted) }
        guard let answer else {
            error(
                "the answer '\(wanted)' is none of the \(choices.count) choices",
                hint: "give its number (1 to \(choices.count)), its letter (A, B, …) or its text", at: answerNode)
            return nil
        }
        let why = entries["why"].flatMap { text($0, what: "why") }.map(Self.trimmed)
        return .ask(AskAction(question: Self.trimmed(question), choices: choices, answer: answer, explanation: why))
    }

    /// `code: |` (the code to write) or `code: {title: …, wrong: |, fixed: |}`.
    private func stepCode(_ node: Node) -> StepCode? {
        if case .mapping = node {
            guard let entries = mapping(node, in: "code", keys: ["title", "wrong", "fixed"], required: ["fixed"]),
                  let fixedNode = entries["fixed"], let fixed = text(fixedNode, what: "fixed") else { return nil }
            let wrong = entries["wrong"].flatMap { text($0, what: "wrong") }
            let title = entries["title"].flatMap { text($0, what: "title") } ?? (wrong == nil ? "Swift" : "The mistake, and the fix")
            return StepCode(title: title, fixed: Self.code(fixed), wrong: wrong.map(Self.code))
        }
        guard let fixed = text(node, what: "code") else { return nil }
        return StepCode(title: "Swift", fixed: Self.code(fixed))
    }

    /// Code as written in a block: its lines kept, trailing blank lines dropped.
    static func code(_ text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    /// `send: iPhone` or `send: {device: iPhone}`.
    func deviceOnly(_ node: Node, step: String) -> String? {
        if case .mapping = node {
            guard let entries = mapping(node, in: step, keys: ["device"], required: ["device"]),
                  let deviceNode = entries["device"]
            else { return nil }
            return device(deviceNode)
        }
        if Self.isNull(node) {
            error("\(step) needs a device", hint: "for example '- \(step): iPhone'", at: node)
            return nil
        }
        return device(node)
    }

    /// `send: iPhone` or `send: {device: iPhone, mergeConflicts: false}`.
    private func send(_ node: Node) -> StepKind? {
        guard case .mapping = node else {
            return deviceOnly(node, step: "send").map { StepKind.send(device: $0) }
        }
        guard let entries = mapping(
            node, in: "send", keys: ["device", "mergeConflicts"], required: ["device"],
            example: "{device: Mac, mergeConflicts: false}")
        else { return nil }
        let device = entries["device"].flatMap { self.device($0) }
        var merge = true
        if let node = entries["mergeConflicts"] {
            guard let flag = bool(node, what: "mergeConflicts") else { return nil }
            merge = flag
        }
        return device.map { StepKind.send(device: $0, mergeConflicts: merge) }
    }

    func noteZoneUse(_ zone: ZoneRef, at node: Node) {
        zoneUses.append(ZoneUse(zone: zone, location: location(of: node), stepIndex: currentStepIndex))
    }

    private func zoneStep(_ step: String, _ node: Node) -> StepKind? {
        let keys = step == "createZone" ? ["device", "zone"] : ["device", "zone", "database"]
        guard let entries = mapping(node, in: step, keys: keys, required: ["device", "zone"], example: "{device: iPhone, zone: Notes}")
        else { return nil }
        let device = entries["device"].flatMap { self.device($0) }
        let zone = entries["zone"].flatMap { zoneRef($0) }
        var database = DatabaseScope.private
        var ok = true
        if let node = entries["database"] {
            if let scope = self.database(node) { database = scope } else { ok = false }
        }
        guard ok, let device, let zone else { return nil }
        let action = ZoneAction(device: device, database: database, zone: zone)
        switch step {
        case "createZone":
            createdZoneNames.append(zone.zoneName)
            return .createZone(action)
        case "deleteZone":
            if let node = entries["zone"] { noteZoneUse(zone, at: node) }
            return .deleteZone(action)
        default:
            if let node = entries["zone"] { noteZoneUse(zone, at: node) }
            return .purgeZone(action)
        }
    }

    private func shareStep(_ step: String, _ node: Node) -> StepKind? {
        guard let entries = mapping(
            node, in: step, keys: ["device", "zone", "participants"], required: ["device", "zone", "participants"],
            example: "{device: iPhone, zone: Notes, participants: [bob]}")
        else { return nil }
        let device = entries["device"].flatMap { self.device($0) }
        let zone = entries["zone"].flatMap { zoneRef($0) }
        var participants: [String]?
        if let node = entries["participants"], let names = names(node, what: "participants") {
            let items = list(node, what: "participants") ?? []
            var ok = true
            for (name, item) in zip(names, items) where !checkUser(name, at: item) { ok = false }
            if names.isEmpty {
                error("\(step) needs at least one participant", at: node)
                ok = false
            }
            if ok { participants = names }
        }
        guard let device, let zone, let participants else { return nil }
        if let node = entries["zone"] { noteZoneUse(zone, at: node) }
        let action = ShareAction(device: device, zone: zone, participants: participants)
        return step == "shareZone" ? .shareZone(action) : .revokeShare(action)
    }

    // MARK: Records

    private func save(_ node: Node) -> StepKind? {
        guard let entries = mapping(
            node, in: "save", keys: ["device", "database", "zone", "record", "type", "fields", "savePolicy"],
            required: ["device", "zone", "record"], example: "{device: iPhone, zone: Notes, record: note-1, type: Note, fields: {title: Groceries}}")
        else { return nil }
        let device = entries["device"].flatMap { self.device($0) }
        let zone = entries["zone"].flatMap { zoneRef($0) }
        let recordName = entries["record"].flatMap { name($0, what: "record") }
        var ok = true
        var database = DatabaseScope.private
        if let node = entries["database"] {
            if let scope = self.database(node) { database = scope } else { ok = false }
        }
        var recordType: String?
        if let node = entries["type"] {
            recordType = name(node, what: "type")
            if recordType == nil { ok = false }
        }
        var parsed = ParsedFields()
        if let node = entries["fields"] {
            if let fields = fields(node, in: "save", defaultOwner: userOf(device: device), allowRemoval: true) {
                parsed = fields
            } else {
                ok = false
            }
        }
        var policy = RecordSavePolicy.ifServerRecordUnchanged
        if let node = entries["savePolicy"] {
            if let chosen = choice(node, what: "savePolicy", [
                ("ifServerRecordUnchanged", RecordSavePolicy.ifServerRecordUnchanged), ("changedKeys", .changedKeys),
                ("allKeys", .allKeys),
            ]) {
                policy = chosen
            } else {
                ok = false
            }
        }
        guard ok, let device, let zone, let recordName else { return nil }
        if let node = entries["zone"] { noteZoneUse(zone, at: node) }
        return .save(SaveAction(
            device: device, database: database, zone: zone, recordName: recordName, recordType: recordType,
            fields: parsed.fields, removedFields: parsed.removed, savePolicy: policy))
    }

    /// `- deploySchema:` (no value, or `{}`).
    private func deploySchema(_ node: Node) -> StepKind? {
        if Self.isNull(node) { return .deploySchema }
        guard mapping(node, in: "deploySchema", keys: [], required: [], example: "- deploySchema:") != nil else { return nil }
        return .deploySchema
    }

    /// `- importSchema: {environment: production, schema: "DEFINE SCHEMA …"}`.
    private func importSchema(_ node: Node) -> StepKind? {
        guard let entries = mapping(
            node, in: "importSchema", keys: ["environment", "schema"], required: ["schema"],
            example: "{environment: development, schema: \"DEFINE SCHEMA RECORD TYPE Note (title STRING QUERYABLE);\"}")
        else { return nil }
        var environment = ContainerEnvironment.development
        if let node = entries["environment"] {
            guard let chosen: ContainerEnvironment = choice(node, what: "environment") else { return nil }
            environment = chosen
        }
        guard let schemaNode = entries["schema"], let schema = text(schemaNode, what: "schema") else { return nil }
        do {
            _ = try SchemaLanguage.parse(schema)
        } catch {
            self.error("the schema does not parse: line \(error)", at: schemaNode)
            return nil
        }
        return .importSchema(SchemaImportAction(environment: environment, schema: schema))
    }

    /// `- query: {device: iPhone, zone: Notes, type: Note, filter: {title: Groceries}, sort: [___createTime]}`.
    private func query(_ node: Node) -> StepKind? {
        guard let entries = mapping(
            node, in: "query", keys: ["device", "zone", "type", "filter", "sort"], required: ["device", "zone", "type"],
            example: "{device: iPhone, zone: Notes, type: Note, filter: {title: Groceries}, sort: [title]}")
        else { return nil }
        let device = entries["device"].flatMap { self.device($0) }
        let zone = entries["zone"].flatMap { zoneRef($0) }
        let recordType = entries["type"].flatMap { name($0, what: "type") }
        var ok = true
        var filter = RecordFields()
        if let node = entries["filter"] {
            if let parsed = fields(node, in: "query", defaultOwner: userOf(device: device), allowRemoval: false) {
                filter = parsed.fields
            } else {
                ok = false
            }
        }
        var sortBy: [String] = []
        if let node = entries["sort"] {
            if let names = list(node, what: "sort") {
                for item in names {
                    if let field = name(item, what: "sort field") { sortBy.append(field) } else { ok = false }
                }
            } else {
                ok = false
            }
        }
        guard ok, let device, let zone, let recordType else { return nil }
        return .query(QueryAction(device: device, zone: zone, recordType: recordType, filter: filter, sortBy: sortBy))
    }

    private func delete(_ node: Node) -> StepKind? {
        guard let entries = mapping(
            node, in: "delete", keys: ["device", "database", "zone", "record"], required: ["device", "zone", "record"],
            example: "{device: iPhone, zone: Notes, record: note-1}")
        else { return nil }
        let device = entries["device"].flatMap { self.device($0) }
        let zone = entries["zone"].flatMap { zoneRef($0) }
        let recordName = entries["record"].flatMap { name($0, what: "record") }
        var database = DatabaseScope.private
        var ok = true
        if let node = entries["database"] {
            if let scope = self.database(node) { database = scope } else { ok = false }
        }
        guard ok, let device, let zone, let recordName else { return nil }
        if let node = entries["zone"] { noteZoneUse(zone, at: node) }
        return .delete(DeleteAction(device: device, database: database, zone: zone, recordName: recordName))
    }

    // MARK: Fetch

    private func fetch(_ node: Node) -> StepKind? {
        // `fetch: Mac`: database changes with the cached token.
        if case .scalar = node, !Self.isNull(node) {
            return device(node).map { .fetch(FetchAction(device: $0, target: .databaseChanges)) }
        }
        guard let entries = mapping(
            node, in: "fetch",
            keys: [
                "device", "database", "zone", "zones", "token", "resultsLimit", "fetchAllChanges", "desiredKeys", "capture",
                "interruptAfter", "crash",
            ],
            required: ["device"], example: "{device: Mac, zone: Notes, token: nil}")
        else { return nil }
        var ok = true
        let device = entries["device"].flatMap { self.device($0) }
        var action = FetchAction(device: device ?? "", target: .databaseChanges)
        if let node = entries["database"] {
            if let scope = database(node) { action.database = scope } else { ok = false }
        }
        switch (entries["zone"], entries["zones"]) {
        case (let zoneNode?, nil):
            if let zone = zoneRef(zoneNode) {
                action.target = .zoneChanges([zone])
                noteZoneUse(zone, at: zoneNode)
            } else {
                ok = false
            }
        case (nil, let zonesNode?):
            guard let items = list(zonesNode, what: "zones") else { ok = false; break }
            var zones: [ZoneRef] = []
            for item in items {
                if let zone = zoneRef(item) {
                    zones.append(zone)
                    noteZoneUse(zone, at: item)
                } else {
                    ok = false
                }
            }
            if items.isEmpty {
                error("zones must name at least one zone", hint: "leave out 'zones' to fetch database changes", at: zonesNode)
                ok = false
            }
            action.target = .zoneChanges(zones)
        case (_?, _?):
            error("fetch takes 'zone' or 'zones', not both", at: entries.keyNode("zones") ?? entries.node)
            ok = false
        case (nil, nil):
            break
        }
        if let node = entries["token"] {
            if let token = tokenChoice(node) { action.token = token } else { ok = false }
        }
        if let node = entries["resultsLimit"] {
            if let limit = wholeNumber(node, what: "resultsLimit", atLeast: 1) { action.resultsLimit = limit } else { ok = false }
        }
        if let node = entries["fetchAllChanges"] {
            if let all = bool(node, what: "fetchAllChanges") { action.fetchAllChanges = all } else { ok = false }
        }
        if let node = entries["interruptAfter"] {
            if let batches = wholeNumber(node, what: "interruptAfter", atLeast: 1) {
                action.interruptAfter = batches
                if action.fetchAllChanges == false {
                    error(
                        "interruptAfter stops a fetch of several batches, but fetchAllChanges: false fetches only one",
                        hint: "remove one of them", at: node)
                    ok = false
                }
            } else {
                ok = false
            }
        }
        if let node = entries["crash"] {
            if case .databaseChanges = action.target {
                error(
                    "crash applies to zone changes, whose batches carry records",
                    hint: "add 'zone:' to the fetch", at: entries.keyNode("crash") ?? node)
                ok = false
            } else if let crash = fetchCrash(node) {
                if !action.fetchAllChanges && crash.batch > 1 {
                    error("fetchAllChanges: false fetches one batch, so the app cannot be killed during batch \(crash.batch)", at: node)
                    ok = false
                }
                if action.interruptAfter != nil {
                    error("a fetch is either interrupted or crashes, not both", hint: "remove 'interruptAfter' or 'crash'", at: node)
                    ok = false
                }
                action.crash = crash
            } else {
                ok = false
            }
        }
        if let node = entries["desiredKeys"] {
            if case .databaseChanges = action.target, entries["zone"] == nil, entries["zones"] == nil {
                error(
                    "desiredKeys applies to zone changes only",
                    hint: "add 'zone:' to fetch a zone's records, or remove 'desiredKeys'", at: entries.keyNode("desiredKeys") ?? node)
                ok = false
            } else if let keys = fieldNames(node, what: "desiredKeys") {
                action.desiredKeys = keys
            } else {
                ok = false
            }
        }
        if let node = entries["capture"] {
            if let name = name(node, what: "capture") {
                if Self.reservedTokenNames.contains(name) {
                    error("'\(name)' cannot name a captured token", hint: "it means something else in 'token:'; pick another name", at: node)
                    ok = false
                } else {
                    action.capture = name
                    captures.append(TokenUse(name: name, location: location(of: node), stepIndex: currentStepIndex))
                }
            } else {
                ok = false
            }
        }
        guard ok, device != nil else { return nil }
        return .fetch(action)
    }

    /// `cached`, `nil` (or `null`, `~`), or the name of a captured token.
    private func tokenChoice(_ node: Node) -> TokenChoice? {
        if Self.isNull(node) { return .noToken }
        guard let name = name(node, what: "token") else { return nil }
        switch name {
        case "cached": return .cached
        case "nil", "null": return .noToken
        default:
            tokenUses.append(TokenUse(name: name, location: location(of: node), stepIndex: currentStepIndex))
            return .captured(name)
        }
    }

    // MARK: Subscriptions, history, writers

    private func unsubscribe(_ node: Node) -> StepKind? {
        guard let entries = mapping(
            node, in: "unsubscribe", keys: ["device", "user", "subscriptionID", "database"], required: ["subscriptionID"],
            example: "{user: alice, subscriptionID: notes}")
        else { return nil }
        let owner = principal(entries, in: "unsubscribe")
        let id = entries["subscriptionID"].flatMap { name($0, what: "subscriptionID") }
        var database = DatabaseScope.private
        var ok = true
        if let node = entries["database"] {
            if let scope = self.database(node) { database = scope } else { ok = false }
        }
        guard ok, let owner, let id else { return nil }
        return .unsubscribe(UnsubscribeAction(owner: owner, subscriptionID: id, database: database))
    }

    private func compact(_ node: Node) -> StepKind? {
        guard let entries = mapping(
            node, in: "compact", keys: ["device", "user", "database", "zone", "keepLast"],
            example: "{user: alice, zone: Notes, keepLast: 0}")
        else { return nil }
        let principal = principal(entries, in: "compact")
        var action = CompactAction(principal: principal ?? .user(""))
        var ok = principal != nil
        if let node = entries["database"] {
            if let scope = database(node) { action.database = scope } else { ok = false }
        }
        if let node = entries["zone"] {
            if let zone = zoneRef(node) {
                action.zone = zone
                if action.database == nil { action.database = .private }
                noteZoneUse(zone, at: node)
            } else {
                ok = false
            }
        }
        if let node = entries["keepLast"] {
            if let keep = wholeNumber(node, what: "keepLast", atLeast: 0) { action.keepLast = keep } else { ok = false }
        }
        return ok ? .compact(action) : nil
    }

    static let maximumBurst = 10_000

    private func burst(_ node: Node) -> StepKind? {
        guard let entries = mapping(
            node, in: "burst",
            keys: ["device", "database", "zone", "count", "type", "prefix", "fields", "send", "every"],
            required: ["device", "zone", "count"], example: "{device: iPhone, zone: Notes, count: 20, every: 100ms}")
        else { return nil }
        let device = entries["device"].flatMap { self.device($0) }
        let zone = entries["zone"].flatMap { zoneRef($0) }
        var ok = true
        var count: Int?
        if let node = entries["count"], let n = wholeNumber(node, what: "count", atLeast: 1) {
            if n > Self.maximumBurst {
                error("count must be at most \(Self.maximumBurst), got \(n)", hint: "a lesson needs far fewer saves to make its point", at: node)
            } else {
                count = n
            }
        }
        var database = DatabaseScope.private
        if let node = entries["database"] {
            if let scope = self.database(node) { database = scope } else { ok = false }
        }
        var recordType = "Item"
        if let node = entries["type"] {
            if let type = name(node, what: "type") { recordType = type } else { ok = false }
        }
        var prefix: String?
        if let node = entries["prefix"] {
            prefix = name(node, what: "prefix")
            if prefix == nil { ok = false }
        }
        var parsed = ParsedFields()
        if let node = entries["fields"] {
            if let fields = fields(node, in: "burst", defaultOwner: userOf(device: device), allowRemoval: false) {
                parsed = fields
            } else {
                ok = false
            }
        }
        var send = BurstAction.SendMode.each
        if let node = entries["send"] {
            if let mode: BurstAction.SendMode = choice(node, what: "send mode") { send = mode } else { ok = false }
        }
        var interval: Milliseconds = 0
        if let node = entries["every"] {
            if let ms = duration(node, what: "every") { interval = ms } else { ok = false }
        }
        guard ok, let device, let zone, let count else { return nil }
        if let node = entries["zone"] { noteZoneUse(zone, at: node) }
        return .burst(BurstAction(
            device: device, database: database, zone: zone, count: count, recordType: recordType,
            recordNamePrefix: prefix, fields: parsed.fields, send: send, intervalMs: interval))
    }
}
