import Foundation

/// `admin.json` in a server's data folder: the server admin token `syncscope serve` keeps there.
enum AdminTokenFile {
    static func url(in directory: URL) -> URL { directory.appendingPathComponent("admin.json") }

    /// The token, or `nil` when the file is missing or unreadable.
    static func read(in directory: URL) -> String? {
        struct Admin: Decodable { var adminToken: String }
        guard let data = try? Data(contentsOf: url(in: directory)) else { return nil }
        return (try? JSONDecoder().decode(Admin.self, from: data))?.adminToken
    }
}
