import Foundation
import SyncCore
import Testing
@testable import SyncScenario

@Suite("Durations")
struct DurationTests {
    @Test(arguments: [
        ("500ms", Int64(500)), ("2s", 2_000), ("1m", 60_000), ("1h", 3_600_000), ("1d", 86_400_000),
        ("1.5s", 1_500), ("0.25s", 250), ("1m30s", 90_000), ("2 s", 2_000), ("0ms", 0),
    ])
    func durationsReadAsMilliseconds(text: String, milliseconds: Int64) throws {
        #expect(try ScenarioReader.parseDuration(text).get() == milliseconds)
    }

    @Test(arguments: [
        ("500", ScenarioReader.DurationProblem.noUnit), ("2 secs", .malformed), ("s", .malformed), ("1.s", .malformed),
        ("-1s", .malformed), ("1.0005s", .notWholeMilliseconds), ("0.5ms", .notWholeMilliseconds),
        ("99999999999999999999d", .tooLarge), ("", .malformed), ("2w", .malformed),
    ])
    func malformedDurationsSayWhatIsWrong(text: String, problem: ScenarioReader.DurationProblem) {
        #expect(throws: problem) { try ScenarioReader.parseDuration(text).get() }
    }

    @Test func serverTimingsTakeMillisecondsOrDurations() throws {
        let scenario = try ScenarioParser.parse(yaml: """
            server: {retention: 50, coalescingWindowMs: 2s, pushLatencyMs: 10, container: iCloud.com.example.Notes}
            devices: [{name: iPhone, user: alice, store: sqlite, autoFetchOnPush: false}]
            steps: []
            """, fileName: "s.yaml")
        #expect(scenario.server == ServerSetup(retention: 50, coalescingWindowMs: 2_000, pushLatencyMs: 10, container: "iCloud.com.example.Notes"))
        #expect(scenario.users == ["alice"])
        #expect(scenario.devices == [DeviceSetup(name: "iPhone", user: "alice", store: .sqlite, autoFetchOnPush: false)])
    }
}

@Suite("Field values")
struct FieldValueTests {
    /// The fields of one `save` step.
    func fields(_ yaml: String) throws -> RecordFields? {
        guard case .save(let save)? = try kind("  - save: {device: iPhone, zone: Notes, record: r, fields: \(yaml)}\n") else { return nil }
        return save.fields
    }

