import Foundation
import Testing

/// `syncscope demo`'s narration matches what it shows.
@Suite struct CLIDemoTests {
    @Test func aResultsLimitThatFitsEveryNoteDoesNotPromiseBatches() throws {
        let result = try BinaryRunner.run(["demo", "--results-limit", "5"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("resultsLimit 5: all 5 notes fit in one batch (try --results-limit 2 to see batches)"))
        #expect(!result.stdout.contains("answers in batches"))
        #expect(!result.stdout.contains("a crash between batches"))
        let batched = try BinaryRunner.run(["demo", "--results-limit", "2"])
        #expect(batched.stdout.contains("resultsLimit 2: the server answers in batches"))
        #expect(batched.stdout.contains("a crash between batches would resume from the last one"))
    }

    @Test func aNegativeSeedIsNamedAsInvalidNotAsAMissingValue() throws {
        let result = try BinaryRunner.run(["demo", "--seed", "-5"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("The value '-5' is invalid for '--seed <seed>'"), "\(result.stderr)")
    }
}
