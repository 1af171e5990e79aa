import SyncCore
import SyncServer
import Testing

@Suite struct SubscriptionPlacementTests {
    let f = PushFixture()

    @Test func databaseSubscriptionLivesInPrivateAndSharedButNotPublic() async throws {
        let alice = try f.server.connect(user: "alice")
        let sub = Subscription.database(DatabaseSubscription(subscriptionID: "db"))
        #expect(try await alice.subscribeError(sub, in: .private) == nil)
        #expect(try await alice.subscribeError(sub, in: .shared) == nil)
        let error = try await alice.subscribeError(sub, in: .public)
        #expect(error?.code == .invalidArguments)
        #expect(error?.subscriptionID == "db")
        #expect(error?.reason.contains("Database subscriptions live only in the private and shared databases") == true)
    }

    @Test func recordZoneSubscriptionNeedsOwnCustomZoneInPrivateDatabase() async throws {
        let alice = try f.server.connect(user: "alice")
        let custom = Subscription.recordZone(RecordZoneSubscription(subscriptionID: "z", zoneID: RecordZoneID(zoneName: "Notes", ownerName: "")))
        for scope in [DatabaseScope.public, .shared] {
            let error = try await alice.subscribeError(custom, in: scope)
            #expect(error?.code == .invalidArguments)
            #expect(error?.reason.contains("Record zone subscriptions live only in the private database") == true)
        }
        let defaultZone = Subscription.recordZone(RecordZoneSubscription(subscriptionID: "z", zoneID: .defaultZone(ownerName: "alice")))
        let defaultError = try await alice.subscribeError(defaultZone, in: .private)
        #expect(defaultError?.code == .invalidArguments)
        #expect(defaultError?.reason.contains("need a custom zone") == true)
        let foreign = Subscription.recordZone(RecordZoneSubscription(subscriptionID: "z", zoneID: zone("Notes", "bob")))
        let foreignError = try await alice.subscribeError(foreign, in: .private)
        #expect(foreignError?.code == .invalidArguments)
        #expect(foreignError?.reason.contains("belongs to bob") == true)

        let saved = try await alice.modifySubscriptions(in: .private, saving: [custom], deleting: [])
        guard case .success(.saved(.recordZone(let stored))) = saved.first else {
            Issue.record("expected a saved zone subscription, got \(saved)")
            return
        }
        #expect(stored.zoneID == zone("Notes", "alice"), "the server fills in the caller as the zone owner")
    }

    @Test func querySubscriptionLivesInPublicAndPrivateButNotShared() async throws {
        let alice = try f.server.connect(user: "alice")
        let sub = Subscription.query(QuerySubscription(subscriptionID: "q", recordType: "Note", options: .firesOnRecordCreation))
        #expect(try await alice.subscribeError(sub, in: .public) == nil)
        #expect(try await alice.subscribeError(sub, in: .private) == nil)
        let error = try await alice.subscribeError(sub, in: .shared)
        #expect(error?.code == .invalidArguments)
        #expect(error?.reason.contains("Query subscriptions live only in the public and private databases") == true)
    }

    @Test func querySubscriptionMustFireOnCreationUpdateOrDeletion() async throws {
        let alice = try f.server.connect(user: "alice")
        for options in [QuerySubscription.Options(), [.firesOnce]] {
            let sub = Subscription.query(QuerySubscription(subscriptionID: "q", recordType: "Note", options: options))
            let error = try await alice.subscribeError(sub, in: .private)
            #expect(error?.code == .invalidArguments)
            #expect(error?.reason.contains("at least one of record creation, update or deletion") == true)
        }
    }

    @Test func publicQuerySubscriptionCanWatchOnlyTheDefaultZone() async throws {
        let alice = try f.server.connect(user: "alice")
        let custom = Subscription.query(QuerySubscription(subscriptionID: "q", recordType: "Note", zoneID: zone("Notes"), options: .firesOnRecordCreation))
        let error = try await alice.subscribeError(custom, in: .public)
        #expect(error?.code == .invalidArguments)
        #expect(error?.reason.contains("only the default zone") == true)
        let defaultZone = Subscription.query(QuerySubscription(
            subscriptionID: "q", recordType: "Note", zoneID: .defaultZone(ownerName: ""), options: .firesOnRecordCreation))
        #expect(try await alice.subscribeError(defaultZone, in: .public) == nil)
    }

    @Test(arguments: [
        (QueryFilter("ref", .lessThan, .reference(RecordReference(recordName: "x"))), "have no order"),
        (QueryFilter("n", .in, 3), "needs a list of values"),
        (QueryFilter("n", .notIn, "a"), "needs a list of values"),
        (QueryFilter("title", .beginsWith, 3), "needs a STRING prefix"),
        (QueryFilter("tags", .listContains, .list(.string, ["a"])), "needs a single value"),
        (QueryFilter("9lives", .equals, 3), "not a valid field name"),
    ])
    func querySubscriptionWithNonsensicalFilterIsRejected(filter: QueryFilter, rule: String) async throws {
        let alice = try f.server.connect(user: "alice")
        let sub = Subscription.query(QuerySubscription(
            subscriptionID: "q", recordType: "Note", predicate: QueryPredicate([filter]), options: .firesOnRecordUpdate))
        let error = try await alice.subscribeError(sub, in: .private)
        #expect(error?.code == .invalidArguments)
        #expect(error?.reason.contains(rule) == true, "\(error?.reason ?? "no error")")
    }

