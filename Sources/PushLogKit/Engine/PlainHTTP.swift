import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One HTTP/1.1 POST over a plain TCP socket, waited for in blocking reads. ClickHouse's `http://`
/// port is talked to this way because Foundation's URLSession on Linux polls its socket in a busy
/// loop while a response is pending: a query that runs for seconds on the server kept a core of
/// the client busy all that time, a core the server (often on the same machine) needed. `https://`
/// still goes through URLSession, which has the TLS.
enum PlainHTTP {
    struct Response {
        let status: Int
        /// Header names in lower case.
        let headers: [String: String]
        let body: Data
    }

    /// Why a request got no response: the text shown after the URL.
    struct Failure: Error {
        let reason: String
    }

    /// Sends `body` to http://host:port`target` and reads the whole response. The connection is
    /// closed after it (`Connection: close`): one request per connection keeps the reading simple,
    /// and a local connect costs next to nothing beside a query. `timeout`: the longest wait for
    /// the server to take or send a byte.
    static func post(
        host: String, port: Int, target: String, headers: [(String, String)], body: Data, connectTimeout: TimeInterval,
        timeout: TimeInterval
    ) throws(Failure) -> Response {
        let fd = try openSocket(host: host, port: port, connectTimeout: connectTimeout, timeout: timeout)
        defer { close(fd) }
        let hostField = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host  // an IPv6 literal
        var head = "POST \(target) HTTP/1.1\r\nHost: \(hostField):\(port)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try write(fd, Data(head.utf8), timeout: timeout)
        try write(fd, body, timeout: timeout)
        return try response(read(fd, timeout: timeout))
    }

    private static func openSocket(host: String, port: Int, connectTimeout: TimeInterval, timeout: TimeInterval) throws(Failure)
        -> Int32
    {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        // An IPv6 literal comes from the URL in brackets.
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let found = getaddrinfo(name, String(port), &hints, &list)
        guard found == 0, let first = list else {
            throw Failure(reason: "cannot resolve \(host): \(String(cString: gai_strerror(found)))")
        }
        defer { freeaddrinfo(list) }
        var why = "no address"
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let a = next {
            next = a.pointee.ai_next
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype, a.pointee.ai_protocol)
            if fd < 0 { continue }
            #if canImport(Darwin)
                var one: Int32 = 1
                setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            // The send timeout bounds connect() too (Linux).
            wait(fd, SO_SNDTIMEO, connectTimeout)
            if connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 {
                wait(fd, SO_SNDTIMEO, timeout)
                wait(fd, SO_RCVTIMEO, timeout)
                return fd
            }
            why =
                errno == EINPROGRESS || errno == EAGAIN
                ? "no connection within \(seconds(connectTimeout))" : String(cString: strerror(errno))
            close(fd)
        }
        throw Failure(reason: why)
    }

    private static func wait(_ fd: Int32, _ option: Int32, _ seconds: TimeInterval) {
        var t = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, option, &t, socklen_t(MemoryLayout<timeval>.size))
    }

    /// `600 s`, `0.5 s`.
    private static func seconds(_ s: TimeInterval) -> String {
        (s == s.rounded() ? String(Int(s)) : String(s)) + " s"
    }

    private static func write(_ fd: Int32, _ data: Data, timeout: TimeInterval) throws(Failure) {
        #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let flags: Int32 = 0
        #endif
        let failed: String? = data.withUnsafeBytes { raw in
            var at = 0
            while at < raw.count {
                let n = send(fd, raw.baseAddress! + at, raw.count - at, flags)
                if n < 0 {
                    if errno == EINTR { continue }
                    if errno == EAGAIN || errno == EWOULDBLOCK { return "the server took nothing for \(seconds(timeout))" }
                    return String(cString: strerror(errno))
                }
                at += n
            }
            return nil
        }
        if let failed { throw Failure(reason: "sending the request: \(failed)") }
    }

    /// Everything the server sends until it closes the connection.
    private static func read(_ fd: Int32, timeout: TimeInterval) throws(Failure) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return out }
            if n < 0 {
                if errno == EINTR { continue }
                let timedOut = errno == EAGAIN || errno == EWOULDBLOCK
                throw Failure(
                    reason: timedOut
                        ? "no answer for \(seconds(timeout)) ($PUSHLOG_CLICKHOUSE_TIMEOUT sets how long to wait)"
                        : String(cString: strerror(errno)))
            }
            out.append(contentsOf: buffer[0..<n])
        }
    }

    /// The status, headers and body (chunked, by length, or up to the close) of a response.
    private static func response(_ bytes: [UInt8]) throws(Failure) -> Response {
        let end = Array("\r\n\r\n".utf8)
        guard let split = bytes.firstRange(of: end) else { throw Failure(reason: "the connection closed before a response") }
        let lines = String(decoding: bytes[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusWords = lines[0].split(separator: " ")
        guard statusWords.count >= 2, statusWords[0].hasPrefix("HTTP/"), let status = Int(statusWords[1]) else {
            throw Failure(reason: "not an HTTP response")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = bytes[split.upperBound...]
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            return Response(status: status, headers: headers, body: try dechunk(body))
        }
        if let length = headers["content-length"].flatMap({ Int($0) }) {
            guard body.count >= length else { throw Failure(reason: "the connection closed in the middle of a response") }
            body = body.prefix(length)
        }
        return Response(status: status, headers: headers, body: Data(body))
    }

    /// A chunked body: hex size, CRLF, that many bytes, CRLF; a zero size ends it.
    private static func dechunk(_ bytes: ArraySlice<UInt8>) throws(Failure) -> Data {
        var out = Data()
        var at = bytes.startIndex
        while true {
            guard let lineEnd = bytes[at...].firstRange(of: [13, 10]) else { break }
            let sizeText = String(decoding: bytes[at..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else { break }
            if size == 0 { return out }
            let start = lineEnd.upperBound
            guard bytes.endIndex - start >= size + 2 else { break }
            out.append(contentsOf: bytes[start..<start + size])
            at = start + size + 2
        }
        throw Failure(reason: "the connection closed in the middle of a response")
    }
}
