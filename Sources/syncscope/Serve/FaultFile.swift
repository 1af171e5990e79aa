import ArgumentParser
import Foundation
import SyncCore
import SyncWire
import SyncServer
import Yams

/// A file of fault rules: a YAML (or JSON) list of rules with the admin API's keys,
/// for example `- {kind: throttled, retryAfter: 3, operations: [records/modify], times: 5}`.
enum FaultFile {
    static func rules(at path: String) throws -> [WireFaultRule] {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ClientFailure("Cannot read the fault file \(path): \((error as NSError).localizedDescription)")
        }
        do {
            let rules = try YAMLDecoder().decode([WireFaultRule].self, from: text)
            for (index, rule) in rules.enumerated() {
                do { _ = try rule.rule() } catch { throw ClientFailure("\(path): rule \(index + 1): \(error.reason)") }
            }
            return rules
        } catch let failure as ClientFailure {
            throw failure
        } catch {
            throw ClientFailure("\(path) is not a list of fault rules such as '- {kind: throttled, retryAfter: 3}': \(error)")
        }
    }

    static func plan(at path: String) throws -> FaultPlan {
        try FaultPlan(rules(at: path).map { try $0.rule() })
    }
}