    @Test func savedSubscriptionsAreFetchedByIDOrAllAndDeleted() async throws {
        let alice = try f.server.connect(user: "alice")
        let a = Subscription.database(DatabaseSubscription(subscriptionID: "b-db", recordType: "Note"))
        let b = Subscription.query(QuerySubscription(subscriptionID: "a-q", recordType: "Note", options: .firesOnRecordDeletion))
        try await alice.subscribe([a, b])
        let all = try await alice.fetchSubscriptions(in: .private, ids: nil).map { try $0.get().subscriptionID }
        #expect(all == ["a-q", "b-db"])
        let byID = try await alice.fetchSubscriptions(in: .private, ids: ["b-db", "missing"])
        #expect(try byID[0].get() == a)
        guard case .failure(let missing) = byID[1] else { Issue.record("expected unknownItem"); return }
        #expect(missing.code == .unknownItem)
        #expect(missing.subscriptionID == "missing")
        #expect(try await alice.fetchSubscriptions(in: .shared, ids: nil).isEmpty, "each database has its own subscriptions")

        let deleted = try await alice.modifySubscriptions(in: .private, saving: [], deleting: ["a-q", "nope"])
        #expect(try deleted[0].get() == .deleted(subscriptionID: "a-q"))
        guard case .failure(let notFound) = deleted[1] else { Issue.record("expected unknownItem"); return }
        #expect(notFound.code == .unknownItem)
        #expect(try await alice.fetchSubscriptions(in: .private, ids: nil).map { try $0.get() } == [a])
    }

    @Test func savingAnExistingIDReplacesTheSubscription() async throws {
        let alice = try f.server.connect(user: "alice")
        try await alice.subscribe([.database(DatabaseSubscription(subscriptionID: "s"))])
        let replacement = Subscription.query(QuerySubscription(subscriptionID: "s", recordType: "Note", options: .firesOnRecordCreation))
        try await alice.subscribe([replacement])
        #expect(try await alice.fetchSubscriptions(in: .private, ids: nil).map { try $0.get() } == [replacement])
        #expect(f.server.withPush { $0.subscriptionCount } == 1)
    }

    @Test func subscriptionsBelongToTheirUser() async throws {
        let alice = try f.server.connect(user: "alice")
        let bob = try f.server.connect(user: "bob")
        try await alice.subscribe([.database(DatabaseSubscription(subscriptionID: "mine"))])
        #expect(try await bob.fetchSubscriptions(in: .private, ids: nil).isEmpty)
        let lookup = try await bob.fetchSubscriptions(in: .private, ids: ["mine"])
        guard case .failure(let error) = lookup.first else { Issue.record("bob must not see alice's subscription"); return }
        #expect(error.code == .unknownItem)
        let deletion = try await bob.modifySubscriptions(in: .private, saving: [], deleting: ["mine"])
        guard case .failure = deletion.first else { Issue.record("bob must not delete alice's subscription"); return }
        #expect(try await alice.fetchSubscriptions(in: .private, ids: ["mine"]).first.map { try $0.get().subscriptionID } == "mine")
    }

    @Test func anIDTwiceInOneRequestFailsTheSecondItem() async throws {
        let alice = try f.server.connect(user: "alice")
        let sub = Subscription.database(DatabaseSubscription(subscriptionID: "s"))
        let results = try await alice.modifySubscriptions(in: .private, saving: [sub, sub], deleting: ["s"])
        #expect(try results[0].get() == .saved(sub))
        for result in results.dropFirst() {
            guard case .failure(let error) = result else { Issue.record("expected a duplicate error"); continue }
            #expect(error.code == .invalidArguments)
            #expect(error.reason.contains("more than once"))
        }
    }

    @Test func tooManyOperationsFailTheWholeRequest() async throws {
        let alice = try f.server.connect(user: "alice")
        let subs = (0..<401).map { Subscription.database(DatabaseSubscription(subscriptionID: "s\($0)")) }
        await #expect(throws: CloudError.self) { try await alice.modifySubscriptions(in: .private, saving: subs, deleting: []) }
        #expect(f.server.withPush { $0.subscriptionCount } == 0)
    }

    @Test func unknownUserCannotSubscribe() async throws {
        let ghost = InProcessCloudService(server: f.server, caller: Caller(user: "ghost"), container: PushFixture.container, environment: .development)
        await #expect(throws: CloudError.self) {
            try await ghost.modifySubscriptions(in: .private, saving: [.database(DatabaseSubscription(subscriptionID: "s"))], deleting: [])
        }
    }
}
