/// A failure talking to ClickHouse: the server's own message (one line), or why it could not be
/// reached (the URL with its password masked).
public struct ClickHouseError: Error, CustomStringConvertible, Sendable {
    /// The server's exception code (`X-ClickHouse-Exception-Code`), nil when none answered.
    public let code: Int?
    public let description: String

    init(code: Int?, _ message: String) {
        self.code = code
        description = message
    }

    /// The first line of a server's error text, without the stack trace some versions append.
    static func serverMessage(_ body: String) -> String {
        let line = body.split(whereSeparator: \.isNewline).first.map(String.init) ?? body
        return line.trimmingCharacters(in: .whitespaces)
    }
}
