import Foundation
import SyncCore
import SyncNetwork
import Testing

@Suite struct HTTPCloudServiceTests {
    @Test func aServerThatIsNotThereIsANetworkFailureNamingTheAddress() async throws {
        // Port 1 on loopback: nothing listens there.
        let service = HTTPCloudService(baseURL: URL(string: "http://127.0.0.1:1")!, webAuthToken: "t", userRecordName: "alice")
        do {
            _ = try await service.listRecordZones(in: .private)
            Issue.record("expected a network failure")
        } catch let error as CloudError {
            #expect(error.code == .networkFailure)
            #expect(error.reason.contains("127.0.0.1:1"))
        }
    }

    @Test func pushWithoutADeviceIsRefusedBeforeAnyRequest() async throws {
        let service = HTTPCloudService(baseURL: URL(string: "http://127.0.0.1:1")!, webAuthToken: "t", userRecordName: "alice")
        do {
            try await service.registerForPushNotifications()
            Issue.record("expected an error")
        } catch let error as CloudError {
            #expect(error.code == .invalidArguments)
            #expect(error.reason.contains("device"))
        }
    }
}
