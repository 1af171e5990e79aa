import SyncCore

/// `records/query`: `{"query": {"recordType", "filterBy"?, "sortBy"?},
/// "zoneID"?, "zoneWide"?, "resultsLimit"?, "continuationMarker"?,
/// "desiredKeys"?, "numbersAsStrings"?}`.
public struct WireRecordsQueryRequest: Codable, Sendable, Hashable {
    public var query: WireQuery
    public var zoneID: WireZoneID?
    public var zoneWide: Bool?
    public var resultsLimit: Int?
    public var continuationMarker: String?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?

    public init(
        query: WireQuery, zoneID: WireZoneID? = nil, zoneWide: Bool? = nil, resultsLimit: Int? = nil, continuationMarker: String? = nil,
        desiredKeys: [String]? = nil, numbersAsStrings: Bool? = nil
    ) {
        self.query = query
        self.zoneID = zoneID
        self.zoneWide = zoneWide
        self.resultsLimit = resultsLimit
        self.continuationMarker = continuationMarker
        self.desiredKeys = desiredKeys
        self.numbersAsStrings = numbersAsStrings
    }
}

/// The answer of `records/query`: `{"records", "continuationMarker"?,
/// "syncToken"?}`; `continuationMarker` is there while the query's snapshot has records left,
/// `syncToken` when the request asked `getCurrentSyncToken=true`.
public struct WireRecordsQueryResponse: Codable, Sendable, Hashable {
    public var records: [WireResult<WireRecord>]
    public var continuationMarker: String?
    public var syncToken: ServerChangeToken?

    public init(records: [WireResult<WireRecord>], continuationMarker: String? = nil, syncToken: ServerChangeToken? = nil) {
        self.records = records
        self.continuationMarker = continuationMarker
        self.syncToken = syncToken
    }
}

/// `records/changes` (the older per-zone change fetch): `{"zoneID",
/// "syncToken"?, "resultsLimit"?, "desiredKeys"?, "desiredRecordTypes"?,
/// "numbersAsStrings"?}`.
public struct WireRecordsChangesRequest: Codable, Sendable, Hashable {
    public var zoneID: WireZoneID
    public var syncToken: ServerChangeToken?
    public var resultsLimit: Int?
    public var desiredKeys: [String]?
    public var desiredRecordTypes: [String]?
    public var numbersAsStrings: Bool?

    public init(
        zoneID: WireZoneID, syncToken: ServerChangeToken? = nil, resultsLimit: Int? = nil, desiredKeys: [String]? = nil,
        desiredRecordTypes: [String]? = nil, numbersAsStrings: Bool? = nil
    ) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.resultsLimit = resultsLimit
        self.desiredKeys = desiredKeys
        self.desiredRecordTypes = desiredRecordTypes
        self.numbersAsStrings = numbersAsStrings
    }
}

/// The answer of `records/changes`: `{"zoneID", "records", "syncToken", "moreComing"}`.
public struct WireRecordsChangesResponse: Codable, Sendable, Hashable {
    public var zoneID: WireZoneID
    public var records: [WireRecord]
    public var syncToken: ServerChangeToken
    public var moreComing: Bool

    public init(zoneID: WireZoneID, records: [WireRecord], syncToken: ServerChangeToken, moreComing: Bool) {
        self.zoneID = zoneID
        self.records = records
        self.syncToken = syncToken
        self.moreComing = moreComing
    }
}

extension WireRecord {
    /// The same record with its `INT64` and `DOUBLE` values (and lists of
    /// them) written as strings: what `numbersAsStrings` asks for.
    public func numbersAsStrings() -> WireRecord {
        guard let fields else { return self }
        var copy = self
        var converted: [String: WireField] = [:]
        converted.reserveCapacity(fields.count)
        for (name, field) in fields {
            var field = field
            switch field.type {
            case "INT64", "DOUBLE", "INT64_LIST", "DOUBLE_LIST": field.value = field.value.map(Self.stringified)
            default: break
            }
            converted[name] = field
        }
        copy.fields = converted
        return copy
    }

    private static func stringified(_ value: JSONValue) -> JSONValue {
        switch value {
        case .integer(let i): .string(String(i))
        case .double(let d): .string(String(d))
        case .array(let items): .array(items.map(stringified))
        default: value
        }
    }
}

// MARK: Users

/// A user on the wire, as `users/current` and `users/lookup/*` answer:
/// `{"userRecordName", "firstName"?, "lastName"?, "emailAddress"?}`.
public struct WireUser: Codable, Sendable, Hashable {
    public var userRecordName: String
    public var firstName: String?
    public var lastName: String?
    public var emailAddress: String?

    public init(userRecordName: String, firstName: String? = nil, lastName: String? = nil, emailAddress: String? = nil) {
        self.userRecordName = userRecordName
        self.firstName = firstName
        self.lastName = lastName
        self.emailAddress = emailAddress
    }
}

/// A user identity, as `users/caller` and `users/discover` answer:
/// `{"userRecordName", "nameComponents": {"givenName", "familyName"},
/// "lookupInfo": {"emailAddress", "userRecordName"}}`.
public struct WireUserIdentity: Codable, Sendable, Hashable {
    public struct NameComponents: Codable, Sendable, Hashable {
        public var givenName: String?
        public var familyName: String?

        public init(givenName: String? = nil, familyName: String? = nil) {
            self.givenName = givenName
            self.familyName = familyName
        }
    }

    public var userRecordName: String
    public var nameComponents: NameComponents?
    public var lookupInfo: WireUserLookupInfo?

    public init(userRecordName: String, nameComponents: NameComponents? = nil, lookupInfo: WireUserLookupInfo? = nil) {
        self.userRecordName = userRecordName
        self.nameComponents = nameComponents
        self.lookupInfo = lookupInfo
    }
}

/// How a user is looked up: `{"emailAddress"?, "phoneNumber"?, "userRecordName"?}`.
public struct WireUserLookupInfo: Codable, Sendable, Hashable {
    public var emailAddress: String?
    public var phoneNumber: String?
    public var userRecordName: String?

    public init(emailAddress: String? = nil, phoneNumber: String? = nil, userRecordName: String? = nil) {
        self.emailAddress = emailAddress
        self.phoneNumber = phoneNumber
        self.userRecordName = userRecordName
    }
}

/// `users/discover` (POST): `{"lookupInfos": [lookup info]}`.
public struct WireUsersDiscoverRequest: Codable, Sendable, Hashable {
    public var lookupInfos: [WireUserLookupInfo]

    public init(lookupInfos: [WireUserLookupInfo]) { self.lookupInfos = lookupInfos }
}

/// `users/lookup/email` and `users/lookup/id`: `{"users": [{"emailAddress"} | {"userRecordName"}]}`.
public struct WireUsersLookupRequest: Codable, Sendable, Hashable {
    public var users: [WireUserLookupInfo]

    public init(users: [WireUserLookupInfo]) { self.users = users }
}

/// `{"users": [...]}`: the answer of `users/lookup/*` (users) and `users/discover` (identities).
public struct WireUsersResponse<User: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    public var users: [User]

    public init(users: [User]) { self.users = users }
}

// MARK: Zone changes (zones/changes)

/// `zones/changes`: `{"syncToken"?, "resultsLimit"?}` — the zones of the
/// database that changed since the token, as `changes/database` answers.
public typealias WireZonesChangesRequest = WireDatabaseChangesRequest
