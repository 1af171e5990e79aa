/// Carries out the effects the update step asks for on the world, and posts
/// what they found to the mailbox. Chosen once, when the loop starts:
/// ``InlineEffectRunner`` for a world whose calls never suspend (in
/// process: the demo, a lesson, tests, all deterministic), or
/// ``TaskEffectRunner`` for a world over the network, whose effects run off
/// the loop's thread while it goes on reading keys.
protocol EffectRunner: AnyObject {
    /// Starts `effect`, with what it needs of the state when it starts. An
    /// inline runner returns when the effect has ended and its messages are
    /// in the mailbox; a task runner returns at once.
    func start(_ effect: InspectorEffect, context: EffectContext) async
    /// On quit: waits until the effect under way, if any, stopped touching
    /// the world (the caller closes the world next), within a grace.
    func stop() async
}
