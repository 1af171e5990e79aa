/// "Did you mean …?" for misspelled names.
public enum Suggestions {
    /// Common other names for keys and steps, and the name this format uses.
    static let aliases: [String: String] = [
        "recordName": "record", "recordType": "type", "name": "record", "zoneName": "zone", "zoneID": "zone",
        "deviceID": "device", "deviceName": "device", "syncToken": "token", "changeToken": "token",
        "serverChangeToken": "token", "limit": "resultsLimit", "keys": "desiredKeys", "subscription": "subscriptionID",
        "id": "subscriptionID", "with": "participants", "users": "participants", "filter": "predicate",
        "filterBy": "predicate", "filters": "predicate", "fieldName": "field", "fieldValue": "value",
        "operator": "comparator", "op": "comparator", "subscriptionType": "type", "scope": "database",
        "databaseScope": "database", "owner": "user", "wait": "advance", "sleep": "advance", "tick": "advance",
        "assert": "expect", "check": "expect", "upload": "send", "push": "send", "narrate": "say", "note": "say",
        "comment": "say", "print": "say", "modify": "save", "update": "save", "create": "save", "remove": "delete",
        "fetchChanges": "fetch", "fetchDatabaseChanges": "fetch", "fetchZoneChanges": "fetch",
        "fetchRecordZoneChanges": "fetch", "goOnline": "online", "goOffline": "offline", "addZone": "createZone",
        "removeZone": "deleteZone", "share": "shareZone", "unshare": "revokeShare", "writer": "burst",
        "subscriptions": "subscribe", "reason": "reasonContains", "policy": "savePolicy",
        "fetchAll": "fetchAllChanges", "moreComming": "moreComing", "deleted": "deletions",
        "deletedRecords": "deletions", "changedZones": "zones", "keep": "keepLast", "interval": "every",
    ]

    /// The candidate closest to `word`, if it is close enough to be a likely
    /// typo (or a known other name for it). Of two as close, a candidate
    /// `word` begins (a name cut short: `sav` for `save`, not `say`) wins,
    /// then the earlier one.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        if let alias = aliases[word], candidates.contains(alias) { return alias }
        let lowered = word.lowercased()
        var best: (candidate: String, distance: Int, completes: Bool)?
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            let allowed = max(1, (candidate.count + 2) / 4)
            guard distance <= allowed else { continue }
            let completes = candidate.lowercased().hasPrefix(lowered)
            if let current = best {
                if current.distance < distance { continue }
                if current.distance == distance && (current.completes || !completes) { continue }
            }
            best = (candidate, distance, completes)
        }
        return best?.candidate
    }

    /// "did you mean 'x'?" when a candidate is close; otherwise `fallback`.
    static func hint(for word: String, in candidates: [String], otherwise fallback: String?) -> String? {
        if let match = closest(to: word, in: candidates), match != word { return "did you mean '\(match)'?" }
        return fallback
    }

    /// Optimal string alignment distance: insertions, deletions,
    /// substitutions and swaps of two neighbours each cost 1.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }

    /// `a, b and c`.
    static func list(_ items: [String], conjunction: String = "and") -> String {
        switch items.count {
        case 0: return ""
        case 1: return items[0]
        default: return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items[items.count - 1]
        }
    }
}
