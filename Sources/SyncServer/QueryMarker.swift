import Foundation
import SyncCore

/// What a `continuationMarker` stands for: a position in a snapshot the
/// engine keeps, bound to the query it belongs to. Handed out as URL-safe
/// base64 of `2:snapshot:created:offset:digest:query` (the same marker for
/// the same position, byte for byte); it holds no record data.
struct QueryMarker: Hashable {
    /// The snapshot's number in this engine.
    var snapshot: UInt64
    /// When the snapshot was taken (engine clock): with ``digest``, tells a
    /// snapshot from one a restarted server numbered the same.
    var created: Milliseconds
    /// FNV-1a over the snapshot's record positions, in order (hex).
    var digest: String
    /// Fingerprint of the query (type, filters, sort; hex).
    var query: String
    /// The next entry of the snapshot to look at.
    var offset: Int

    static let version = "2"

    func encoded() -> String {
        let text = [Self.version, String(snapshot), String(created), String(offset), digest, query].joined(separator: ":")
        return Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> QueryMarker? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64.append("=") }
        guard let data = Data(base64Encoded: base64), let plain = String(data: data, encoding: .utf8) else { return nil }
        let parts = plain.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 6, parts[0] == version, let snapshot = UInt64(parts[1]), let created = Milliseconds(parts[2]),
              let offset = Int(parts[3]), offset >= 0, !parts[4].isEmpty, !parts[5].isEmpty
        else { return nil }
        return QueryMarker(snapshot: snapshot, created: created, digest: parts[4], query: parts[5], offset: offset)
    }
}
