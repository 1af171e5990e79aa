import Foundation

/// The kinds of fault a ``FaultPlan`` can inject, one name each: the names
/// scenario files, `serve --faults` and `syncscope explore --faults` use.
public enum FaultKind: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// `THROTTLED` (`requestRateLimited`) with `retryAfter` seconds.
    case throttled
    /// `ZONE_BUSY` (`zoneBusy`) with `retryAfter` seconds.
    case zoneBusy
    /// `TRY_AGAIN_LATER` (`serviceUnavailable`), with `retryAfter` seconds when given: an outage.
    case serviceUnavailable
    /// `QUOTA_EXCEEDED`: the user's iCloud storage is full.
    case quotaExceeded
    /// `INTERNAL_ERROR`.
    case internalError
    /// Some items of a `records/modify` batch fail (with a code of the rule's
    /// choosing, `ZONE_BUSY` by default); the others are applied.
    case itemFailures
    /// The change is applied (and journaled), but the client gets a network
    /// failure instead of the answer: it cannot know whether it was applied.
    case ambiguousCommit
    /// The answer comes late (virtual time in a simulation, real time over HTTP).
    case latency
    /// A push notification never arrives.
    case pushDrop
    /// A push notification arrives late.
    case pushDelay
    /// A push notification arrives twice.
    case pushDuplicate
    /// A push notification is held back until a later one has arrived.
    case pushReorder
    /// "Push before data": `changes/database` does not show changes younger
    /// than the lag yet (it answers with the caller's own token and nothing new).
    case readLag

    public static func < (lhs: FaultKind, rhs: FaultKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// Faults of the push channel (applied when a notification is queued).
    public var isPush: Bool { [.pushDrop, .pushDelay, .pushDuplicate, .pushReorder].contains(self) }
}

/// How long a request is delayed.
public enum LatencyDistribution: Sendable, Hashable {
    /// Always this long.
    case fixed(Milliseconds)
    /// Evenly spread between the two bounds (inclusive).
    case uniform(min: Milliseconds, max: Milliseconds)
    /// Exponentially distributed with this mean (a long tail), capped at 20 × the mean.
    case exponential(mean: Milliseconds)

    package func sample(_ random: inout SeededRandom) -> Milliseconds {
        switch self {
        case .fixed(let ms):
            return max(0, ms)
        case .uniform(let low, let high):
            let lo = max(0, min(low, high)), hi = max(0, max(low, high))
            return lo + Milliseconds(random.next() % UInt64(hi - lo + 1))
        case .exponential(let mean):
            guard mean > 0 else { return 0 }
            let unit = Double(random.next() >> 11) / Double(1 << 53)  // [0, 1)
            let value = -Double(mean) * log1p(-unit)
            return Milliseconds(min(value, Double(mean) * 20).rounded())
        }
    }

    public var description: String {
        switch self {
        case .fixed(let ms): "\(ms) ms"
        case .uniform(let lo, let hi): "\(lo)–\(hi) ms"
        case .exponential(let mean): "~\(mean) ms (exponential)"
        }
    }
}

/// What a rule does to a call it fires on.
public enum FaultEffect: Sendable, Hashable {
    case throttled(retryAfter: Double)
    case zoneBusy(retryAfter: Double)
    case serviceUnavailable(retryAfter: Double?)
    case quotaExceeded
    case internalError
    /// Each item of the batch fails with probability ½ (at least one does) with `code`.
    case itemFailures(code: CloudError.Code, retryAfter: Double?)
    case ambiguousCommit
    case latency(LatencyDistribution)
    case pushDrop
    case pushDelay(Milliseconds)
    case pushDuplicate
    case pushReorder
    case readLag(Milliseconds)

    public var kind: FaultKind {
        switch self {
        case .throttled: .throttled
        case .zoneBusy: .zoneBusy
        case .serviceUnavailable: .serviceUnavailable
        case .quotaExceeded: .quotaExceeded
        case .internalError: .internalError
        case .itemFailures: .itemFailures
        case .ambiguousCommit: .ambiguousCommit
        case .latency: .latency
        case .pushDrop: .pushDrop
        case .pushDelay: .pushDelay
        case .pushDuplicate: .pushDuplicate
        case .pushReorder: .pushReorder
        case .readLag: .readLag
        }
    }

