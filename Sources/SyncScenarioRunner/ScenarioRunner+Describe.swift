import SyncCore
import SyncScenario

extension ScenarioRunner {
    /// A step in a few words, for transcripts and the inspector.
    public func summary(of kind: StepKind) -> String {
        switch kind {
        case .say:
            return "narrative"
        case .ask(let question):
            return "a question for the room: \(question.question)"
        case .createZone(let a):
            return "\(a.device) creates zone \(a.zone)"
        case .deleteZone(let a):
            return "\(a.device) deletes zone \(a.zone)\(suffix(a.database))"
        case .purgeZone(let a):
            return "\(a.device)'s user deletes the app's data in zone \(a.zone) from Settings"
        case .encryptedDataReset(let device):
            return "\(device)'s user resets their encrypted data"
        case .shareZone(let a):
            return "\(a.device) shares zone \(a.zone) with \(a.participants.joined(separator: ", "))"
        case .revokeShare(let a):
            return "\(a.device) stops sharing zone \(a.zone) with \(a.participants.joined(separator: ", "))"
        case .saveShare(let a):
            let invited = a.participants.map { "\($0.user) \($0.permission)" }.joined(separator: ", ")
            return "\(a.device) saves a CKShare of zone \(a.zone) for \(invited.isEmpty ? "no one" : invited), public \(a.publicPermission)"
        case .resolveShare(let a):
            return "\(a.device) resolves the share of zone \(a.zone) from its URL (records/resolve)"
        case .acceptShare(let a):
            return "\(a.device) accepts the share of zone \(a.zone) (records/accept)"
        case .removeParticipant(let a):
            return "\(a.device) removes \(a.participants.map(\.user).joined(separator: ", ")) from the CKShare of zone \(a.zone)"
        case .save(let a):
            var changes = a.fields.sorted { $0.name < $1.name }.map { "\($0.name)=\($0.value.displayString)" }
            changes += a.removedFields.map { "\($0) removed" }
            let policy = a.savePolicy == .ifServerRecordUnchanged ? "" : ", savePolicy \(a.savePolicy.rawValue)"
            let type = a.recordType.map { " (\($0))" } ?? ""
            return "\(a.device) saves \(a.recordName)\(type) in \(a.zone)\(suffix(a.database)): \(changes.joined(separator: " "))\(policy)"
        case .delete(let a):
            return "\(a.device) deletes \(a.recordName) in \(a.zone)\(suffix(a.database))"
        case .send(let device, let merge):
            return "\(device) sends its pending changes" + (merge ? "" : " and does not merge conflicts")
        case .fetch(let a):
            var words: [String] = []
            switch a.target {
            case .databaseChanges:
                words.append("\(a.device) fetches \(a.database.rawValue) database changes")
            case .zoneChanges(let zones):
                let names = zones.map(\.description).joined(separator: ", ")
                words.append("\(a.device) fetches the changes of zone\(zones.count == 1 ? "" : "s") \(names)\(suffix(a.database))")
            }
            switch a.token {
            case .cached: words.append("from its cached token")
            case .noToken: words.append("from no token")
            case .captured(let name): words.append("from token '\(name)'")
            }
            var options: [String] = []
            if let limit = a.resultsLimit { options.append("resultsLimit \(limit)") }
            if !a.fetchAllChanges { options.append("one batch") }
            if let keys = a.desiredKeys { options.append("desiredKeys [\(keys.joined(separator: ", "))]") }
            if let n = a.interruptAfter { options.append("interrupted after \(n) batch\(n == 1 ? "" : "es")") }
            if let crash = a.crash {
                options.append(crash.storing == .tokenFirst
                    ? "killed after storing batch \(crash.batch)'s token, before its records"
                    : "killed before batch \(crash.batch)'s transaction commits")
            }
            if let name = a.capture { options.append("capture '\(name)'") }
            return words.joined(separator: " ") + (options.isEmpty ? "" : " (\(options.joined(separator: ", ")))")
        case .sync(let device):
            return "\(device) syncs: sends, then fetches with its cached tokens"
        case .subscribe(let s):
            return "\(who(s.owner)) subscribes: \(s.subscriptionID) (\(s.type.rawValue), \(s.database.rawValue) database)"
        case .unsubscribe(let a):
            return "\(who(a.owner)) deletes subscription \(a.subscriptionID)\(suffix(a.database))"
        case .online(let device):
            return "\(device) comes back online"
        case .offline(let device):
            return "\(device) goes offline"
        case .advance(let ms):
            return "time passes: \(TranscriptFormatter.seconds(ms))"
        case .compact(let a):
            let what = a.zone.map { "zone \($0)" } ?? (a.database.map { "the \($0.rawValue) database" } ?? "every database")
            return "the server compacts the history of \(what) of \(who(a.principal)), keeping the last \(Self.count(a.keepLast, "change"))"
        case .burst(let a):
            let send = switch a.send {
            case .each: "each sent on its own"
            case .end: "sent together"
            case .none: "not sent"
            }
            let every = a.intervalMs > 0 ? ", \(TranscriptFormatter.seconds(a.intervalMs)) apart" : ""
            return "\(a.device) saves \(a.count) \(a.recordType) records (\(a.recordName(1))…) in \(a.zone), \(send)\(every)"
        case .modifyRecords(let a):
            let zone = a.zone.map { " in \($0)" } ?? ""
            let size = a.perRequest.map { "at most \($0) per request" } ?? "all in one request"
            return "\(a.device) sends its pending record changes\(zone) itself with records/modify (\(size)), no sync engine"
        case .signIn(let a):
            return "\(a.user) signs in on \(a.device)"
        case .checkAccount(let device):
            return "\(device) checks who is signed in and starts clean if the account changed"
        case .deploySchema:
            return "the team deploys the development schema to production"
        case .importSchema(let a):
            return "the team imports a schema into \(a.environment.rawValue)"
        case .query(let a):
            var words = ["\(a.device) queries \(a.recordType) records in \(a.zone)"]
            if !a.filter.isEmpty { words.append("where " + a.filter.map { "\($0.name) = \($0.value.displayString)" }.joined(separator: " and ")) }
            if !a.sortBy.isEmpty { words.append("sorted by \(a.sortBy.joined(separator: ", "))") }
            return words.joined(separator: " ")
        case .fault, .clearFaults:
            return faultSummary(of: kind)
        case .expect(let expectation):
            return "check \(expectation.name)"
        }
    }

    private func suffix(_ scope: DatabaseScope) -> String {
        scope == .private ? "" : " (\(scope.rawValue) database)"
    }

    private func who(_ principal: Principal) -> String {
        switch principal {
        case .device(let name): name
        case .user(let name): name
        }
    }
}
