import SyncCore
import SyncScenario
import SyncServer
import SyncSimulation
import SyncWorlds

extension ScenarioRunner {
    /// Evaluates a check; returns what differed, or `nil` when it holds.
    func evaluate(_ expectation: Expectation) async -> String? {
        do {
            switch expectation {
            case .cache(let check): return try await evaluate(check)
            case .lastFetch(let check): return evaluate(check)
            case .error(let check): return evaluate(check)
            case .notifications(let check): return try evaluate(check)
            case .tokens(let check): return try await evaluate(check)
            case .lastSend(let check): return evaluate(check)
            case .pending(let check): return try evaluate(check)
            case .subscriptions(let check): return try await evaluate(check)
            case .retries(let check): return try evaluate(check)
            }
        } catch {
            return "the check could not be made: \(Self.describe(error))"
        }
    }

    // MARK: cache

    private func evaluate(_ check: CacheExpectation) async throws -> String? {
        let device = try self.device(check.device)
        let zoneID: RecordZoneID
        do {
            zoneID = try await self.zoneID(check.zone, for: device, in: check.database)
        } catch let error as CloudError where error.code == .zoneNotFound {
            // Nothing shared under that name: the cache holds nothing of it.
            zoneID = RecordZoneID(zoneName: check.zone.zoneName, ownerName: check.zone.ownerName ?? user(of: device))
        }
        let records = try device.store.records(in: check.database, zoneID: zoneID).sorted { $0.recordID.recordName < $1.recordID.recordName }
        let names = records.map(\.recordID.recordName)
        let place = "\(check.device)'s cache of \(TranscriptFormatter.zoneName(zoneID, scope: check.database))"
        var problems: [String] = []
        if let expected = check.records {
            let wanted = expected.map(\.recordName).sorted()
            if wanted != names {
                problems.append("records: expected \(list(wanted)), got \(list(names))")
            }
            problems += fieldProblems(expected, in: records)
        }
        if !check.includes.isEmpty {
            let missing = check.includes.map(\.recordName).filter { !names.contains($0) }
            if !missing.isEmpty { problems.append("includes: \(list(missing)) missing; it holds \(list(names))") }
            problems += fieldProblems(check.includes, in: records)
        }
        let unwanted = check.excludes.filter(names.contains)
        if !unwanted.isEmpty { problems.append("excludes: it still holds \(list(unwanted))") }
        if let count = check.count, count != records.count {
            problems.append("count: expected \(count), got \(records.count) \(list(names))")
        }
        return problems.isEmpty ? nil : "\(place): " + problems.joined(separator: "; ")
    }

    /// Differences between expected records' types and fields and those held.
    private func fieldProblems(_ expected: [ExpectedRecord], in records: [Record]) -> [String] {
        var problems: [String] = []
        for wanted in expected {
            guard let record = records.first(where: { $0.recordID.recordName == wanted.recordName }) else { continue }
            problems += recordProblems(wanted, record)
        }
        return problems
    }

    private func recordProblems(_ wanted: ExpectedRecord, _ record: Record) -> [String] {
        var problems: [String] = []
        if let type = wanted.recordType, type != record.recordType {
            problems.append("\(wanted.recordName) is a \(record.recordType), not a \(type)")
        }
        for field in wanted.fields where record[field.name] != field.value {
            let got = record[field.name].map(\.displayString) ?? "no value"
            problems.append("\(wanted.recordName).\(field.name): expected \(field.value.displayString), got \(got)")
        }
        return problems
    }

    // MARK: lastFetch

