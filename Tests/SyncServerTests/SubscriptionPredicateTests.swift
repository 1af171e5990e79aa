import SyncCore
import Testing

/// One comparator case: the filter, a record's fields, and whether they match.
struct PredicateCase: Sendable, CustomTestStringConvertible {
    var filter: QueryFilter
    var fields: RecordFields
    var matches: Bool
    var testDescription: String {
        "\(filter.fieldName) \(filter.comparator.rawValue) \(filter.fieldValue.displayString) on \(fields.map { "\($0.name)=\($0.value.displayString)" }) → \(matches)"
    }
}

private func c(_ name: String, _ comparator: QueryComparator, _ value: FieldValue, _ fields: RecordFields, _ matches: Bool) -> PredicateCase {
    PredicateCase(filter: QueryFilter(name, comparator, value), fields: fields, matches: matches)
}

@Suite struct SubscriptionPredicateTests {
    static let cases: [PredicateCase] = [
        c("n", .equals, 3, ["n": 3], true),
        c("n", .equals, 3, ["n": 4], false),
        c("n", .equals, 3.0, ["n": 3], true),  // INT64 and DOUBLE compare as numbers
        c("title", .equals, "a", ["title": "a"], true),
        c("title", .equals, "a", ["title": "A"], false),
        c("title", .equals, "3", ["title": 3], false),  // different types are never equal
        c("title", .equals, "a", [:], false),  // missing field
        c("n", .notEquals, 3, ["n": 4], true),
        c("n", .notEquals, 3, ["n": 3], false),
        c("n", .notEquals, 3, [:], false),
        c("n", .lessThan, 5, ["n": 4], true),
        c("n", .lessThan, 5, ["n": 5], false),
        c("n", .lessThan, 5, ["n": 4.5], true),
        c("when", .lessThan, .timestamp(1000), ["when": .timestamp(999)], true),
        c("when", .lessThan, .timestamp(1000), ["when": 999], false),  // TIMESTAMP and INT64 do not compare
        c("n", .lessThanOrEquals, 5, ["n": 5], true),
        c("n", .lessThanOrEquals, 5, ["n": 6], false),
        c("n", .greaterThan, 5, ["n": 6], true),
        c("n", .greaterThan, 5, ["n": 5], false),
        c("title", .greaterThan, "b", ["title": "c"], true),
        c("title", .greaterThan, "b", ["title": "a"], false),
        c("n", .greaterThanOrEquals, 5, ["n": 5], true),
        c("n", .greaterThanOrEquals, 5, ["n": 4], false),
        c("n", .greaterThanOrEquals, 5, ["n": "9"], false),
        c("color", .in, .list(.string, ["red", "blue"]), ["color": "blue"], true),
        c("color", .in, .list(.string, ["red", "blue"]), ["color": "green"], false),
        c("color", .in, .list(.string, ["red"]), [:], false),
        c("color", .notIn, .list(.string, ["red", "blue"]), ["color": "green"], true),
        c("color", .notIn, .list(.string, ["red", "blue"]), ["color": "red"], false),
        c("color", .notIn, .list(.string, ["red"]), [:], false),
        c("title", .beginsWith, "Gro", ["title": "Groceries"], true),
        c("title", .beginsWith, "gro", ["title": "Groceries"], false),
        c("title", .beginsWith, "Gro", ["title": 3], false),
        c("tags", .listContains, "home", ["tags": .list(.string, ["work", "home"])], true),
        c("tags", .listContains, "gym", ["tags": .list(.string, ["work", "home"])], false),
        c("tags", .listContains, "home", ["tags": "home"], false),  // not a list
    ]

    @Test(arguments: cases)
    func comparatorMatchesTypedFieldValues(_ c: PredicateCase) {
        #expect(c.filter.matches(c.fields) == c.matches)
    }

    @Test func everyComparatorIsCovered() {
        let covered = Set(Self.cases.map(\.filter.comparator))
        #expect(covered == Set(QueryComparator.allCases))
    }

    @Test func filtersAreANDed() {
        let predicate = QueryPredicate([QueryFilter("n", .greaterThan, 1), QueryFilter("title", .beginsWith, "a")])
        #expect(predicate.matches(["n": 2, "title": "ab"]))
        #expect(!predicate.matches(["n": 2, "title": "b"]))
        #expect(!predicate.matches(["n": 1, "title": "ab"]))
        #expect(QueryPredicate.all.matches([:]))
    }

    static let zoneID = RecordZoneID(zoneName: "Z", ownerName: "alice")
    func rec(_ n: Int64, type: String = "Note") -> Record {
        Record(recordID: RecordID(recordName: "r", zoneID: Self.zoneID), recordType: type, fields: ["n": .int64(n)])
    }

    let subscription = QuerySubscription(
        subscriptionID: "q", recordType: "Note", predicate: QueryPredicate([QueryFilter("n", .greaterThanOrEquals, 5)]),
        options: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion])

    @Test func newMatchingRecordIsCreated() {
        #expect(subscription.reason(before: nil, after: rec(7)) == .recordCreated)
        #expect(subscription.reason(before: nil, after: rec(1)) == nil)
    }

    @Test func recordThatMatchedAndStillMatchesIsUpdated() {
        #expect(subscription.reason(before: rec(5), after: rec(9)) == .recordUpdated)
    }

    @Test func updateThatStartsOrStopsMatchingDoesNotFire() {
        #expect(subscription.reason(before: rec(1), after: rec(9)) == nil)
        #expect(subscription.reason(before: rec(9), after: rec(1)) == nil)
    }

    @Test func recordThatMatchedBeforeDeletionIsDeleted() {
        #expect(subscription.reason(before: rec(6), after: nil) == .recordDeleted)
        #expect(subscription.reason(before: rec(4), after: nil) == nil)
    }

    @Test func otherRecordTypesNeverFire() {
        #expect(subscription.reason(before: nil, after: rec(7, type: "Tag")) == nil)
    }

    @Test func onlyTheChosenOptionsFire() {
        var created = subscription
        created.options = .firesOnRecordCreation
        #expect(created.reason(before: nil, after: rec(7)) == .recordCreated)
        #expect(created.reason(before: rec(7), after: rec(8)) == nil)
        #expect(created.reason(before: rec(7), after: nil) == nil)
    }
}
