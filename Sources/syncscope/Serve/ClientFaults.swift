import ArgumentParser
import Foundation
import SyncCore
import SyncWire
import SyncServer
import Yams

/// `syncscope client faults …`: turn a bad day on (and off) on a running server.
struct ClientFaults: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faults",
        abstract: "List, add, remove or clear the fault rules of a running server (needs the server admin token).",
        discussion: """
            Examples:
              syncscope client faults list
              syncscope client faults add --kind throttled --retry-after 3 --operations records/modify --times 5
              syncscope client faults add --kind ambiguousCommit --device my-iphone --probability 0.2
              syncscope client faults add --kind serviceUnavailable --retry-after 10 --for-ms 60000
              syncscope client faults add --kind itemFailures --code ZONE_BUSY --retry-after 2 --times 1
              syncscope client faults add --file bad-day.yaml
              syncscope client faults remove 2
              syncscope client faults clear            (every rule)
              syncscope client faults clear pushDrop   (rules of these kinds)
            Kinds: \(FaultKind.allCases.map(\.rawValue).joined(separator: ", ")).
            """
    )

    @OptionGroup var options: ClientOptions

    @Argument(help: "list, add, remove or clear.")
    var action: String

    @Argument(help: "remove: the rule's number; clear: fault kinds (none: every rule).")
    var values: [String] = []

    @Option(help: "add: the fault kind.") var kind: String?
    @Option(name: .customLong("retry-after"), help: "add: seconds the client is told to wait.") var retryAfter: Double?
    @Option(help: "add (itemFailures): the error code of the failed items, such as ZONE_BUSY (the default) or QUOTA_EXCEEDED.") var code: String?
    @Option(help: "add: operations it applies to, comma-separated (records/modify, changes/database, …).") var operations: String?
    @Option(help: "add: only this database (public, private, shared).") var database: String?
    @Option(help: "add: only this zone name.") var zone: String?
    @Option(name: .customLong("for-user"), help: "add: only this user.") var forUser: String?
    @Option(name: .customLong("for-device"), help: "add: only this device ID.") var forDevice: String?
    @Option(help: "add: chance per matching call, 0 to 1.") var probability: Double?
    @Option(help: "add: only every Nth matching call.") var every: Int?
    @Option(help: "add: the next N matching calls only.") var times: Int?
    @Option(name: .customLong("latency-ms"), help: "add (latency): milliseconds of delay.") var latencyMs: Int64?
    @Option(name: .customLong("lag-ms"), help: "add (readLag): milliseconds changes stay invisible to changes/database.") var lagMs: Int64?
    @Option(name: .customLong("delay-ms"), help: "add (pushDelay): milliseconds a push comes late.") var delayMs: Int64?
    @Option(name: .customLong("after-ms"), help: "add: start this many milliseconds from now.") var afterMs: Int64?
    @Option(name: .customLong("for-ms"), help: "add: stop this many milliseconds after it starts.") var forMs: Int64?
    @Option(help: "add: rules from a YAML or JSON file (a list of rules with the keys of the admin API).") var file: String?

    func run() async throws {
        try await clientRun {
            let request: WireFaultsRequest
            switch action {
            case "list":
                request = WireFaultsRequest(operation: "list")
            case "add":
                if let file {
                    request = WireFaultsRequest(operation: "add", rules: try FaultFile.rules(at: file))
                } else {
                    guard let kind else { throw ClientFailure("faults add needs --kind (or --file); kinds: \(FaultKind.allCases.map(\.rawValue).joined(separator: ", ")).") }
                    var rule = WireFaultRule(FaultRule(.quotaExceeded))
                    rule.kind = kind
                    rule.summary = nil
                    rule.retryAfter = retryAfter
                    rule.code = code
                    rule.operations = operations?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    rule.database = database
                    rule.zone = zone
                    rule.user = forUser
                    rule.device = forDevice
                    rule.probability = probability
                    rule.every = every
                    rule.times = times
                    rule.latencyMs = latencyMs
                    rule.lagMs = lagMs
                    rule.delayMs = delayMs
                    rule.afterMs = afterMs
                    rule.forMs = forMs
                    do { _ = try rule.rule() } catch let error as CloudError { throw ClientFailure(error.reason) }
                    request = WireFaultsRequest(operation: "add", rules: [rule])
                }
            case "remove":
                guard values.count == 1, let id = Int(values[0]) else { throw ClientFailure("faults remove needs the rule's number (faults list shows it).") }
                request = WireFaultsRequest(operation: "remove", id: id)
            case "clear":
                request = WireFaultsRequest(operation: "clear", kinds: values.isEmpty ? nil : values)
            default:
                throw ClientFailure("Unknown faults action '\(action)'; use list, add, remove or clear.")
            }
            let data = try await options.adminService().adminFaults(try WireJSON.encode(request))
            let answer = try WireJSON.decode(WireFaultsResponse.self, from: data)
            if let added = answer.added { print("added rule\(added.count == 1 ? "" : "s") \(added.map { "#\($0)" }.joined(separator: ", "))") }
            if let removed = answer.removed { print("removed \(removed) rule\(removed == 1 ? "" : "s")") }
            if answer.rules.isEmpty {
                print("no fault rules in force")
            } else {
                for rule in answer.rules {
                    print("#\(rule.id ?? 0) \(rule.summary ?? rule.kind) — matched \(rule.matched ?? 0), fired \(rule.fired ?? 0)")
                }
            }
            if !answer.injected.isEmpty {
                print("injected so far: " + answer.injected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
        }
    }
}
