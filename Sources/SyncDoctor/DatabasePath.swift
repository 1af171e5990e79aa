/// The parts of a `/database/1/{container}/{environment}/{scope}/{operation}`
/// path a watcher reads, in one place: read as bytes, at most as far as the
/// part asked for (the doctor and the inspector ask for one on every event
/// they see, and a split into `Character`s cost most of their time).
///
/// Parts are counted as `split(separator: "/")` counts them: empty ones
/// (a doubled or leading `/`) do not count.
public enum DatabasePath {
    /// Part `index` (from 0: `database`), if the path has it.
    public static func part(_ index: Int, of path: String) -> Substring? {
        let parts = path.utf8.split(separator: UInt8(ascii: "/"), maxSplits: index + 1)
        return parts.count > index ? Substring(parts[index]) : nil
    }

    /// The container (`iCloud.com.example.Notes`), if the path names one.
    public static func container(of path: String) -> String? {
        part(2, of: path).map(String.init)
    }

    /// The environment; `development` when the path names none.
    public static func environment(of path: String) -> String {
        part(3, of: path).map(String.init) ?? "development"
    }

    /// The database scope; `private` when the path names none.
    public static func scope(of path: String) -> String {
        part(4, of: path).map(String.init) ?? "private"
    }
}
