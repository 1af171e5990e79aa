import Foundation
import SyncCore
import SyncWire

/// Reading the feed: the only place its events are worded and their clients named.
extension ServerEventFeed {
    /// The events after `sequence` (at most `limit`) as the route answers
    /// them: a ``WireServerEvents`` in JSON, with the request and answer
    /// bodies when `bodies` (a body known to be JSON written as it came, never
    /// parsed and encoded again). Inspector requests are left out unless
    /// `inspectorReads`.
    package func readJSON(after sequence: UInt64, limit: Int, bodies: Bool, inspectorReads: Bool = false) throws -> Data {
        let page = events(after: sequence, limit: limit)
        // The clients are learned in order up to the page's first event, then from the page's own events (each read once).
        if let first = page.events.first { learnClients(through: first.sequence - 1) }
        clients.observe(page.events)
        var wire: [WireServerEvent] = []
        // Beside `wire`, index for index: the bodies that go as bytes.
        var raw: [WireServerEvents.RawBodies?] = []
        wire.reserveCapacity(page.events.count)
        for event in page.events {
            let before = wire.count
            let bytes = append(event, bodies: bodies, inspectorReads: inspectorReads, to: &wire)
            guard wire.count > before else { continue }
            raw.append(bytes)
            raw.append(contentsOf: repeatElement(nil, count: wire.count - before - 1))
        }
        return try WireServerEvents(node: node, events: wire, next: page.next, missed: page.missed).json(raw: raw)
    }

    /// Lets the client directory learn every event it has not yet, in order,
    /// through `sequence` (the newest when `nil`), whatever page a watcher reads.
    package func learnClients(through sequence: UInt64? = nil) {
        let learned = clients.observedThrough
        let through = min(sequence ?? newest, newest)
        if learned < through { clients.observe(events(after: learned, limit: Int(through - learned), bodies: false).events) }
    }

    /// Appends `event` in its wire shape (a request that changed zones or
    /// records with one `change` event each), and answers the bodies of a
    /// request known to be JSON as bytes, for the first event appended,
    /// instead of parsing them into it.
    private func append(_ event: ServerEvent, bodies: Bool, inspectorReads: Bool, to wire: inout [WireServerEvent]) -> WireServerEvents.RawBodies? {
        var base = WireServerEvent(seq: event.sequence, node: node, position: event.position, time: event.time, kind: "request")
        switch event.kind {
        case .request(let request):
            if request.isInspector && !inspectorReads { return nil }
            var out = base
            out.method = request.method
            out.operation = request.operation
            out.path = request.path
            out.user = request.isServerAdmin ? WireServerEvent.serverAdminUser : request.user
            let client = clients.client(of: request)
            out.client = client?.key
            out.clientName = client?.name
            out.device = request.device
            out.inspector = request.isInspector ? true : nil
            out.tokenIn = request.tokenIn?.rawValue
            out.tokenOut = request.tokenOut?.rawValue
            out.status = request.status
            if request.status != 200, let error = try? WireJSON.decode(WireError.self, from: request.answerBody) {
                out.errorCode = error.serverErrorCode
                out.retryAfter = error.retryAfter
            }
            let parts = request.latency.components
            out.latencyMs = Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
            out.fault = request.fault
            // A POST to a JSON route answered 200 had a body that parsed, and the answer is the server's
            // own JSON: both go as bytes. Other bodies are parsed, and only when the answer shows them.
            var bytes: WireServerEvents.RawBodies?
            if bodies, request.status == 200, request.method == "POST", request.bodyIsJSON {
                bytes = WireServerEvents.RawBodies(
                    request: request.requestBody.isEmpty ? nil : request.requestBody, answer: request.answerBody.isEmpty ? nil : request.answerBody)
            } else if bodies {
                out.request = Self.json(request.requestBody)
                out.answer = Self.json(request.answerBody)
            }
            wire.append(out)
            if request.status == 200 {
                for change in request.changes {
                    var item = base
                    item.kind = "change"
                    item.user = request.user
                    item.client = client?.key
                    item.clientName = client?.name
                    item.change = change.kind.rawValue
                    item.zone = change.zone
                    item.recordName = change.recordName
                    wire.append(item)
                }
            }
            return bytes
        case .push(let push):
            base.kind = "push"
            guard let (action, deviceID, ids, user, detail) = Self.words(push.kind) else { return nil }
            base.action = action
            base.deviceID = deviceID
            base.notificationIDs = ids
            base.user = user
            base.detail = detail
            if let deviceID, let client = clients.client(ofDevice: deviceID) {
                base.client = client.key
                base.clientName = client.name
            }
            wire.append(base)
            return nil
        case .acknowledged(let deviceID, let ids):
            base.kind = "push"
            base.action = "acknowledged"
            base.deviceID = deviceID
            base.notificationIDs = ids
            if let client = clients.client(ofDevice: deviceID) {
                base.client = client.key
                base.clientName = client.name
            }
            wire.append(base)
            return nil
        }
    }

    private static func json(_ body: Data) -> JSONValue? {
        guard !body.isEmpty, let first = body.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return nil }
        return try? WireJSON.decode(JSONValue.self, from: body)
    }

    /// A push event in words: (action, device, notifications, user, detail); `nil` for those a watcher has no use for.
    static func words(_ kind: PushEvent.Kind) -> (String, String?, [String]?, String?, String?)? {
        switch kind {
        case .notificationCreated(let user, let notification, let matched):
            return ("created", nil, [notification.notificationID], user, "\(matched) change\(matched == 1 ? "" : "s")")
        case .pruned(let id, let subscription, let report):
            return ("pruned", nil, [id], nil, "subscription \(subscription): \(report.sizeBefore) → \(report.sizeAfter) bytes")
        case .originatorSkipped(let device, let id):
            return ("skipped", device, [id], nil, "the device made the change")
        case .queued(let device, let id, let at):
            return ("queued", device, [id], nil, "arrives at \(at)")
        case .coalesced(let device, let survivor, let merged, let count):
            return ("coalesced", device, [merged, survivor], nil, "stands for \(count)")
        case .heldWhileOffline(let device, let id, let replaced, let count):
            return ("heldWhileOffline", device, [id] + (replaced.map { [$0] } ?? []), nil, "stands for \(count)\(replaced.map { "; \($0) dropped" } ?? "")")
        case .delivered(let delivery):
            return ("delivered", delivery.deviceID, [delivery.notification.notificationID], delivery.user, "after \(delivery.latency) ms")
        case .subscriptionDeleted(let user, let subscription):
            return ("subscriptionDeleted", nil, nil, user, subscription)
        case .subscriptionRemovedWithZone(let user, let subscription, let zone):
            return ("subscriptionDeleted", nil, nil, user, "\(subscription): zone \(zone.zoneName) went away")
        case .deviceRegistered(let device, let user):
            return ("registered", device, nil, user, nil)
        case .deviceOnline(let device, let online):
            return (online ? "online" : "offline", device, nil, nil, nil)
        case .faultInjected(let device, let id, _, let detail):
            return (detail == "dropped" ? "dropped" : "fault", device, [id], nil, detail)
        }
    }
}
