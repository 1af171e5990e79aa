import SyncDoctor
import Testing

/// The parts of an API path the doctor and the inspector read: counted as
/// `split(separator: "/")` counts them, with the defaults a short path gets.
@Suite struct DatabasePathTests {
    @Test(arguments: [
        "/database/1/iCloud.com.example.Notes/production/shared/changes/zone",
        "/database/1/iCloud.com.example.Notes/development/private/records/modify",
        "/database/1/C/development/public",
        "//database//1/C/production//shared/",
        "/device/1/C/development/webcourier/T",
        "/database/1/C",
        "/database/1/Café.Notes/development/private/zones/list",
        "",
        "/",
    ])
    func partsAreTheSplitsParts(path: String) {
        let split = path.split(separator: "/").map(String.init)
        for index in 0..<7 {
            #expect(DatabasePath.part(index, of: path).map(String.init) == (split.count > index ? split[index] : nil), "part \(index) of \(path)")
        }
        #expect(DatabasePath.container(of: path) == (split.count > 2 ? split[2] : nil))
        #expect(DatabasePath.environment(of: path) == (split.count > 3 ? split[3] : "development"))
        #expect(DatabasePath.scope(of: path) == (split.count > 4 ? split[4] : "private"))
    }

    @Test func aPathWithoutTheScopeReadsAsTheDefaults() {
        #expect(DatabasePath.scope(of: "/database/1/C/production") == "private")
        #expect(DatabasePath.environment(of: "/database/1/C") == "development")
        #expect(DatabasePath.container(of: "/database/1") == nil)
        #expect(DatabasePath.scope(of: "/database/1/C/production/shared/records/modify") == "shared")
    }
}
