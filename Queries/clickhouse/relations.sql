-- title: the relations a report written once reads, on ClickHouse
-- description: The record views of the SQLite store and Apple's metrics (docs/store.md, "relations and the shared
-- description: SQL") with the same names, columns and values: a report in a --queries folder reads
-- description: these and runs on both engines. Loaded with schema.sql (after it: the views read
-- description: pushlog.records and use pushlog_rfc3339). Deduplicated as the store is (FINAL).
-- Columns the SQLite store numbers itself (id, token_id, source_id) have no twin here; every
-- other column is the store's: kind 0 send, 1 request, 2 response; line_hash the same 64-bit
-- integer; a missing token is NULL; time the RFC 3339 text.

-- send, request and response records, as `sends` (schema.sql) gives them: a response logged apart
-- from its request (no token of its own, the same apns_id) takes the request's fields it lacks,
-- as the store joins them at ingest. Qualified columns: an alias named like a column would stand
-- for that column elsewhere in the SELECT on the servers' older query analysis.
CREATE OR REPLACE VIEW pushlog.sends_v AS
SELECT e.time_ms AS time_ms, pushlog_rfc3339(e.time_ms) AS time,
       reinterpretAsInt64(reverse(unhex(e.line_hash))) AS line_hash, e.line AS line,
       multiIf(e.kind = 'send', 0, e.kind = 'request', 1, 2) AS kind,
       nullIf(e.token, '') AS token, e.apns_id AS apns_id, e.env AS env, e.topic AS topic, e.push_type AS push_type,
       e.priority AS priority, e.collapse_id AS collapse_id, e.expiration AS expiration, e.payload_bytes AS payload_bytes,
       e.content_available AS content_available, e.mutable_content AS mutable_content, e.has_alert AS has_alert,
       e.has_sound AS has_sound, e.has_badge AS has_badge, e.aps_category AS aps_category, e.thread_id AS thread_id,
       e.interruption_level AS interruption_level, e.relevance AS relevance, e.custom_keys AS custom_keys,
       e.status AS status, e.reason AS reason, e.category AS category, e.apns_timestamp AS apns_ts,
       e.apns_unique_id AS apns_unique_id, e.latency_ms AS latency_ms, e.attempt AS attempt, e.error AS error
FROM pushlog.sends AS e;

-- The responses: one APNs answer each (send or response records with a status).
CREATE OR REPLACE VIEW pushlog.responses_v AS
SELECT * FROM pushlog.sends_v WHERE kind IN (0, 2) AND status IS NOT NULL;

CREATE OR REPLACE VIEW pushlog.registers_v AS
SELECT time_ms, pushlog_rfc3339(time_ms) AS time, reinterpretAsInt64(reverse(unhex(line_hash))) AS line_hash, line,
       nullIf(token, '') AS token, device, user, env, app_version, os_version, auth, topic
FROM pushlog.records FINAL WHERE kind = 'register';

CREATE OR REPLACE VIEW pushlog.settings_v AS
SELECT time_ms, pushlog_rfc3339(time_ms) AS time, reinterpretAsInt64(reverse(unhex(line_hash))) AS line_hash, line,
       device, user, auth, alert_setting, sound_setting, badge_setting, lock_screen, notification_center
FROM pushlog.records FINAL WHERE kind = 'settings';

CREATE OR REPLACE VIEW pushlog.receipts_v AS
SELECT time_ms, pushlog_rfc3339(time_ms) AS time, reinterpretAsInt64(reverse(unhex(line_hash))) AS line_hash, line,
       apns_id, device, nullIf(token, '') AS token, receipt, result
FROM pushlog.records FINAL WHERE kind = 'receipt';

CREATE OR REPLACE VIEW pushlog.unregisters_v AS
SELECT time_ms, pushlog_rfc3339(time_ms) AS time, reinterpretAsInt64(reverse(unhex(line_hash))) AS line_hash, line,
       nullIf(token, '') AS token, device, user
FROM pushlog.records FINAL WHERE kind = 'unregister';

CREATE OR REPLACE VIEW pushlog.apple_metrics_v AS
SELECT day, toInt64(toDateOrNull(day)) * 86400000 AS day_ms, push_type, status, count
FROM pushlog.apple_metrics FINAL;
