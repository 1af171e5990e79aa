import Foundation
import SyncCore
import SyncWire
import SyncScenario

/// Writes transcript events for people (``text(_:)``) or programs
/// (``json(_:)``: one JSON object per event, shaped like the HTTP API's
/// dictionaries, keys sorted). Both depend only on the events, so the same
/// file and seed give the same output, byte for byte.
public enum TranscriptFormatter {
    // MARK: Text

    /// The event as lines of text (no trailing newline); `nil` for events
    /// that say nothing to a reader.
    /// Lines of one batch listed in full; a bigger batch lists this many and
    /// says how many more there are (the JSON transcript has them all).
    public static let listedItemLimit = 40

    static func capped(_ lines: [String]) -> [String] {
        guard lines.count > listedItemLimit else { return lines }
        return Array(lines.prefix(listedItemLimit)) + ["        … and \(lines.count - listedItemLimit) more"]
    }

    static func cappedList(_ names: [String]) -> String {
        guard names.count > listedItemLimit else { return names.joined(separator: ", ") }
        return names.prefix(listedItemLimit).joined(separator: ", ") + ", … and \(names.count - listedItemLimit) more"
    }

    /// The event as a `--cast` recording shows it: as ``text(_:)``, and the
    /// presenter's notes too (the room reads the transcript; the recording
    /// is for whoever presents it).
    public static func castText(_ event: TranscriptEvent) -> String? {
        guard case .presenterNote(let note) = event.kind else { return text(event) }
        let lines = note.split(separator: "\n", omittingEmptySubsequences: false).flatMap { wrap(String($0), width: 70) }
        return lines.enumerated().map { ($0.offset == 0 ? "  [note] " : "         ") + $0.element }.joined(separator: "\n")
    }

    /// The event as lines of text (no trailing newline); `nil` for events
    /// that say nothing to a reader, and for a presenter's note (see ``castText(_:)``).
    public static func text(_ event: TranscriptEvent) -> String? {
        switch event.kind {
        case .presenterNote:
            return nil
        case .scenario(let name, let title, let seed, let file):
            let heading = title.map { "\(name): \($0)" } ?? name
            return "== \(heading) ==\n   \(file), seed \(seed)"
        case .step(let index, let name, let location, let summary, .action):
            return "\n[\(index + 1)] \(seconds(event.time)) \(name) (line \(location.line)): \(summary)"
        case .step:
            return nil  // the narrative or the check's result says it
        case .say(let text):
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { wrap(String($0), width: 76) }
            return "\n" + lines.map { $0.isEmpty ? "" : "  " + $0 }.joined(separator: "\n")
        case .databaseChanges(let device, let scope, let batch, let answer):
            var changed: [String] = []
            var removed: [String] = []
            for change in answer.changes {
                switch change {
                case .zoneChanged(let zoneID): changed.append(zoneName(zoneID, scope: scope))
                case .zoneRemoved(let zoneID, let reason): removed.append("\(zoneName(zoneID, scope: scope)) (\(reason.rawValue))")
                }
            }
            var parts = ["changed [\(changed.joined(separator: ", "))]"]
            if !removed.isEmpty { parts.append("removed [\(removed.joined(separator: ", "))]") }
            parts.append("moreComing \(answer.moreComing)")
            parts.append("token …\(answer.serverChangeToken.shortForm)")
            return "    \(device) <- changes/database \(scope.rawValue), batch \(batch + 1): " + parts.joined(separator: ", ")
        case .zoneChanges(let device, let scope, let batch, let answer):
            var records: [String] = []
            var deletions: [String] = []
            for change in answer.changes {
                switch change {
                case .changed(let record): records.append(describe(record))
                case .deleted(let recordID, let type): deletions.append("\(recordID.recordName) (\(type.isEmpty ? "?" : type))")
                }
            }
            let count = records.count == 1 ? "1 record" : "\(records.count) records"
            var lines = ["    \(device) <- changes/zone \(zoneName(answer.zoneID, scope: scope)), batch \(batch + 1): \(count), \(deletions.count) deleted, moreComing \(answer.moreComing), token …\(answer.serverChangeToken.shortForm)"]
            let shown = capped(records.map { "        \($0)" } + deletions.map { "        deleted \($0)" })
            lines += shown
            return lines.joined(separator: "\n")
        case .notification(let device, let notification):
            return "    \(device) <= push at \(seconds(event.time)): \(describe(notification))"
        case .recordsSent(let device, let scope, let zoneID, let saved, let deleted):
            var parts: [String] = []
            if !saved.isEmpty { parts.append("saved [\(cappedList(saved))]") }
            if !deleted.isEmpty { parts.append("deleted [\(cappedList(deleted))]") }
            return "    \(device) -> records/modify \(zoneName(zoneID, scope: scope)): " + parts.joined(separator: ", ")
        case .conflict(let device, let recordName, let merged, let keys):
            let what = merged
                ? "wrote its changed fields [\(keys.joined(separator: ", "))] onto the server's record and sends that"
                : "not merged; the change stays queued"
            return "    \(device): conflict on \(recordName) (serverRecordChanged): \(what)"
        case .note(let device, let text):
            return "    " + (device.map { "\($0): " } ?? "") + text
        case .error(let device, let error, let expected):
            let who = device.map { "\($0): " } ?? ""
            let tail = expected ? "" : " (no error check follows: the run stops)"
            return "    \(who)error \(error.code.rawValue) (\(error.serverErrorCode)): \(error.reason)\(tail)"
        case .check(let index, let name, let location, nil):
            return "[\(index + 1)] check \(name) (line \(location.line)): ok"
        case .check(let index, let name, let location, let failure?):
            return "[\(index + 1)] check \(name) (line \(location.line)): FAILED: \(failure)"
        case .finished(0, nil):
            return "\nPASS: every step ran (the scenario checks nothing)"
        case .finished(let checks, nil):
            return "\nPASS: all \(checks) checks held"
        case .finished(let checks, let failure?):
            return "\nFAIL: \(failure)\n(\(checks) check\(checks == 1 ? "" : "s") held before it)"
        }
    }