    private func evaluate(_ check: LastFetchExpectation) -> String? {
        let fetched = check.device.map { lastFetchByDevice[$0] } ?? lastFetch
        guard let fetched else {
            return check.device.map { "\($0) has not fetched yet" } ?? "no device has fetched yet"
        }
        var problems: [String] = []
        if let expected = check.records {
            let wanted = expected.map(\.recordName)
            let got = fetched.records.map(\.recordID.recordName)
            if wanted != got {
                problems.append("records: expected \(list(wanted)), got \(list(got))")
            } else {
                for (want, record) in zip(expected, fetched.records) { problems += recordProblems(want, record) }
            }
        }
        if let expected = check.deletions {
            let withTypes = expected.contains { $0.recordType != nil }
            let got = fetched.deletions.map { withTypes ? "\($0.recordID.recordName) (\($0.recordType))" : $0.recordID.recordName }
            let matches = expected.count == fetched.deletions.count
                && zip(expected, fetched.deletions).allSatisfy { want, got in
                    want.recordName == got.recordID.recordName && (want.recordType.map { $0 == got.recordType } ?? true)
                }
            if !matches { problems.append("deletions: expected \(list(expected.map(\.description))), got \(list(got))") }
        }
        if let expected = check.zones {
            let owner = userName(of: fetched.device)
            let wanted = expected.map { $0.zoneID(defaultOwner: owner) }
            if wanted != fetched.zones {
                problems.append("zones: expected \(list(expected.map(\.description))), got \(list(fetched.zones.map { zoneDescription($0, owner: owner) }))")
            }
        }
        if let expected = check.deletedZones {
            let owner = userName(of: fetched.device)
            let zonesMatch = expected.map { $0.zone.zoneID(defaultOwner: owner) } == fetched.deletedZones.map(\.zoneID)
            let reasonsMatch = zip(expected, fetched.deletedZones).allSatisfy { want, got in want.reason.map { $0 == got.reason } ?? true }
            if !zonesMatch || !reasonsMatch {
                let wanted = expected.map { want in want.reason.map { "\(want.zone) (\($0.rawValue))" } ?? want.zone.description }
                let got = fetched.deletedZones.map { "\(zoneDescription($0.zoneID, owner: owner)) (\($0.reason.rawValue))" }
                problems.append("deletedZones: expected \(list(wanted)), got \(list(got))")
            }
        }
        if let expected = check.moreComing, expected != fetched.moreComing {
            problems.append("moreComing: expected \(expected), got \(fetched.moreComing)")
        }
        if let expected = check.tokenChanged, expected != fetched.tokenChanged {
            problems.append("tokenChanged: expected \(expected), got \(fetched.tokenChanged)")
        }
        if let expected = check.batches, expected != fetched.batches {
            problems.append("batches: expected \(expected), got \(fetched.batches)")
        }
        return problems.isEmpty ? nil : "\(fetched.device)'s last fetch: " + problems.joined(separator: "; ")
    }

    private func userName(of device: String) -> String {
        simulation.device(named: device)?.user ?? ""
    }

    private func zoneDescription(_ zoneID: RecordZoneID, owner: String) -> String {
        zoneID.ownerName == owner ? zoneID.zoneName : "\(zoneID.zoneName)@\(zoneID.ownerName)"
    }

    // MARK: error

    private func evaluate(_ check: ErrorExpectation) -> String? {
        let error = lastActionError
        switch (check.match, error) {
        case (.noError, nil):
            return nil
        case (.noError, let error?):
            return "expected no error, got \(Self.describe(error))"
        case (_, nil):
            return "expected \(expectedDescription(check)), but the step succeeded"
        case (.code(let code), let error?) where code != error.code:
            return "expected \(expectedDescription(check)), got \(Self.describe(error))"
        case (.serverErrorCode(let code), let error?) where code != error.serverErrorCode:
            return "expected \(expectedDescription(check)), got \(Self.describe(error))"
        case (_, let error?):
            if let text = check.reasonContains, !error.reason.contains(text) {
                return "the reason does not contain \"\(text)\": \(error.reason)"
            }
            return nil
        }
    }

    private func expectedDescription(_ check: ErrorExpectation) -> String {
        switch check.match {
        case .noError: "no error"
        case .code(let code): "\(code.rawValue) (\(code.serverErrorCode))"
        case .serverErrorCode(let code): code
        }
    }

    // MARK: notifications

    private func evaluate(_ check: NotificationsExpectation) throws -> String? {
        let device = try self.device(check.device)
        let seen = notificationsSeen[check.device, default: 0]
        let received = device.notifications.dropFirst(seen).map(\.notification)
        notificationsSeen[check.device] = device.notifications.count
        var problems: [String] = []
        let since = seen == 0 ? "since the start" : "since the previous notifications check"
        if let count = check.count, count != received.count {
            problems.append("count: expected \(count), got \(received.count) \(since)\(received.isEmpty ? "" : " " + list(received.map(short)))")
        }
        if let coalesced = check.coalescedCount {
            if let latest = received.last {
                if latest.coalescedCount != coalesced {
                    problems.append("coalescedCount of the latest: expected \(coalesced), got \(latest.coalescedCount)")
                }
            } else {
                problems.append("coalescedCount: expected \(coalesced), but no notification arrived \(since)")
            }
        }
        if let type = check.type {
            let others = received.filter { $0.notificationType.rawValue != type.rawValue }
            if !others.isEmpty { problems.append("type: expected every one to be \(type.rawValue), got \(list(others.map(short)))") }
        }
        if let id = check.subscriptionID {
            let others = received.filter { $0.subscriptionID != id }
            if !others.isEmpty { problems.append("subscriptionID: expected every one from \(id), got \(list(others.map(short)))") }
        }
        if let reasons = check.reasons {
            let got = received.map { notification -> String in
                if case .query(let query) = notification { return query.queryNotificationReason.rawValue }
                return "(\(notification.notificationType.rawValue))"
            }
            if got != reasons.map(\.rawValue) { problems.append("reasons: expected \(list(reasons.map(\.rawValue))), got \(list(got))") }
        }
        return problems.isEmpty ? nil : "\(check.device)'s notifications: " + problems.joined(separator: "; ")
    }