    /// The whole-request error this effect answers with, if it is one.
    package func error(operation: String) -> CloudError? {
        switch self {
        case .throttled(let seconds):
            return CloudError(
                .requestRateLimited, "Request rate limited (injected fault): retry \(operation) after \(Self.seconds(seconds)).",
                retryAfter: seconds)
        case .zoneBusy(let seconds):
            return CloudError(
                .zoneBusy, "The zone is busy (injected fault): retry \(operation) after \(Self.seconds(seconds)).", retryAfter: seconds)
        case .serviceUnavailable(let seconds):
            let wait = seconds.map { " after \(Self.seconds($0))" } ?? " later"
            return CloudError(.serviceUnavailable, "The service is unavailable (injected fault): try \(operation) again\(wait).", retryAfter: seconds)
        case .quotaExceeded:
            return CloudError(.quotaExceeded, "The user's iCloud storage is full (injected fault); \(operation) was not applied.")
        case .internalError:
            return CloudError(.internalError, "An internal error occurred (injected fault); \(operation) was not applied.")
        default:
            return nil
        }
    }

    package static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// A short phrase for logs and the inspector: "THROTTLED, retry in 3 s".
    public var summary: String {
        switch self {
        case .throttled(let s): "THROTTLED, retry in \(Self.seconds(s))"
        case .zoneBusy(let s): "ZONE_BUSY, retry in \(Self.seconds(s))"
        case .serviceUnavailable(let s): "TRY_AGAIN_LATER" + (s.map { ", retry in \(Self.seconds($0))" } ?? "")
        case .quotaExceeded: "QUOTA_EXCEEDED"
        case .internalError: "INTERNAL_ERROR"
        case .itemFailures(let code, _): "some items failed with \(code.serverErrorCode)"
        case .ambiguousCommit: "applied, answer lost (ambiguous commit)"
        case .latency(let d): "latency \(d.description)"
        case .pushDrop: "dropped"
        case .pushDelay(let ms): "delayed \(ms) ms"
        case .pushDuplicate: "duplicate"
        case .pushReorder: "reordered"
        case .readLag(let ms): "read lag \(ms) ms"
        }
    }
}

/// Which calls a rule applies to; every field left `nil` (or empty) matches anything.
public struct FaultMatch: Sendable, Hashable {
    /// CloudKit Web Services operation names: `records/modify`,
    /// `records/lookup`, `zones/modify`, `zones/list`, `changes/database`,
    /// `changes/zone`, `subscriptions/modify`, `subscriptions/lookup`; and
    /// `push` for notifications. Empty: every operation the effect applies to.
    public var operations: [String]
    public var database: DatabaseScope?
    /// A zone name: the call touches this zone.
    public var zone: String?
    public var user: String?
    /// A device ID, or a device name (matches IDs ending in `-NAME`, as a simulation names them).
    public var device: String?

    public init(operations: [String] = [], database: DatabaseScope? = nil, zone: String? = nil, user: String? = nil, device: String? = nil) {
        self.operations = operations
        self.database = database
        self.zone = zone
        self.user = user
        self.device = device
    }

    public static let knownOperations = [
        "records/modify", "records/lookup", "zones/modify", "zones/list", "changes/database", "changes/zone",
        "subscriptions/modify", "subscriptions/lookup", "push",
    ]

    package func matches(_ call: FaultCall) -> Bool {
        if !operations.isEmpty && !operations.contains(call.operation) { return false }
        if let database, call.database != database { return false }
        if let zone, !call.zoneNames.contains(zone) { return false }
        if let user, call.user != user { return false }
        if let device {
            guard let id = call.deviceID, id == device || id.hasSuffix("-" + device) else { return false }
        }
        return true
    }

    public var description: String {
        var parts: [String] = []
        if !operations.isEmpty { parts.append(operations.joined(separator: ",")) }
        if let database { parts.append("database \(database.rawValue)") }
        if let zone { parts.append("zone \(zone)") }
        if let user { parts.append("user \(user)") }
        if let device { parts.append("device \(device)") }
        return parts.isEmpty ? "every call" : parts.joined(separator: ", ")
    }
}

/// How often a matching call is hit. All given conditions must hold; none
/// given: every matching call.
public struct FaultFrequency: Sendable, Hashable {
    /// Chance per matching call, 0…1 (drawn from the world's seeded random source).
    public var probability: Double?
    /// Only every Nth matching call (the Nth, 2Nth…).
    public var everyNth: Int?
    /// At most this many times in all (`next: 3`: the next three matching calls).
    public var times: Int?
    /// Active from this long after the rule was added…
    public var startAfter: Milliseconds?
    /// …for this long (then the rule does nothing more).
    public var duration: Milliseconds?

