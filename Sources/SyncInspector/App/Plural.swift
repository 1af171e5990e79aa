/// Counts in words: "1 change", "3 changes", "1 batch", "2 batches".
/// Every count the inspector says goes through here, so none reads "1 changes".
enum Plural {
    /// `noun` for one, `plural` (default: `noun` + "s", or + "es" after s, x, ch, sh) otherwise.
    static func word(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        if count == 1 || count == -1 { return noun }
        if let plural { return plural }
        let needsES = noun.hasSuffix("s") || noun.hasSuffix("x") || noun.hasSuffix("ch") || noun.hasSuffix("sh")
        return noun + (needsES ? "es" : "s")
    }

    /// "1 change", "3 changes".
    static func count(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) \(word(count, noun, plural: plural))"
    }
}
