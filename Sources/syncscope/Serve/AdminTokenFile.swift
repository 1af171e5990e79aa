import Foundation

/// `admin.json` in a server's data folder: the server admin token `syncscope serve` keeps there.
enum AdminTokenFile {
    static func url(in directory: URL) -> URL { directory.appendingPathComponent("admin.json") }

    /// What to say when no `--admin-token` was given and `admin.json` in `directory` cannot be read.
    static func missing(in directory: URL) -> String {
        "No --admin-token given and \(url(in: directory).path) cannot be read. The event feed shows every user's traffic, so it needs the server admin token: pass --admin-token (syncscope serve prints it), or --server-data with the server's data folder."
    }

    /// The token, or `nil` when the file is missing or unreadable.
    static func read(in directory: URL) -> String? {
        struct Admin: Decodable { var adminToken: String }
        guard let data = try? Data(contentsOf: url(in: directory)) else { return nil }
        return (try? JSONDecoder().decode(Admin.self, from: data))?.adminToken
    }
}
