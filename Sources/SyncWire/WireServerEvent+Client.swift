extension WireServerEvent {
    /// The `user` of a request made with the server admin token.
    public static let serverAdminUser = "(server admin)"

    /// The client whose own traffic this event is: a request it made, or a
    /// push delivered to it; `nil` for an inspector's reads, the server
    /// admin's calls and every other event. What the client list, a client's
    /// traffic and the doctor all count.
    public var trafficClient: String? {
        guard let client, inspector != true, user != Self.serverAdminUser else { return nil }
        return kind == "request" || (kind == "push" && action == "delivered") ? client : nil
    }
}
