/// Runs each effect where it is asked for, on the loop's thread, to its end:
/// an in-process world's calls never suspend, and the same keys on the same
/// seed give the same states (the whole-screen goldens rely on it).
final class InlineEffectRunner: EffectRunner {
    private let world: InspectorWorld
    private let mailbox: InspectorMailbox

    init(world: InspectorWorld, mailbox: InspectorMailbox) {
        self.world = world
        self.mailbox = mailbox
    }

    func start(_ effect: InspectorEffect, context: EffectContext) async {
        mailbox.post(await world.perform(effect, context: context))
    }

    func stop() async {}
}
