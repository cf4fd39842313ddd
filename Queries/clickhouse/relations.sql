-- title: the relations a report written once reads, on ClickHouse
-- description: The record views of the SQLite store (docs/store.md, "relations and the shared
-- description: SQL") with the same names, columns and values: a report in a --queries folder reads
-- description: these and runs on both engines. Loaded with schema.sql (after it: the views read
-- description: pushlog.records and use pushlog_rfc3339). Deduplicated as the store is (FINAL).
-- Columns the SQLite store numbers itself (id, token_id, source_id) have no twin here; every
-- other column is the store's: kind 0 send, 1 request, 2 response; line_hash the same 64-bit
-- integer; a missing token is NULL; time the RFC 3339 text.

-- send, request and response records; a response logged apart from its request (no token of its
-- own, the same apns_id) takes the request's fields it lacks, as the store joins them at ingest.
CREATE OR REPLACE VIEW pushlog.sends_v AS
WITH split AS (
  SELECT apns_id, any(tuple(token, env, topic, push_type, priority, collapse_id, expiration, payload_bytes, content_available,
                            mutable_content, has_alert, has_sound, has_badge, aps_category, thread_id, interruption_level,
                            relevance, custom_keys, attempt)) AS r
  FROM pushlog.records FINAL
  WHERE kind = 'request' AND apns_id IN (
    SELECT apns_id FROM pushlog.records WHERE kind = 'response' AND token = '' AND apns_id IS NOT NULL)
  GROUP BY apns_id
)
SELECT e.time_ms AS time_ms, pushlog_rfc3339(e.time_ms) AS time,
       reinterpretAsInt64(reverse(unhex(e.line_hash))) AS line_hash, e.line AS line,
       multiIf(e.kind = 'send', 0, e.kind = 'request', 1, 2) AS kind,
       nullIf(if(j, s.r.1, e.token), '') AS token, e.apns_id AS apns_id,
       if(j, coalesce(e.env, s.r.2), e.env) AS env, if(j, coalesce(e.topic, s.r.3), e.topic) AS topic,
       if(j, coalesce(e.push_type, s.r.4), e.push_type) AS push_type, if(j, coalesce(e.priority, s.r.5), e.priority) AS priority,
       if(j, coalesce(e.collapse_id, s.r.6), e.collapse_id) AS collapse_id,
       if(j, coalesce(e.expiration, s.r.7), e.expiration) AS expiration,
       if(j, coalesce(e.payload_bytes, s.r.8), e.payload_bytes) AS payload_bytes,
       if(j, coalesce(e.content_available, s.r.9), e.content_available) AS content_available,
       if(j, coalesce(e.mutable_content, s.r.10), e.mutable_content) AS mutable_content,
       if(j, coalesce(e.has_alert, s.r.11), e.has_alert) AS has_alert, if(j, coalesce(e.has_sound, s.r.12), e.has_sound) AS has_sound,
       if(j, coalesce(e.has_badge, s.r.13), e.has_badge) AS has_badge,
       if(j, coalesce(e.aps_category, s.r.14), e.aps_category) AS aps_category,
       if(j, coalesce(e.thread_id, s.r.15), e.thread_id) AS thread_id,
       if(j, coalesce(e.interruption_level, s.r.16), e.interruption_level) AS interruption_level,
       if(j, coalesce(e.relevance, s.r.17), e.relevance) AS relevance,
       if(j, coalesce(e.custom_keys, s.r.18), e.custom_keys) AS custom_keys,
       e.status AS status, e.reason AS reason, e.category AS category, e.apns_timestamp AS apns_ts,
       e.apns_unique_id AS apns_unique_id, e.latency_ms AS latency_ms, if(j, coalesce(e.attempt, s.r.19), e.attempt) AS attempt,
       e.error AS error
FROM pushlog.records AS e FINAL
LEFT JOIN split AS s ON s.apns_id = e.apns_id AND e.kind = 'response' AND e.token = ''
ARRAY JOIN [s.apns_id IS NOT NULL] AS j
WHERE e.kind IN ('send', 'request', 'response')
SETTINGS join_use_nulls = 1;

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
