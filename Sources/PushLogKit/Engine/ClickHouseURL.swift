import Foundation

/// Where a ClickHouse server's HTTP interface is: `http://user:password@host:8123/database`
/// (`--clickhouse URL` or `$PUSHLOG_CLICKHOUSE`). The database defaults to `pushlog`.
public struct ClickHouseURL: Sendable, CustomStringConvertible {
    /// The endpoint without credentials or path (`http://host:8123/`).
    public let endpoint: URL
    public let user: String?
    public let password: String?
    public let database: String

    public init?(_ text: String) {
        guard var c = URLComponents(string: text), let scheme = c.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = c.host, !host.isEmpty
        else { return nil }
        user = c.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding ?? $0 }
        password = c.password.map { $0.removingPercentEncoding ?? $0 }
        let db = c.path.split(separator: "/").first.map(String.init) ?? ""
        // The database name goes into SQL as an identifier (the queries qualify their tables).
        guard db.isEmpty || db.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        database = db.isEmpty ? "pushlog" : db
        c.user = nil
        c.password = nil
        c.path = "/"
        c.query = nil
        c.fragment = nil
        guard let url = c.url else { return nil }
        endpoint = url
    }

    /// Any text given as a ClickHouse URL, parsed or not, with whatever may be a password
    /// masked: what a message may quote. Everything before the last `@` is credentials, after a
    /// scheme however mistyped (`http://`, `http:/`, `http//`); of them only the text before the
    /// first `:` is kept, as the user name (`pushlog:secret@host` has no scheme, but a password).
    public static func masked(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let credentials = text[..<at]
        var start = credentials.startIndex
        if let end = credentials.firstIndex(where: { !($0.isLetter || $0.isNumber || "+.-".contains($0)) }) {
            let separator = credentials[end...].prefix { $0 == ":" || $0 == "/" }
            if separator.contains("/") { start = separator.endIndex }
        }
        let user = credentials[start...].firstIndex(of: ":").map { credentials[start..<$0] + ":" } ?? ""
        return String(credentials[..<start]) + user + "***" + String(text[at...])
    }

    /// The URL as the user gave it, password masked: what messages show.
    public var description: String {
        var c = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        c.user = user
        c.password = password.map { _ in "***" }
        c.path = "/" + database
        return c.string ?? endpoint.absoluteString
    }
}
