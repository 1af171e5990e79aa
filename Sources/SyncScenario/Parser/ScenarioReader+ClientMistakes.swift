import SyncCore
import Yams

/// The steps lessons use to show a client's mistakes and their fixes:
/// `modifyRecords`, `signIn`, `checkAccount`, and `fetch`'s `crash:`.
extension ScenarioReader {
    /// `modifyRecords: iPhone` or `modifyRecords: {device: iPhone, zone: Inbox, perRequest: 400}`.
    func modifyRecords(_ node: Node) -> StepKind? {
        guard case .mapping = node else {
            return deviceOnly(node, step: "modifyRecords").map { .modifyRecords(ModifyRecordsAction(device: $0)) }
        }
        guard let entries = mapping(
            node, in: "modifyRecords", keys: ["device", "database", "zone", "perRequest", "records"], required: ["device"],
            example: "{device: iPhone, zone: Inbox, perRequest: 400}")
        else { return nil }
        var ok = true
        let device = entries["device"].flatMap { self.device($0) }
        var action = ModifyRecordsAction(device: device ?? "")
        if let node = entries["database"] {
            if let scope = database(node) {
                if scope == .public {
                    error("modifyRecords sends to the private or shared database", hint: "use 'save' and 'send' for the public database", at: node)
                    ok = false
                }
                action.database = scope
            } else {
                ok = false
            }
        }
        if let node = entries["zone"] {
            if let zone = zoneRef(node) {
                action.zone = zone
                noteZoneUse(zone, at: node)
            } else {
                ok = false
            }
        }
        if let node = entries["perRequest"] {
            if case .scalar(let scalar) = node, scalar.string == "all" {
                action.perRequest = nil
            } else if let n = wholeNumber(node, what: "perRequest", atLeast: 1) {
                action.perRequest = n
            } else {
                ok = false
            }
        }
        if let node = entries["records"] {
            if action.zone == nil {
                error("records needs 'zone': the zone the request saves them in", at: node)
                ok = false
            }
            guard let items = list(node, what: "records") else { return nil }
            for item in items {
                guard let record = mapping(
                    item, in: "each of records", keys: ["record", "type", "fields"], required: ["record", "type"],
                    example: "{record: note-1, type: Note, fields: {title: Groceries}}")
                else { ok = false; continue }
                let recordName = record["record"].flatMap { name($0, what: "record") }
                let type = record["type"].flatMap { name($0, what: "type") }
                var parsed = ParsedFields()
                if let fieldsNode = record["fields"] {
                    if let fields = fields(fieldsNode, in: "modifyRecords", defaultOwner: userOf(device: device), allowRemoval: false) {
                        parsed = fields
                    } else {
                        ok = false
                    }
                }
                guard let recordName, let type else { ok = false; continue }
                action.records.append(ModifyRecordsAction.NewRecord(recordName: recordName, recordType: type, fields: parsed.fields))
            }
        }
        guard ok, device != nil else { return nil }
        return .modifyRecords(action)
    }

    /// `signIn: {device: Mac, user: bob}`.
    func signIn(_ node: Node) -> StepKind? {
        guard let entries = mapping(
            node, in: "signIn", keys: ["device", "user"], required: ["device", "user"], example: "{device: Mac, user: bob}")
        else { return nil }
        let device = entries["device"].flatMap { self.device($0) }
        let user = entries["user"].flatMap { self.user($0) }
        guard let device, let user else { return nil }
        return .signIn(SignInAction(device: device, user: user))
    }

    /// `crash: {batch: 2, storing: tokenFirst}` inside a `fetch`.
    func fetchCrash(_ node: Node) -> FetchCrash? {
        guard let entries = mapping(
            node, in: "crash", keys: ["batch", "storing"], required: ["batch", "storing"],
            example: "{batch: 2, storing: tokenFirst}")
        else { return nil }
        let batch = entries["batch"].flatMap { wholeNumber($0, what: "batch", atLeast: 1) }
        let storing: FetchCrash.Storing? = entries["storing"].flatMap { choice($0, what: "storing") }
        guard let batch, let storing else { return nil }
        return FetchCrash(batch: batch, storing: storing)
    }
}
