import SyncCore
import SyncServer
import Testing

/// Record names are printable ASCII (checked on every save, on the bytes).
@Suite struct RecordNameTests {
    @Test func printableASCIINamesAreSavedAndOthersRefusedWithASentence() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        for name in ["n1", "a b", "~!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}", "Z"] {
            let results = try f.modify([.save(f.record(name, in: notes, ["title": "t"]), policy: .allKeys)], in: notes)
            guard case .success(.saved(let saved)) = results[0] else {
                Issue.record("'\(name)' is printable ASCII, yet: \(results[0])")
                continue
            }
            #expect(saved.recordID.recordName == name)
        }
        for name in ["tab\there", "del\u{7F}", "nul\u{0}", "caf\u{E9}", "line\nbreak", "\u{85}next"] {
            let results = try f.modify([.save(f.record(name, in: notes, ["title": "t"]), policy: .allKeys)], in: notes)
            expect(cloudError(results[0]), .invalidArguments, mentioning: ["not printable ASCII"])
        }
    }
}
