/// Takes the text of the first lines of a file that its format passed over (the rest are only
/// counted), so the summary can show what was not read without holding every such line.
final class IgnoredLines {
    /// Lines kept per file: the summary shows the first, `--verbose` all of them.
    static let kept = 5
    private var taken = 0

    /// The line's start, redacted, while fewer than `kept` were taken; else "".
    func keep(_ line: ByteSlice) -> String {
        guard taken < IgnoredLines.kept else { return "" }
        taken += 1
        let text = Redactor.redact(String(decoding: ByteSlice(rebasing: line.prefix(200)), as: UTF8.self))
        return text.isEmpty ? " " : text
    }
}
