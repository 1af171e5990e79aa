import Foundation
import SyncCore
import SyncWire
import SyncServer

/// `tokens/create` and `tokens/register`, at Apple's path
/// (`/database/1/{container}/{environment}/tokens/…`) and ours (`/device/1/…`).
extension APIDispatcher {
    package func pushToken(_ call: APICall, _ arguments: RouteArguments, creating: Bool) throws(CloudError) -> APIAnswer {
        let container = arguments.container
        let environment = arguments.environment
        let caller = try requireUser(call, "Registering for push notifications")
        try core.engine.checkCaller(caller)
        let request = try decode(WireAPNsToken.self, call)
        if let apns = request.apnsEnvironment, ContainerEnvironment(rawValue: apns) == nil {
            throw CloudError(.invalidArguments, "apnsEnvironment is '\(apns)'; use development or production.")
        }
        let token: String
        if creating {
            // The push channel belongs to its creator from now on: only they
            // can register it. Its ID is no secret (it shows in records'
            // `modified.deviceID`); it follows from the call, so a replay of
            // the journal makes the same one. The webcourierURL's secret part
            // (``ServerEngine/webcourierSecret(forDevice:)``) is what lets a
            // poll in, and only this answer and tokens/register's (to the
            // creator) carry it.
            token = newDeviceID(user: caller.user, container: container, environment: environment)
        } else {
            guard let given = request.apnsToken else {
                throw CloudError(.invalidArguments, "tokens/register needs 'apnsToken' (from tokens/create).")
            }
            switch core.push.owner(ofDevice: given) {
            case caller.user?:
                break
            case nil:
                throw CloudError(
                    .unknownItem, "There is no push channel '\(given)' in this server: make one with tokens/create, then register the apnsToken it gives.")
            default:
                throw CloudError(
                    .permissionFailure, "The push channel '\(given)' belongs to another user; make your own with tokens/create.")
            }
            token = given
        }
        try core.engine.addUser(caller.user)
        try core.push.registerDevice(token, user: caller.user, container: container, environment: environment, now: now)
        return try encode(
            WireAPNsToken(
                apnsEnvironment: request.apnsEnvironment ?? environment.rawValue, apnsToken: token,
                webcourierURL: Self.webcourierURL(
                    baseURL: baseURL, container: container, environment: environment,
                    token: Self.webcourierToken(deviceID: token, secret: core.engine.webcourierSecret(forDevice: token)))),
            changed: true)
    }

    /// A new device ID: 32 hex digits mixed from the time, the caller and
    /// the container, unique in this server.
    private func newDeviceID(user: String, container: String, environment: ContainerEnvironment) -> String {
        var attempt: UInt64 = 0
        while true {
            var crc = CRC32()
            crc.add("\(now) \(attempt) \(user) \(container) \(environment.rawValue)")
            var mixer = SeededRandom(seed: UInt64(bitPattern: now) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(crc.value) << 20 ^ attempt)
            let id = (0..<2).map { _ in String(format: "%016llx", mixer.next()) }.joined()
            if core.push.owner(ofDevice: id) == nil { return id }
            attempt += 1
        }
    }

    /// The last segment of a webcourierURL: the device ID, a dot, and the
    /// secret (64 hex digits, never holding a dot).
    package static func webcourierToken(deviceID: String, secret: String) -> String {
        deviceID + "." + secret
    }

    /// The device ID and the secret of a webcourierURL's last segment, or `nil` when it has no secret part.
    package static func webcourierParts(_ token: String) -> (deviceID: String, secret: String)? {
        guard let dot = token.utf8.lastIndex(of: UInt8(ascii: ".")), dot != token.utf8.startIndex else { return nil }
        return (String(token[..<dot]), String(token[token.index(after: dot)...]))
    }

    package static func webcourierURL(baseURL: String, container: String, environment: ContainerEnvironment, token: String) -> String {
        let escaped = container.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? container
        return "\(baseURL)/device/1/\(escaped)/\(environment.rawValue)/webcourier/\(token)"
    }
}