    /// A line broken at spaces into lines of at most `width` characters
    /// (a longer word stays whole).
    static func wrap(_ line: String, width: Int) -> [String] {
        guard line.count > width else { return [line] }
        var lines: [String] = []
        var current = ""
        for word in line.split(separator: " ", omittingEmptySubsequences: true) {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// `1.250s`.
    static func seconds(_ milliseconds: Milliseconds) -> String {
        let whole = milliseconds / 1000
        let fraction = abs(milliseconds % 1000)
        let padded = String(fraction).count < 3 ? String(repeating: "0", count: 3 - String(fraction).count) + String(fraction) : String(fraction)
        return "\(whole).\(padded)s"
    }

    /// `Notes`, or `Notes@alice` in the shared database.
    static func zoneName(_ zoneID: RecordZoneID, scope: DatabaseScope) -> String {
        scope == .shared ? "\(zoneID.zoneName)@\(zoneID.ownerName)" : zoneID.zoneName
    }

    /// `note-1 (Note) title="Groceries" done=0`.
    static func describe(_ record: Record) -> String {
        let fields = record.fields.sorted { $0.name < $1.name }.map { "\($0.name)=\($0.value.displayString)" }
        return (["\(record.recordID.recordName) (\(record.recordType))"] + fields).joined(separator: " ")
    }

    static func describe(_ notification: CloudNotification) -> String {
        var text = "\(notification.notificationType.rawValue) notification from \(notification.subscriptionID)"
        if case .query(let query) = notification {
            text += ", \(query.queryNotificationReason.rawValue) \(query.recordID.recordName)"
            let fields = query.recordFields.sorted { $0.name < $1.name }.map { "\($0.name)=\($0.value.displayString)" }
            if !fields.isEmpty { text += " {\(fields.joined(separator: " "))}" }
        } else if let zoneID = notification.zoneID {
            text += ", zone \(zoneName(zoneID, scope: notification.databaseScope))"
        }
        if notification.coalescedCount > 1 { text += ", stands for \(notification.coalescedCount)" }
        return text
    }

    // MARK: JSON

    /// The event as one line of key-sorted JSON; `nil` for a presenter's note (only a recording shows it).
    public static func json(_ event: TranscriptEvent) -> String? {
        if case .presenterNote = event.kind { return nil }
        let object = JSONValue.object(jsonObject(event))
        return (try? WireJSON.string(object)) ?? "{}"
    }

    static func jsonObject(_ event: TranscriptEvent) -> [String: JSONValue] {
        var object: [String: JSONValue] = ["time": .integer(event.time)]
        func set(_ key: String, _ value: String?) { if let value { object[key] = .string(value) } }
        func merge(_ value: some Encodable) {
            if case .object(let fields)? = wireValue(value) { object.merge(fields) { current, _ in current } }
        }
        switch event.kind {
        case .scenario(let name, let title, let seed, let file):
            set("event", "scenario")
            set("name", name)
            set("title", title)
            set("file", file)
            // A number, as the file writes it (a seed past Int64's range, which no file needs, stays text).
            object["seed"] = seed <= UInt64(Int64.max) ? .integer(Int64(seed)) : .string(String(seed))
        case .step(let index, let name, let location, let summary, let category):
            set("event", "step")
            set("category", category.rawValue)
            object["index"] = .integer(Int64(index + 1))
            set("step", name)
            set("file", location.file)
            object["line"] = .integer(Int64(location.line))
            object["column"] = .integer(Int64(location.column))
            set("summary", summary)
        case .say(let text):
            set("event", "say")
            set("text", text)
        case .presenterNote(let note):
            set("event", "presenterNote")
            set("text", note)
        case .databaseChanges(let device, let scope, let batch, let answer):
            set("event", "databaseChanges")
            set("device", device)
            set("database", scope.rawValue)
            object["batch"] = .integer(Int64(batch + 1))
            merge(WireDatabaseChanges(answer))
        case .zoneChanges(let device, let scope, let batch, let answer):
            set("event", "zoneChanges")
            set("device", device)
            set("database", scope.rawValue)
            object["batch"] = .integer(Int64(batch + 1))
            merge(WireZoneChanges(answer))
        case .notification(let device, let notification):
            set("event", "notification")
            set("device", device)
            object["notification"] = .object(notificationObject(notification))
        case .recordsSent(let device, let scope, let zoneID, let saved, let deleted):
            set("event", "recordsSent")
            set("device", device)
            set("database", scope.rawValue)
            object["zoneID"] = wireValue(WireZoneID(zoneID))
            object["saved"] = .array(saved.map(JSONValue.string))
            object["deleted"] = .array(deleted.map(JSONValue.string))
        case .conflict(let device, let recordName, let merged, let keys):
            set("event", "conflict")
            set("device", device)
            set("recordName", recordName)
            object["merged"] = .bool(merged)
            object["changedKeys"] = .array(keys.map(JSONValue.string))
        case .note(let device, let text):
            set("event", "note")
            set("device", device)
            set("text", text)
        case .error(let device, let error, let expected):
            set("event", "error")
            set("device", device)
            object["expected"] = .bool(expected)
            object["error"] = wireValue(WireError(error))
        case .check(let index, let name, let location, let failure):
            set("event", "check")
            object["index"] = .integer(Int64(index + 1))
            set("check", name)
            set("file", location.file)
            object["line"] = .integer(Int64(location.line))
            object["passed"] = .bool(failure == nil)
            set("failure", failure)
        case .finished(let checks, let failure):
            set("event", "finished")
            object["passed"] = .bool(failure == nil)
            object["checks"] = .integer(Int64(checks))
            set("failure", failure?.description)
        }
        return object
    }

    /// A notification as the push service delivers it (see the HTTP API's
    /// `notification` dictionary).
    static func notificationObject(_ notification: CloudNotification) -> [String: JSONValue] {
        var object: [String: JSONValue] = [
            "notificationID": .string(notification.notificationID),
            "notificationType": .string(notification.notificationType.rawValue),
            "subscriptionID": .string(notification.subscriptionID),
            "containerIdentifier": .string(notification.containerIdentifier),
            "databaseScope": .string(notification.databaseScope.rawValue),
            "isPruned": .bool(notification.isPruned),
            "coalescedCount": .integer(Int64(notification.coalescedCount)),
        ]
        if let zoneID = notification.zoneID { object["zoneID"] = wireValue(WireZoneID(zoneID)) }
        if let alert = notification.alertBody { object["alertBody"] = .string(alert) }
        if case .query(let query) = notification {
            object["recordName"] = .string(query.recordID.recordName)
            object["queryNotificationReason"] = .string(query.queryNotificationReason.rawValue)
            if !query.recordFields.isEmpty {
                var fields: [String: JSONValue] = [:]
                for field in query.recordFields { fields[field.name] = wireValue(WireField(field.value)) }
                object["recordFields"] = .object(fields)
            }
        }
        return object
    }

    /// A wire value as a JSON tree.
    static func wireValue(_ value: some Encodable) -> JSONValue? {
        guard let data = try? WireJSON.encode(value) else { return nil }
        return try? JSONDecoder().decode(JSONValue.self, from: data)
    }
}