    private func short(_ notification: CloudNotification) -> String {
        var text = "\(notification.notificationType.rawValue) from \(notification.subscriptionID)"
        if notification.coalescedCount > 1 { text += " ×\(notification.coalescedCount)" }
        return text
    }

    // MARK: tokens

    private func evaluate(_ check: TokenExpectation) async throws -> String? {
        let device = try self.device(check.device)
        let cached: ServerChangeToken?
        let what: String
        var zoneID: RecordZoneID?
        if let zone = check.zone {
            do {
                zoneID = try await self.zoneID(zone, for: device, in: check.database)
            } catch let error as CloudError where error.code == .zoneNotFound {
                zoneID = RecordZoneID(zoneName: zone.zoneName, ownerName: zone.ownerName ?? user(of: device))
            }
            cached = try zoneID.flatMap { try device.store.zoneToken(for: $0, in: check.database) }
            what = "zone token of \(zone)"
        } else {
            cached = try device.store.databaseToken(for: check.database)
            what = "\(check.database.rawValue) database token"
        }
        switch (check.cached, cached) {
        case (true, nil):
            return "\(check.device) caches no \(what)"
        case (false, let token?):
            return "\(check.device) caches a \(what) (…\(token.shortForm))"
        case (true, let token?):
            guard let name = check.sameAs else { return nil }
            guard let captured = captures[name] else { return "no token was captured as '\(name)'" }
            let expected = zoneID.flatMap { id in captured.zones.first { $0.zoneID == id && $0.scope == check.database }?.token }
                ?? (check.zone == nil ? captured.database?.token : nil)
                ?? (captured.all.count == 1 ? captured.all.first : nil)
            guard let expected else { return "'\(name)' holds no \(what)" }
            return expected == token ? nil : "\(check.device)'s \(what) is …\(token.shortForm), not '\(name)' (…\(expected.shortForm))"
        case (false, nil):
            return nil
        }
    }

    // MARK: lastSend

    private func evaluate(_ check: LastSendExpectation) -> String? {
        let sent = check.device.map { lastSendByDevice[$0] } ?? lastSend
        guard let sent else {
            return check.device.map { "\($0) has not sent yet" } ?? "no device has sent yet"
        }
        var problems: [String] = []
        if let saved = check.saved, saved.sorted() != sent.saved.sorted() {
            problems.append("saved: expected \(list(saved.sorted())), got \(list(sent.saved.sorted()))")
        }
        if let deleted = check.deleted, deleted.sorted() != sent.deleted.sorted() {
            problems.append("deleted: expected \(list(deleted.sorted())), got \(list(sent.deleted.sorted()))")
        }
        if let conflicts = check.conflicts, conflicts.sorted() != sent.conflicts.sorted() {
            problems.append("conflicts: expected \(list(conflicts.sorted())), got \(list(sent.conflicts.sorted()))")
        }
        return problems.isEmpty ? nil : "\(sent.device)'s last send: " + problems.joined(separator: "; ")
    }

    // MARK: pending

    private func evaluate(_ check: PendingExpectation) throws -> String? {
        let device = try self.device(check.device)
        let pending = try device.store.pendingChanges()
        var problems: [String] = []
        if let count = check.count, count != pending.count {
            problems.append("count: expected \(count), got \(pending.count) \(list(pending.map(\.description)))")
        }
        if let records = check.records {
            let got = pending.compactMap(\.recordName).sorted()
            if records.sorted() != got { problems.append("records: expected \(list(records.sorted())), got \(list(got))") }
        }
        return problems.isEmpty ? nil : "\(check.device)'s pending changes: " + problems.joined(separator: "; ")
    }

    // MARK: subscriptions

    private func evaluate(_ check: SubscriptionsExpectation) async throws -> String? {
        let service = try self.service(for: check.owner)
        let results = try await service.fetchSubscriptions(in: check.database, ids: nil)
        var ids: [String] = []
        for result in results { ids.append(try result.get().subscriptionID) }
        ids.sort()
        guard ids != check.ids.sorted() else { return nil }
        return "\(service.userRecordName)'s subscriptions in the \(check.database.rawValue) database: expected \(list(check.ids.sorted())), got \(list(ids))"
    }

    private func list(_ items: [String]) -> String {
        "[" + items.joined(separator: ", ") + "]"
    }
}
