import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Queries over ClickHouse's HTTP interface: the SQL in the POST body (or `query=` when the body
/// is an INSERT's data), values as query parameters (`param_NAME` for `{NAME:Type}`), never
/// spliced into SQL text; settings as URL keys. Synchronous: a call waits for its answer (calls
/// from several threads run at once, each on a connection of its own).
public final class ClickHouseClient: Sendable {
    public let url: ClickHouseURL
    /// For `https://` only (`http://` goes over a plain socket): made only then, as setting one
    /// up costs the CLI's start a few milliseconds.
    private let session: URLSession?
    /// Seconds without a byte from the server before a request is given up (a hung server would
    /// otherwise hold a cron job forever): `$PUSHLOG_CLICKHOUSE_TIMEOUT`, else ten minutes, longer
    /// than any one statement pushlog sends takes on a large history.
    public static let timeout: TimeInterval =
        timeout(ProcessInfo.processInfo.environment["PUSHLOG_CLICKHOUSE_TIMEOUT"]) ?? 600
    /// How long a connection may take to open.
    static let connectTimeout: TimeInterval = 10

    /// `$PUSHLOG_CLICKHOUSE_TIMEOUT`'s seconds: a positive number, else nil.
    public static func timeout(_ text: String?) -> TimeInterval? {
        guard let text, let s = TimeInterval(text), s > 0, s.isFinite else { return nil }
        return s
    }

    public init(_ url: ClickHouseURL) {
        self.url = url
        if url.endpoint.scheme?.lowercased() == "http" {
            session = nil
        } else {
            let config = URLSessionConfiguration.ephemeral
            config.timeoutIntervalForRequest = ClickHouseClient.timeout
            config.timeoutIntervalForResource = max(ClickHouseClient.timeout, 3600)
            session = URLSession(configuration: config)
        }
    }

    /// Runs `sql` and returns the response body. `params` become `param_NAME`; `settings` URL keys.
    /// `inDatabase: false` for statements that may run before the URL's database exists.
    public func execute(
        _ sql: String, params: [String: String] = [:], settings: [String: String] = [:], data: Data? = nil, inDatabase: Bool = true
    ) throws -> Data {
        var c = URLComponents(url: url.endpoint, resolvingAgainstBaseURL: false)!
        var items = inDatabase ? [URLQueryItem(name: "database", value: url.database)] : []
        for (k, v) in settings.sorted(by: { $0.key < $1.key }) { items.append(URLQueryItem(name: k, value: v)) }
        for (k, v) in params.sorted(by: { $0.key < $1.key }) { items.append(URLQueryItem(name: "param_" + k, value: v)) }
        if data != nil { items.append(URLQueryItem(name: "query", value: sql)) }
        c.queryItems = items
        // `+` is a space in a query string to ClickHouse; URLComponents leaves it as is.
        c.percentEncodedQuery = c.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        var headers: [(String, String)] = []
        if let user = url.user {
            let token = Data("\(user):\(url.password ?? "")".utf8).base64EncodedString()
            headers.append(("Authorization", "Basic " + token))
        }
        let response: PlainHTTP.Response
        do {
            response = try send(c, headers: headers, body: data ?? Data(sql.utf8))
        } catch {
            throw ClickHouseError(code: nil, "cannot reach ClickHouse at \(url): \(error.reason)")
        }
        guard response.status == 200 else {
            let code = response.headers["x-clickhouse-exception-code"].flatMap { Int($0) }
            let message = ClickHouseError.serverMessage(String(decoding: response.body, as: UTF8.self))
            throw ClickHouseError(code: code, "ClickHouse (\(url)): " + (message.isEmpty ? "HTTP \(response.status)" : message))
        }
        return response.body
    }

    /// One request, waited for on the calling thread. `http://` over a plain socket
    /// (`PlainHTTP`), `https://` through URLSession.
    private func send(_ c: URLComponents, headers: [(String, String)], body: Data) throws(PlainHTTP.Failure) -> PlainHTTP.Response {
        guard let session else {
            guard let host = c.host else { throw PlainHTTP.Failure(reason: "no host in \(url)") }
            let target = c.percentEncodedPath + (c.percentEncodedQuery.map { "?" + $0 } ?? "")
            return try PlainHTTP.post(
                host: host, port: c.port ?? 80, target: target, headers: headers, body: body, connectTimeout: Self.connectTimeout,
                timeout: Self.timeout)
        }
        final class Box: @unchecked Sendable {  // written by the task's handler before `done` signals
            var result: (Data?, URLResponse?, Error?) = (nil, nil, nil)
        }
        var request = URLRequest(url: c.url!)
        request.httpMethod = "POST"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { d, r, e in
            box.result = (d, r, e)
            done.signal()
        }.resume()
        done.wait()
        guard let http = box.result.1 as? HTTPURLResponse else {
            throw PlainHTTP.Failure(reason: (box.result.2 as NSError?)?.localizedDescription ?? "no response")
        }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return PlainHTTP.Response(status: http.statusCode, headers: fields, body: box.result.0 ?? Data())
    }

    /// A string as the text of a `{name:String}` parameter: the server reads a parameter escaped
    /// as in TSV, so a backslash (which a malformed token, a path or a topic may hold) would start
    /// an escape sequence, and a tab or a newline must be written as one.
    public static func parameter(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Runs a SELECT and reads its rows (TabSeparatedWithNamesAndTypes) as a result table.
    public func table(_ name: String, sql: String, params: [String: String] = [:], settings: [String: String] = [:]) throws
        -> ResultTable
    {
        var s = settings
        s["default_format"] = "TabSeparatedWithNamesAndTypes"
        let body = try execute(sql, params: params, settings: s)
        return try ClickHouseTSV.table(name, body)
    }
}
