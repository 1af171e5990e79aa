import Foundation
import SyncCore
import Yams

/// The `CKShare` steps: `saveShare`, `resolveShare`, `acceptShare`, `removeParticipant`.
extension ScenarioReader {
    func zoneShareStep(_ step: String, _ node: Node) -> StepKind? {
        let keys: [String]
        let example: String
        switch step {
        case "saveShare":
            keys = ["device", "zone", "participants", "publicPermission"]
            example = "{device: iPhone, zone: Notes, participants: {bob: READ_WRITE}}"
        case "removeParticipant":
            keys = ["device", "zone", "participants"]
            example = "{device: iPhone, zone: Notes, participants: [bob]}"
        default:
            keys = ["device", "zone"]
            example = "{device: iPad, zone: Notes@alice}"
        }
        let required = step == "saveShare" || step == "removeParticipant" ? ["device", "zone", "participants"] : ["device", "zone"]
        guard let entries = mapping(node, in: step, keys: keys, required: required, example: example) else { return nil }
        let device = entries["device"].flatMap { self.device($0) }
        let zone = entries["zone"].flatMap { zoneRef($0) }
        var participants: [ZoneShareAction.Participant]? = []
        if let node = entries["participants"] {
            participants = step == "saveShare" ? invitations(node, in: step) : removals(node, in: step)
        }
        var publicPermission: String? = "NONE"
        if let node = entries["publicPermission"] {
            publicPermission = choice(node, what: "publicPermission", ZoneShareAction.permissions.map { ($0, $0) })
        }
        guard let device, let zone, let participants, let publicPermission else { return nil }
        if step == "resolveShare" || step == "acceptShare", zone.ownerName == nil, let node = entries["zone"] {
            error("\(step) names the owner's zone with its owner", hint: "for example \(zone.zoneName)@alice", at: node)
            return nil
        }
        if let node = entries["zone"] { noteZoneUse(zone, at: node) }
        let action = ZoneShareAction(device: device, zone: zone, participants: participants, publicPermission: publicPermission)
        switch step {
        case "saveShare": return .saveShare(action)
        case "resolveShare": return .resolveShare(action)
        case "acceptShare": return .acceptShare(action)
        default: return .removeParticipant(action)
        }
    }

    /// `{bob: READ_WRITE, carol: READ_ONLY}`: declared users and their permissions, in file order.
    private func invitations(_ node: Node, in step: String) -> [ZoneShareAction.Participant]? {
        guard case .mapping(let mapping) = node, !mapping.isEmpty else {
            error("\(step) participants must be a mapping of users to permissions, got \(Self.describe(node))",
                  hint: "for example {bob: READ_WRITE}", at: node)
            return nil
        }
        var result: [ZoneShareAction.Participant] = []
        var ok = true
        for (keyNode, value) in mapping {
            guard let user = user(keyNode, what: "a participant"),
                  let permission = choice(value, what: "permission of \(user)", ["READ_ONLY", "READ_WRITE"].map { ($0, $0) })
            else {
                ok = false
                continue
            }
            result.append(ZoneShareAction.Participant(user: user, permission: permission))
        }
        return ok ? result : nil
    }

    /// `[bob]`: declared users, at least one.
    private func removals(_ node: Node, in step: String) -> [ZoneShareAction.Participant]? {
        guard let names = names(node, what: "participants") else { return nil }
        let items = list(node, what: "participants") ?? []
        var ok = !names.isEmpty
        if names.isEmpty { error("\(step) needs at least one participant", at: node) }
        for (name, item) in zip(names, items) where !checkUser(name, at: item) { ok = false }
        return ok ? names.map { ZoneShareAction.Participant(user: $0, permission: "NONE") } : nil
    }
}
