/// What each table and column meant for ad-hoc SQL holds, one line each (`pushlog schema`).
/// Kept beside the schema: a test fails when a column exists without a line here, or a line
/// names a column that does not exist.
extension Schema {
    public struct TableDoc: Sendable {
        public let name: String
        public let meaning: String
        public let columns: [(String, String)]
    }

    /// The relations a report written once reads, on both engines (docs/store.md, "Relations and
    /// the shared SQL"): the same names, columns and values, but for the store's own numbering.
    public static let sharedRelations = [
        "sends_v", "responses_v", "registers_v", "settings_v", "receipts_v", "unregisters_v", "apple_metrics_v",
    ]
    /// The columns of the shared relations that only the SQLite store has (its numbering).
    public static let storeNumbering: Set = ["id", "token_id", "source_id"]

    public static let docs: [TableDoc] = [
        TableDoc(
            name: "sends",
            meaning:
                "send, request and response records (one APNs attempt each); the `responses` view holds the responses, sends_v joins the names back",
            columns: sendsColumns),
        TableDoc(
            name: "registers",
            meaning:
                "the app uploaded its device token; stored in token order (key: token_id, time_ms, line_hash); a first load stages them in registers_load until it ends",
            columns: [
                ("time_ms", "record time, epoch ms UTC (rfc3339(time_ms) to read it)"),
                ("line_hash", "64-bit hash of the record's line: (time_ms, line_hash) is the record's identity"),
                ("source_id", "sources.id of the file it came from"), ("line", "line number in that file"),
                ("token_id", "tokens.id"), ("device_id", "devices.id"), ("user_id", "users.id"),
                ("env_id", "envs.id: production or sandbox the build registers for"), ("app_version_id", "app_versions.id"),
                ("os_version_id", "os_versions.id"), ("auth_id", "labels.id: notification authorization at that moment"),
                ("topic_id", "topics.id: bundle id"),
            ]),
        TableDoc(
            name: "settings", meaning: "the app reported its notification settings",
            columns: [
                ("time_ms", "record time, epoch ms UTC (rfc3339(time_ms) to read it)"),
                ("line_hash", "64-bit hash of the record's line: (time_ms, line_hash) is the record's identity"),
                ("source_id", "sources.id of the file it came from"), ("line", "line number in that file"),
                ("device_id", "devices.id"), ("user_id", "users.id"),
                ("auth_id", "labels.id: authorized, denied, provisional, ephemeral or notDetermined"),
                ("alert_setting_id", "labels.id: alert setting"), ("sound_setting_id", "labels.id: sound setting"),
                ("badge_setting_id", "labels.id: badge setting"), ("lock_screen_id", "labels.id: lock-screen setting"),
                ("notification_center_id", "labels.id: notification-center setting"),
            ]),
        TableDoc(
            name: "receipts",
            meaning:
                "the app saw a push (woke in background, presented, opened, …); stored in apns-id order (key: apns_id, time_ms, line_hash); a first load stages them in receipts_load until it ends",
            columns: [
                ("time_ms", "record time, epoch ms UTC (rfc3339(time_ms) to read it)"),
                ("line_hash", "64-bit hash of the record's line: (time_ms, line_hash) is the record's identity"),
                ("source_id", "sources.id of the file it came from"), ("line", "line number in that file"),
                ("apns_id", "apns-id of the push (stored as in sends)"), ("device_id", "devices.id"), ("token_id", "tokens.id"),
                ("receipt_id", "labels.id: background, presented, opened, dismissed or action"),
                ("result_id", "labels.id: newData, noData or failed (background)"),
            ]),
        TableDoc(
            name: "unregisters", meaning: "the app or backend dropped a token (logout)",
            columns: [
                ("time_ms", "record time, epoch ms UTC (rfc3339(time_ms) to read it)"),
                ("line_hash", "64-bit hash of the record's line: (time_ms, line_hash) is the record's identity"),
                ("source_id", "sources.id of the file it came from"), ("line", "line number in that file"),
                ("token_id", "tokens.id"), ("device_id", "devices.id"), ("user_id", "users.id"),
            ]),
        TableDoc(
            name: "tokens", meaning: "every device token seen, interned",
            columns: [
                ("id", "token id the record tables refer to"), ("token", "the token (lower case when hex)"),
                ("malformed", "1 when not hex (e.g. '{length = 32, bytes = 0x…}')"), ("masked", "1 when logged masked (gorush '****')"),
            ]),
        TableDoc(
            name: "topics", meaning: "apns-topics (bundle ids)", columns: [("id", "the id record tables hold"), ("name", "the value")]),
        TableDoc(
            name: "envs", meaning: "APNs environments (1 production, 2 sandbox)",
            columns: [("id", "the id record tables hold"), ("name", "the value")]),
        TableDoc(
            name: "push_types", meaning: "apns-push-type values (1 alert, 2 background, …)",
            columns: [("id", "the id record tables hold"), ("name", "the value")]),
        TableDoc(
            name: "reasons", meaning: "APNs reasons as logged", columns: [("id", "the id record tables hold"), ("name", "the value")]),
        TableDoc(name: "app_versions", meaning: "app versions", columns: [("id", "the id record tables hold"), ("name", "the value")]),
        TableDoc(name: "os_versions", meaning: "OS versions", columns: [("id", "the id record tables hold"), ("name", "the value")]),
        TableDoc(name: "devices", meaning: "device ids", columns: [("id", "the id record tables hold"), ("name", "the value")]),
        TableDoc(name: "users", meaning: "user ids", columns: [("id", "the id record tables hold"), ("name", "the value")]),
        TableDoc(
            name: "labels", meaning: "short enumerated values: authorization states, settings, receipt kinds and results",
            columns: [("id", "the id record tables hold"), ("name", "the value")]),
        TableDoc(
            name: "categories", meaning: "reason categories (fixed ids)",
            columns: [
                ("id", "the id sends.category_id holds"), ("name", "category name"),
                ("retryable", "1 when a retry may succeed (server, rate)"),
                ("never_retry", "1 when a retry is a provider bug (token-gone, token-bad, request)"),
            ]),
        TableDoc(
            name: "reason_taxonomy", meaning: "the APNs reasons pushlog knows and their category (docs/reports.md: APNs reasons)",
            columns: [
                ("reason", "APNs reason"), ("category", "its category"), ("status", "the status APNs sends it with"),
            ]),
        TableDoc(
            name: "sources", meaning: "ingested files",
            columns: [
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
                ("first_time_ms", "earliest record time in the file"), ("last_time_ms", "latest record time in the file"),
                (
                    "ambiguous",
                    "of the duplicates, those identical to records of a rotated file that all fall in the second this one begins with: taken as one each, maybe lines of their own"
                ),
            ]),
        TableDoc(
            name: "source_repeats", meaning: "runs of repeated records open at a file's read position (where a resumed read numbers on)",
            columns: [
                ("source_id", "sources.id"), ("key", "the record's time and line hash folded into 64 bits"),
                ("count", "identical records in the run so far"), ("line", "line of the run's last record"),
                ("offset", "stream offset after the run's last record"),
            ]),
        TableDoc(
            name: "rejects", meaning: "lines that could not be read as records",
            columns: [
                ("id", "row id"), ("source_id", "sources.id"), ("line", "line number"), ("reason", "why it was rejected"),
                ("text", "first 512 bytes, secrets redacted"), ("line_hash", "64-bit hash of the line (identity)"),
            ]),
        TableDoc(
            name: "apple_metrics", meaning: "Apple Push Notifications Console delivery metrics (daily aggregates)",
            columns: [
                ("day", "UTC day, 2026-11-02"), ("push_type", "push type"), ("status", "Apple's status (Received, Delivered, …)"),
                ("count", "count"), ("source_id", "sources.id"),
            ]),
        TableDoc(
            name: "token_facts", meaning: "derived per token after each ingest",
            columns: [
                ("token_id", "tokens.id"), ("first_reg", "first registration time"), ("last_reg", "latest registration time"),
                ("reg_env_id", "envs.id of the latest registration"), ("reg_app_version_id", "app_versions.id of the latest registration"),
                ("reg_device_id", "devices.id of the latest registration"), ("reg_user_id", "users.id of the latest registration"),
                ("first_410", "time of the first 410 response"), ("first_410_ts", "APNs timestamp of that 410"),
                ("malformed", "copied from tokens"),
            ]),
        TableDoc(
            name: "token_runs", meaning: "derived: runs of consecutive registrations of one device with one token",
            columns: [
                ("device_id", "devices.id"), ("token_id", "tokens.id"), ("start", "first registration of the run"),
                ("last", "last registration of the run"), ("superseded_at", "when the device registered a different token"),
            ]),
        TableDoc(
            name: "token_stale", meaning: "derived: intervals in which a token was superseded by its device's newer token",
            columns: [
                ("token_id", "tokens.id"), ("stale_from", "superseded from (epoch ms)"),
                ("stale_until", "until it was registered again (or forever)"),
            ]),
        TableDoc(
            name: "device_facts", meaning: "derived per device (or per user, for settings that name only a user): opt-in facts",
            columns: [
                ("unit", "the device's name, or 'user:' and the user's name"), ("user_id", "users.id"),
                ("opted_in", "first authorized observation"), ("opted_out", "first denied observation after opted_in"),
                ("first_decided", "first decided observation's time (not notDetermined)"), ("first_decided_auth", "its value"),
                ("last_seen", "latest observation"), ("last_token_id", "token of the latest registration"),
                ("last_reg", "time of the latest registration"),
            ]),
        TableDoc(
            name: "background_pushes", meaning: "view: background pushes answered by APNs (the silent report), from sends",
            columns: [
                ("hour", "UTC clock hour: time_ms / 3600000, rounded down"), ("token_id", "tokens.id (0 when none)"),
                ("time_ms", "response time"), ("line_hash", "the record's line hash"), ("status", "HTTP status"),
                ("priority", "apns-priority"), ("with_alert", "payload has alert, sound or badge"), ("topic_id", "topics.id"),
                ("env_id", "envs.id"), ("receipt_ms", "time of the first background receipt (accepted pushes)"), ("id", "sends.id"),
            ]),
        TableDoc(
            name: "background_hourly",
            meaning: "derived: background pushes per UTC hour, token, topic and env (the silent report, hygiene's background rules)",
            columns: [
                ("hour", "time_ms / 3600000"), ("token_id", "tokens.id (0 when none)"), ("topic_id", "topics.id (0 when absent)"),
                ("env_id", "envs.id (0 when absent)"), ("pushes", "background pushes answered"), ("accepted", "... with status 200"),
                ("priorities", "... with a priority logged"), ("priority_not_5", "... whose priority is not 5 (missing: 10)"),
                ("with_alert", "... whose payload has alert, sound or badge"),
                ("received", "accepted ones with a background receipt"), ("lags", "their receipt lags in ms, comma-separated"),
            ]),
        TableDoc(
            name: "hourly_responses", meaning: "derived: responses and 410s per UTC hour, topic and env",
            columns: [
                ("hour", "time_ms / 3600000"), ("topic_id", "topics.id (0 when absent)"), ("env_id", "envs.id (0 when absent)"),
                ("responses", "responses in the hour"), ("gone", "410 responses in the hour"),
            ]),
        TableDoc(
            name: "hygiene_hourly", meaning: "derived: the hygiene report's response counts per UTC hour, source, topic and env",
            columns: [
                ("hour", "time_ms / 3600000"), ("source_id", "sources.id of the file"), ("topic_id", "topics.id (0 when absent)"),
                ("env_id", "envs.id (0 when absent)"),
                ("responses", "responses in the hour"), ("with_headers", "with a push_type, priority, collapse_id or expiration"),
                ("with_payload", "whose payload was logged"), ("with_ids", "with an apns_id, attempt or collapse_id"),
                ("untyped", "without push_type"), ("alert_logged", "push type alert with a logged payload"),
                ("alert_empty", "... with no alert, sound or badge"), ("mutable_logged", "mutable-content 1 with a logged payload"),
                ("mutable_empty", "... with no alert"),
            ]),
        TableDoc(
            name: "retry_links",
            meaning: "derived: each retry of a token-gone, token-bad or request error (errors.retried_non_retryable)",
            columns: [("error_id", "sends.id of the error"), ("retry_id", "sends.id of a retry that belongs to it")]),
        TableDoc(
            name: "backoff_retries",
            meaning: "derived: the first retry of each 429 or 5xx response (hygiene's retry_without_backoff)",
            columns: [
                ("error_id", "sends.id of the 429/5xx response"), ("retry_id", "sends.id of its first retry"),
                ("too_soon", "1 when it came under 1 s after the error, or no later than the interval before it"),
            ]),
        TableDoc(
            name: "meta", meaning: "pushlog's own state",
            columns: [
                ("key", "derived_stale: 1 while derived facts await a rebuild; sources_canonical"), ("value", "its value"),
            ]),
        TableDoc(
            name: "responses",
            meaning: "view: the sends rows that are APNs responses (kind 0 or 2 with a status); the one definition reports use",
            columns: sendsColumns),
        TableDoc(
            name: "transport_failures",
            meaning: "view: the sends rows that got no APNs answer (category transport: TLS, DNS, timeouts)",
            columns: sendsColumns),
        TableDoc(
            name: "attempts",
            meaning: "view: the responses and the transport failures of send and response records (every try to reach APNs)",
            columns: sendsColumns),
        TableDoc(
            name: "sends_v",
            meaning:
                "view, on both engines: send, request and response records with their names (token, env, topic, push_type, reason, category), apns_id as text, a split response completed from its request",
            columns: sendsViewColumns),
        TableDoc(
            name: "responses_v", meaning: "view, on both engines: the sends_v rows that are APNs responses (kind 0 or 2 with a status)",
            columns: sendsViewColumns),
        TableDoc(
            name: "registers_v", meaning: "view, on both engines: registrations with their names",
            columns: [
                ("time_ms", "record time, epoch ms"), ("time", "RFC 3339"), ("line_hash", "line hash"),
                ("source_id", "sources.id"), ("line", "line number"), ("token_id", "tokens.id"), ("token", "the token"),
                ("device", "device id"), ("user", "user id"), ("env", "env"), ("app_version", "app version"), ("os_version", "OS version"),
                ("auth", "authorization"), ("topic", "bundle id"),
            ]),
        TableDoc(
            name: "settings_v", meaning: "view, on both engines: settings reports with their names",
            columns: [
                ("time_ms", "record time, epoch ms"), ("time", "RFC 3339"), ("line_hash", "line hash"),
                ("source_id", "sources.id"), ("line", "line number"), ("device", "device id"), ("user", "user id"),
                ("auth", "authorization"), ("alert_setting", "alert setting"), ("sound_setting", "sound setting"),
                ("badge_setting", "badge setting"), ("lock_screen", "lock-screen setting"),
                ("notification_center", "notification-center setting"),
            ]),
        TableDoc(
            name: "receipts_v", meaning: "view, on both engines: receipts with their names",
            columns: [
                ("time_ms", "record time, epoch ms"), ("time", "RFC 3339"), ("line_hash", "line hash"),
                ("source_id", "sources.id"), ("line", "line number"), ("apns_id", "apns-id as logged"), ("device", "device id"),
                ("token_id", "tokens.id"), ("token", "the token"), ("receipt", "receipt kind"), ("result", "background result"),
            ]),
        TableDoc(
            name: "unregisters_v", meaning: "view, on both engines: unregistrations with their names",
            columns: [
                ("time_ms", "record time, epoch ms"), ("time", "RFC 3339"), ("line_hash", "line hash"),
                ("source_id", "sources.id"), ("line", "line number"), ("token_id", "tokens.id"), ("token", "the token"),
                ("device", "device id"), ("user", "user id"),
            ]),
        TableDoc(
            name: "apple_metrics_v", meaning: "view, on both engines: Apple's delivery metrics with each day's start",
            columns: [
                ("day", "UTC day, 2026-11-02"), ("day_ms", "the day's start, epoch ms (NULL for a day that is not a date)"),
                ("push_type", "push type"), ("status", "Apple's status (Received, Delivered, …)"), ("count", "count"),
            ]),
    ]
}