    public init(probability: Double? = nil, everyNth: Int? = nil, times: Int? = nil, startAfter: Milliseconds? = nil, duration: Milliseconds? = nil) {
        self.probability = probability
        self.everyNth = everyNth
        self.times = times
        self.startAfter = startAfter
        self.duration = duration
    }

    public static let always = FaultFrequency()

    public var description: String {
        var parts: [String] = []
        if let probability { parts.append("p=\(probability)") }
        if let everyNth { parts.append("every \(everyNth)th") }
        if let times { parts.append("next \(times)") }
        if let startAfter { parts.append("after \(startAfter) ms") }
        if let duration { parts.append("for \(duration) ms") }
        return parts.isEmpty ? "always" : parts.joined(separator: ", ")
    }
}

/// One rule of a fault plan: which calls, what happens, how often.
public struct FaultRule: Sendable, Hashable, CustomStringConvertible {
    public var effect: FaultEffect
    public var match: FaultMatch
    public var frequency: FaultFrequency

    public init(_ effect: FaultEffect, match: FaultMatch = FaultMatch(), frequency: FaultFrequency = .always) {
        self.effect = effect
        self.match = match
        self.frequency = frequency
    }

    public var description: String {
        "\(effect.kind.rawValue) (\(effect.summary)) on \(match.description), \(frequency.description)"
    }

    /// Whether the rule's effect can apply to this operation at all.
    package func applies(to operation: String) -> Bool {
        switch effect {
        case .pushDrop, .pushDelay, .pushDuplicate, .pushReorder: operation == "push"
        case .readLag: operation == "changes/database"
        case .itemFailures: operation == "records/modify"
        case .ambiguousCommit: FaultCall.mutatingOperations.contains(operation)
        default: operation != "push"
        }
    }
}

/// A list of fault rules: the server (engine layer) consults it on every
/// call, in rule order. Empty: nothing is injected, at no cost.
public struct FaultPlan: Sendable, Hashable {
    public var rules: [FaultRule]

    public init(_ rules: [FaultRule] = []) {
        self.rules = rules
    }

    public var isEmpty: Bool { rules.isEmpty }
}

/// One call as the fault layer sees it.
public struct FaultCall: Sendable, Hashable {
    public var operation: String
    public var database: DatabaseScope?
    public var zoneNames: [String]
    public var user: String
    public var deviceID: String?

    public init(operation: String, database: DatabaseScope?, zoneNames: [String] = [], user: String, deviceID: String?) {
        self.operation = operation
        self.database = database
        self.zoneNames = zoneNames
        self.user = user
        self.deviceID = deviceID
    }

    package static let mutatingOperations: Set<String> = ["records/modify", "zones/modify", "subscriptions/modify"]
}

/// A fault that was injected, for logs, transcripts, the inspector and tests.
public struct InjectedFault: Sendable, Hashable, CustomStringConvertible {
    public var time: Milliseconds
    /// The rule's number in the injector (1, 2, 3… in the order rules were added).
    public var ruleID: Int
    public var kind: FaultKind
    public var operation: String
    public var user: String
    public var deviceID: String?
    /// What happened, in words: "THROTTLED, retry in 3 s", "dropped", "latency 120 ms".
    public var detail: String

    public init(time: Milliseconds, ruleID: Int, kind: FaultKind, operation: String, user: String, deviceID: String?, detail: String) {
        self.time = time
        self.ruleID = ruleID
        self.kind = kind
        self.operation = operation
        self.user = user
        self.deviceID = deviceID
        self.detail = detail
    }

    public var description: String {
        "fault #\(ruleID) \(kind.rawValue) on \(operation) for \(deviceID ?? user): \(detail)"
    }
}

/// A push fault that hit one notification for one device: what the
/// inspector's push feed marks ("dropped", "duplicate", "delayed 500 ms",
/// "reordered").
public struct PushFaultMark: Sendable, Hashable {
    public var time: Milliseconds
    public var deviceID: String
    /// The notification as it was when the fault hit it (a dropped one never arrives).
    public var notification: CloudNotification
    public var kind: FaultKind
    /// The fault in a word or two: ``FaultEffect/summary``.
    public var detail: String

    public init(time: Milliseconds, deviceID: String, notification: CloudNotification, kind: FaultKind, detail: String) {
        self.time = time
        self.deviceID = deviceID
        self.notification = notification
        self.kind = kind
        self.detail = detail
    }
}
