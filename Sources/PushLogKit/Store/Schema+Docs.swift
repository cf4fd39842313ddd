/// What each table and column meant for ad-hoc SQL holds, one line each (`pushlog schema`).
/// Kept beside the schema: a test fails when a column exists without a line here, or a line
/// names a column that does not exist.
extension Schema {
    public struct TableDoc: Sendable {
        public let name: String
        public let meaning: String
        public let columns: [(String, String)]
    }

    public static let docs: [TableDoc] = [
        TableDoc(name: "sends", meaning: "send, request and response records (one APNs attempt each); a response is kind 0 or 2 with a status", columns: [
            ("id", "row id"), ("t", "record time, epoch ms UTC (rfc3339(t) to read it)"),
            ("h1", "first half of the record's 128-bit line hash (identity with t)"), ("h2", "second half of the line hash"),
            ("src", "sources.id of the file it came from"), ("line", "line number in that file"),
            ("kind", "0 send (request and response in one), 1 request only, 2 response only"),
            ("token_id", "tokens.id of the device token"), ("apns_id", "apns-id header (UUID)"),
            ("env", "production or sandbox"), ("topic", "apns-topic (bundle id)"), ("push_type", "apns-push-type"),
            ("priority", "apns-priority (NULL: APNs' default 10)"), ("collapse_id", "apns-collapse-id"),
            ("expiration", "apns-expiration, epoch seconds"), ("payload_bytes", "payload size in bytes"),
            ("content_available", "aps.content-available = 1"), ("mutable_content", "aps.mutable-content = 1"),
            ("has_alert", "aps.alert present"), ("has_sound", "aps.sound present"), ("has_badge", "aps.badge present"),
            ("aps_category", "aps.category"), ("thread_id", "aps.thread-id"), ("interruption_level", "aps.interruption-level"),
            ("relevance", "aps.relevance-score"), ("custom_keys", "custom top-level payload keys, comma-separated"),
            ("status", "HTTP status of the APNs response (NULL: no response, e.g. a transport error)"),
            ("reason", "APNs reason (Unregistered, BadDeviceToken, …)"), ("category", "categories.category of the reason (README: APNs reasons)"),
            ("apns_ts", "timestamp of a 410 body, epoch ms"), ("apns_unique_id", "apns-unique-id header (sandbox)"),
            ("latency_ms", "response latency in ms"), ("attempt", "attempt number as logged (2 = first retry)"),
            ("error", "transport error text when there was no APNs response"),
        ]),
        TableDoc(name: "registers", meaning: "the app uploaded its device token", columns: [
            ("id", "row id"), ("t", "record time, epoch ms UTC"), ("h1", "line hash, first half"), ("h2", "line hash, second half"),
            ("src", "sources.id"), ("line", "line number"), ("token_id", "tokens.id"), ("device", "device id"), ("user", "user id"),
            ("env", "production or sandbox the build registers for"), ("app_version", "app version"), ("os_version", "iOS version"),
            ("auth", "notification authorization at that moment"), ("topic", "bundle id"),
        ]),
        TableDoc(name: "settings", meaning: "the app reported its notification settings", columns: [
            ("id", "row id"), ("t", "record time, epoch ms UTC"), ("h1", "line hash, first half"), ("h2", "line hash, second half"),
            ("src", "sources.id"), ("line", "line number"), ("device", "device id"), ("user", "user id"),
            ("auth", "authorized, denied, provisional, ephemeral or notDetermined"), ("alert_setting", "alert setting"),
            ("sound_setting", "sound setting"), ("badge_setting", "badge setting"), ("lock_screen", "lock-screen setting"),
            ("notification_center", "notification-center setting"),
        ]),
        TableDoc(name: "receipts", meaning: "the app saw a push (woke in background, presented, opened, …)", columns: [
            ("id", "row id"), ("t", "record time, epoch ms UTC"), ("h1", "line hash, first half"), ("h2", "line hash, second half"),
            ("src", "sources.id"), ("line", "line number"), ("apns_id", "apns-id of the push"), ("device", "device id"),
            ("token_id", "tokens.id"), ("receipt", "background, presented, opened, dismissed or action"),
            ("result", "newData, noData or failed (background)"),
        ]),
        TableDoc(name: "unregisters", meaning: "the app or backend dropped a token (logout)", columns: [
            ("id", "row id"), ("t", "record time, epoch ms UTC"), ("h1", "line hash, first half"), ("h2", "line hash, second half"),
            ("src", "sources.id"), ("line", "line number"), ("token_id", "tokens.id"), ("device", "device id"), ("user", "user id"),
        ]),
        TableDoc(name: "tokens", meaning: "every device token seen, interned", columns: [
            ("id", "token id the record tables refer to"), ("token", "the token (lower case when hex)"),
            ("malformed", "1 when not hex (e.g. '{length = 32, bytes = 0x…}')"), ("masked", "1 when logged masked (gorush '****')"),
        ]),
        TableDoc(name: "sources", meaning: "ingested files", columns: [
            ("id", "source id"), ("path", "canonical real path ('-' for stdin)"), ("format", "input format read"),
            ("size", "file size at the last ingest"), ("mtime", "modification time at the last ingest"),
            ("head_len", "bytes of the fingerprinted head"), ("head_hash", "hash of the file's first 64 KiB"),
            ("offset", "decompressed bytes consumed by committed batches"), ("lines", "lines consumed by committed batches"),
            ("complete", "1 when read to the end without damage"), ("error", "why it is incomplete or refused"),
            ("n_send", "send records added"), ("n_request", "request records added"), ("n_response", "response records added"),
            ("n_register", "register records added"), ("n_settings", "settings records added"), ("n_receipt", "receipt records added"),
            ("n_unregister", "unregister records added"), ("duplicates", "records already stored"), ("rejects", "rejected lines"),
            ("skipped", "records of other platforms"), ("ignored", "lines that are not records (access logs, debug lines)"),
            ("first_ingest", "first ingest time, epoch ms"), ("last_ingest", "latest ingest time, epoch ms"),
            ("first_t", "earliest record time in the file"), ("last_t", "latest record time in the file"),
        ]),
        TableDoc(name: "rejects", meaning: "lines that could not be read as records", columns: [
            ("id", "row id"), ("src", "sources.id"), ("line", "line number"), ("reason", "why it was rejected"),
            ("text", "first 512 bytes, secrets redacted"), ("h1", "identity hash, first half"), ("h2", "identity hash, second half"),
        ]),
        TableDoc(name: "apple_metrics", meaning: "Apple Push Notifications Console delivery metrics (daily aggregates)", columns: [
            ("day", "UTC day, 2026-11-02"), ("push_type", "push type"), ("status", "Apple's status (Received, Delivered, …)"),
            ("count", "count"), ("src", "sources.id"),
        ]),
        TableDoc(name: "reasons", meaning: "APNs reasons and their category (README: APNs reasons)", columns: [
            ("reason", "APNs reason"), ("category", "its category"), ("status", "the status APNs sends it with"),
        ]),
        TableDoc(name: "categories", meaning: "reason categories", columns: [
            ("category", "category name"), ("retryable", "1 when a retry may succeed (server, rate)"),
            ("never_retry", "1 when a retry is a provider bug (token-gone, token-bad, request)"),
        ]),
        TableDoc(name: "token_facts", meaning: "derived per token after each ingest", columns: [
            ("token_id", "tokens.id"), ("first_reg", "first registration time"), ("last_reg", "latest registration time"),
            ("reg_env", "env of the latest registration"), ("reg_app_version", "app version of the latest registration"),
            ("reg_device", "device of the latest registration"), ("reg_user", "user of the latest registration"),
            ("first_410", "time of the first 410 response"), ("first_410_ts", "APNs timestamp of that 410"),
            ("malformed", "copied from tokens"),
        ]),
        TableDoc(name: "device_facts", meaning: "derived per device (or 'user:ID' for user-only settings): opt-in facts", columns: [
            ("dkey", "device id, or 'user:ID'"), ("user", "user id"), ("opt_in", "first authorized observation"),
            ("off", "first denied observation after opt_in"), ("fd_t", "first decided observation's time"),
            ("fd_auth", "its value"), ("last_obs", "latest observation"), ("last_token", "token of the latest registration"),
            ("last_reg", "time of the latest registration"),
        ]),
        TableDoc(name: "token_runs", meaning: "derived: runs of consecutive registrations of one device with one token", columns: [
            ("device", "device id"), ("token_id", "tokens.id"), ("start", "first registration of the run"),
            ("last", "last registration of the run"), ("superseded_at", "when the device registered a different token"),
        ]),
        TableDoc(name: "token_stale", meaning: "derived: intervals in which a token was superseded by its device's newer token", columns: [
            ("token_id", "tokens.id"), ("from_t", "superseded from"), ("to_t", "until it was registered again (or forever)"),
        ]),
        TableDoc(name: "bg_pushes", meaning: "derived: background pushes answered by APNs (the silent report)", columns: [
            ("hour", "t / 3600000"), ("token_id", "tokens.id (0 when none)"), ("t", "response time"),
            ("h1", "line hash, first half"), ("h2", "line hash, second half"), ("status", "HTTP status"),
            ("priority", "apns-priority"), ("with_alert", "payload has alert, sound or badge"), ("topic", "topic"),
            ("env", "env"), ("apns_id", "apns-id"), ("rt", "time of the first background receipt (accepted pushes)"),
        ]),
        TableDoc(name: "resp_hourly", meaning: "derived: responses and 410s per UTC hour, topic and env", columns: [
            ("hour", "t / 3600000"), ("topic", "topic ('' when absent)"), ("env", "env ('' when absent)"),
            ("responses", "responses in the hour"), ("gone", "410 responses in the hour"),
        ]),
        TableDoc(name: "hygiene_hourly", meaning: "derived: the hygiene report's response counts per UTC hour, source, topic and env", columns: [
            ("hour", "t / 3600000"), ("src", "sources.id of the file"), ("topic", "topic ('' when absent)"), ("env", "env ('' when absent)"),
            ("responses", "responses in the hour"), ("with_headers", "with a push_type, priority, collapse_id or expiration"),
            ("with_payload", "whose payload was logged"), ("with_ids", "with an apns_id, attempt or collapse_id"),
            ("untyped", "without push_type"), ("alert_n", "push type alert with a logged payload"),
            ("alert_v", "... with no alert, sound or badge"), ("mutable_n", "mutable-content 1 with a logged payload"),
            ("mutable_v", "... with no alert"),
        ]),
    ]
}
