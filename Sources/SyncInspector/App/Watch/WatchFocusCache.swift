/// The focused client's views kept between messages, and how many times
/// each client's events changed (kept or let go): what tells whether the
/// views kept still hold. Derived from the rest of ``ServerWatchState``:
/// two states whose events and focus are equal show the same, whatever
/// this holds, so it compares equal to any other.
struct WatchFocusCache: Sendable, Equatable {
    var focus: WatchFocus?
    private var versions: [String: Int] = [:]

    func version(of client: String) -> Int { versions[client, default: 0] }

    /// An event of `client` was kept or let go.
    mutating func changed(_ client: String?) {
        guard let client else { return }
        versions[client, default: 0] += 1
    }

    static func == (lhs: Self, rhs: Self) -> Bool { true }
}
