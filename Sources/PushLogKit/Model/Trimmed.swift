extension StringProtocol {
    /// Without the whitespace at either end: spaces and tabs, and line breaks too when
    /// `newlines`, as `trimmingCharacters(in: .whitespaces)` (`.whitespacesAndNewlines`) gives
    /// it. Native: that call goes through NSString and UTF-16 on Linux, and the report files are
    /// parsed line by line at every start of the CLI, format detection trims the first thousand
    /// lines of every file, and gorush's lines are trimmed as they are read.
    func trimmed(newlines: Bool = false) -> String {
        let kept: (Character) -> Bool = { !$0.isWhitespace || (!newlines && $0.isNewline) }
        guard let first = firstIndex(where: kept), let last = lastIndex(where: kept) else { return "" }
        return String(self[first...last])
    }
}