    @Test func plainScalarsGetTheirTypeInferred() throws {
        #expect(try fields("{s: Groceries, i: 42, n: -7, d: 2.5, e: 1e3, t: true, f: false, big: 9223372036854775807}") == [
            "s": .string("Groceries"), "i": .int64(42), "n": .int64(-7), "d": .double(2.5), "e": .double(1000),
            "t": .int64(1), "f": .int64(0), "big": .int64(Int64.max),
        ])
    }

    @Test func quotedScalarsAndYaml11WordsStayStrings() throws {
        // `no`, `yes`, `on` are booleans in YAML 1.1 only; a country code must stay text.
        #expect(try fields(#"{q: "42", c: no, y: yes, o: on, date: 2026-01-01, nan: .nan, v: 1.2.3}"#) == [
            "q": .string("42"), "c": .string("no"), "y": .string("yes"), "o": .string("on"),
            "date": .string("2026-01-01"), "nan": .string(".nan"), "v": .string("1.2.3"),
        ])
    }

    @Test func listsGetTheirElementTypeInferred() throws {
        #expect(try fields("{tags: [home, work], counts: [1, 2], mixed: [1, 2.5], flags: [true, false]}") == [
            "tags": .list(.string, [.string("home"), .string("work")]),
            "counts": .list(.int64, [.int64(1), .int64(2)]),
            "mixed": .list(.double, [.double(1), .double(2.5)]),
            "flags": .list(.int64, [.int64(1), .int64(0)]),
        ])
    }

    @Test func explicitTypesCoverEveryFieldType() throws {
        let yaml = """
            {due: {type: TIMESTAMP, value: 2026-03-01T09:30:00Z},
             at: {type: timestamp, value: 1767225600000},
             day: {type: TIMESTAMP, value: 2026-01-01},
             local: {type: TIMESTAMP, value: "2026-01-01 01:00:00.250+01:00"},
             title: {type: STRING, value: 42},
             size: {type: INT64, value: 7},
             ratio: {type: DOUBLE, value: 3},
             blob: {type: BYTES, value: aGVsbG8=},
             list: {type: REFERENCE, value: list-1},
             owner: {type: REFERENCE, value: {record: p-1, zone: People, action: DELETE_SELF}},
             place: {type: LOCATION, value: {latitude: 48.85, longitude: 2.35}},
             photo: {type: ASSET, value: {fileChecksum: abc, size: 2048}},
             names: {type: STRING_LIST, value: []},
             links: {type: REFERENCE_LIST, value: [a, b]}}
            """
        let expected: RecordFields = [
            "due": .timestamp(1_772_357_400_000),
            "at": .timestamp(1_767_225_600_000),
            "day": .timestamp(1_767_225_600_000),
            "local": .timestamp(1_767_225_600_250),
            "title": .string("42"),
            "size": .int64(7),
            "ratio": .double(3),
            "blob": .bytes(Data("hello".utf8)),
            "list": .reference(RecordReference(recordName: "list-1")),
            "owner": .reference(RecordReference(
                recordName: "p-1", zoneID: RecordZoneID(zoneName: "People", ownerName: "alice"), action: .deleteSelf)),
            "place": .location(Location(latitude: 48.85, longitude: 2.35)),
            "photo": .asset(AssetDescriptor(fileChecksum: "abc", size: 2048)),
            "names": .list(.string, []),
            "links": .list(.reference, [.reference(RecordReference(recordName: "a")), .reference(RecordReference(recordName: "b"))]),
        ]
        #expect(try fields(yaml.replacingOccurrences(of: "\n", with: " ")) == expected)
    }

    @Test func timestampsFollowTheCalendar() {
        #expect(ScenarioReader.parseTimestamp("1970-01-01") == 0)
        #expect(ScenarioReader.parseTimestamp("2024-02-29T00:00:00Z") == 1_709_164_800_000)
        #expect(ScenarioReader.parseTimestamp("1969-12-31T23:59:59Z") == -1_000)
        #expect(ScenarioReader.parseTimestamp("2025-02-29") == nil)
        #expect(ScenarioReader.parseTimestamp("2026-13-01") == nil)
        #expect(ScenarioReader.parseTimestamp("2026-01-01T24:00:00Z") == nil)
        #expect(ScenarioReader.parseTimestamp("tomorrow") == nil)
    }

    @Test func wrongValuesForExplicitTypesAreReported() {
        let problems = stepProblems("""
              - save: {device: iPhone, zone: Notes, record: r, fields: {a: {type: INT64, value: many}, b: {type: TIMESTAMP, value: tomorrow}, c: {type: TIMESTAMPS, value: 1}, d: {type: BYTES, value: "%%"}, e: 99999999999999999999}}
            """)
        #expect(problems == [
            "steps.yaml:8:85: error: INT64 value of field 'a' must be a whole number, got 'many'",
            "steps.yaml:8:120: error: TIMESTAMP value of field 'b' must be a date, got 'tomorrow'; write 2026-01-01, 2026-01-01T09:30:00Z, or milliseconds since 1970",
            "steps.yaml:8:141: error: unknown field type 'TIMESTAMPS'; did you mean 'TIMESTAMP'?",
            "steps.yaml:8:188: error: BYTES value of field 'd' must be base64, got '%%'; for example aGVsbG8= for 'hello'",
            "steps.yaml:8:198: error: field 'e': 99999999999999999999 does not fit in an INT64; quote it to store it as a STRING",
        ])
    }
}
