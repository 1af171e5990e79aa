import Foundation
import SyncScopeAssets
import Testing
@testable import SyncScenario

@Suite("The lessons and the demo world that SyncScope ships")
struct AssetTests {
    @Test func thereAreTwentyTwoLessonsNumberedOneToTwentyTwo() {
        let lessons = AssetCatalog.lessons()
        #expect(lessons.count == 22)
        #expect(lessons.map { AssetCatalog.lessonNumber(of: $0.name) } == Array(1...22).map { Optional($0) })
    }

    @Test func everyLessonParsesWithoutWarningsAndTellsAStory() throws {
        for lesson in AssetCatalog.lessons() {
            let scenario = try ScenarioParser.parse(fileAt: lesson.url)
            #expect(scenario.warnings.isEmpty, "\(lesson.name): \(scenario.warnings)")
            #expect(scenario.isLesson, "\(lesson.name) has no say steps")
            #expect(scenario.title?.isEmpty == false, "\(lesson.name) has no title")
            #expect(scenario.summary?.isEmpty == false, "\(lesson.name) has no summary")
            #expect(scenario.name == AssetCatalog.shortName(of: lesson.name), "the name inside \(lesson.name) differs from its file name")
            let checks = scenario.steps.filter { if case .expect = $0.kind { true } else { false } }
            #expect(checks.count >= 3, "\(lesson.name) checks too little")
        }
    }

    @Test func lessonsAreFoundByFileNameShortNameOrNumber() throws {
        let first = try #require(AssetCatalog.lessons().first)
        #expect(AssetCatalog.lesson(named: "01-first-fetch") == first.url)
        #expect(AssetCatalog.lesson(named: "01-first-fetch.yaml") == first.url)
        #expect(AssetCatalog.lesson(named: "first-fetch") == first.url)
        #expect(AssetCatalog.lesson(named: "1") == first.url)
        #expect(AssetCatalog.lesson(named: "01") == first.url)
        #expect(AssetCatalog.lesson(named: "no-such-lesson") == nil)
        #expect(AssetCatalog.lesson(named: "99") == nil)
    }

    @Test func theDemoWorldHasTwoUsersThreeDevicesAndSubscriptionsForEveryone() throws {
        let url = try #require(AssetCatalog.demoScenarioURL)
        let demo = try ScenarioParser.parse(fileAt: url)
        #expect(demo.warnings.isEmpty)
        #expect(demo.users == ["alice", "bob"])
        #expect(demo.devices.map(\.name) == ["iPhone", "Mac", "iPad"])
        for user in demo.users {
            let scopes = demo.subscriptions.filter { demo.userName(of: $0.owner) == user && $0.type == .database }.map(\.database)
            #expect(Set(scopes) == [.private, .shared], "\(user) lacks a database subscription")
        }
        #expect(demo.subscriptions.contains { $0.type == .query })
        #expect(demo.steps.contains { if case .shareZone = $0.kind { true } else { false } })
    }
}
