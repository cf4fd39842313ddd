-- title: the facts pushlog keeps in ClickHouse
-- description: Rebuilds the tables the reports read (kept_*) from the records: responses joined
-- description: to their requests, registrations, per-token and per-device facts, token runs,
-- description: background pushes and the data's span, each computed once by the views of
-- description: schema.sql and stored, so a report reads stored facts instead of recomputing the
-- description: history with FINAL. `pushlog --clickhouse URL ingest` runs it after loading, and a
-- description: report runs it first when the records changed since (kept_state says when).
-- Each statement replaces one table atomically (CREATE OR REPLACE): a report reads the old table
-- or the new one, never a half-built one. The facts are a function of the records after
-- deduplication (FINAL), so rebuilding them any number of times, after a killed or repeated
-- load, gives the same rows: exactly once holds for them as for the records. Each kept table is
-- written once and replaced whole by the next rebuild, so its parts are left as written
-- (max_bytes_to_merge_at_max_space_in_pool = 1): merging them would be work thrown away, done on
-- the cores the rest of the rebuild is using.
-- Run by hand after loading rows yourself:  clickhouse-client --queries-file Queries/clickhouse/facts.sql

-- What the rebuild starts from: the raw row count, the parts that hold those rows (read in one
-- query, so of one moment: the next rebuild of only what a load touched starts from the rows of the
-- parts not among them, touched.sql), the table's identity and when each part was written (a
-- table created anew, or emptied and its server restarted, numbers its parts from 1 again) and the
-- newest `sources` row. Read first, so rows inserted while it runs make the next check see the
-- facts as out of date.
CREATE OR REPLACE TABLE pushlog.kept_pending ENGINE = MergeTree ORDER BY tuple()
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT records_rows, records_parts,
       (SELECT any(uuid) FROM system.tables WHERE database = currentDatabase() AND name = 'records') AS records_uuid,
       (SELECT groupArray((name, modification_time)) FROM system.parts
        WHERE database = currentDatabase() AND table = 'records' AND active) AS records_part_times,
       (SELECT max(version) FROM pushlog.sources) AS sources_version
FROM (SELECT count() AS records_rows, groupUniqArray(_part) AS records_parts FROM pushlog.records);

-- Time buckets as pushlog labels them (UTC): 'minute', '5m', 'hour', 'day', 'week' (ISO, Monday:
-- 1970-01-05 was one, so a week's start is shifted by 3 days). Each argument appears once in the
-- expansion, and the unit only in constant parts: the server expands a function's body at every
-- use, and a body that repeated `t` made the reports' plans grow with every nesting.
CREATE OR REPLACE FUNCTION pushlog_bucket_step AS (unit) -> toInt64(multiIf(
  unit = 'minute', 60000, unit = '5m', 300000, unit = 'hour', 3600000, unit = 'week', 604800000, 86400000));
CREATE OR REPLACE FUNCTION pushlog_bucket_shift AS (unit) -> toInt64(if(unit = 'week', 259200000, 0));
-- Rounded down, before 1970 too (floor, not intDiv's truncation toward zero).
CREATE OR REPLACE FUNCTION pushlog_bucket_start AS (t, unit) ->
  toInt64(floor((t + pushlog_bucket_shift(unit)) / pushlog_bucket_step(unit))) * pushlog_bucket_step(unit) - pushlog_bucket_shift(unit);
-- '2026-W45', '2026-11-02', '2026-11-02T14', '2026-11-02T14:05'
CREATE OR REPLACE FUNCTION pushlog_bucket AS (b, unit) -> formatDateTime(fromUnixTimestamp64Milli(toInt64(b), 'UTC'),
  multiIf(unit = 'week', '%G-W%V', unit = 'hour', '%Y-%m-%dT%H', unit IN ('minute', '5m'), '%Y-%m-%dT%H:%i', '%Y-%m-%d'), 'UTC');
CREATE OR REPLACE FUNCTION pushlog_iso_week AS (t) -> pushlog_bucket(t, 'week');
-- Every bucket start of a report's range, for the buckets without records: [since, until) where
-- given, else the data's span [lo, hi] (up to now when only since is given); none without data
-- (n = 0) or past 20,000 buckets.
CREATE OR REPLACE FUNCTION pushlog_fill_from AS (since, lo) -> if(since = -9000000000000000000, lo, since);
CREATE OR REPLACE FUNCTION pushlog_fill_to AS (since, until, hi) -> if(until = 9000000000000000000,
  if(since = -9000000000000000000, hi + 1, greatest(toUnixTimestamp64Milli(now64(3)), hi + 1)), until);
CREATE OR REPLACE FUNCTION pushlog_bucket_range AS (first, f1, n, unit) ->
  if(n = 0 OR intDiv(f1 - first, pushlog_bucket_step(unit)) >= 20000, [], range(first, f1, pushlog_bucket_step(unit)));
CREATE OR REPLACE FUNCTION pushlog_fill AS (since, until, lo, hi, n, unit) ->
  pushlog_bucket_range(pushlog_bucket_start(pushlog_fill_from(since, lo), unit), pushlog_fill_to(since, until, hi), n, unit);

-- `--by` a dimension (topic, env, app_version, push_type, reason) as pushlog labels it: the value,
-- '(none)' when it is missing or empty ('(unknown)' for an app version); '' for a time unit, whose
-- bucket is its start (pushlog_bucket_start). The reports group by both, (start, value), so one
-- statement serves either form. Defined here, not in schema.sql: the reports need the current
-- definition, and this file (unlike the schema) runs again whenever pushlog's version of it changes.
CREATE OR REPLACE FUNCTION pushlog_is_dimension AS (by) -> by IN ('topic', 'env', 'app_version', 'push_type', 'reason');

-- The value is picked from an array by the dimension's place, so its NULL and empty cases are
-- written once: the server plans a function's body at every use, and a branch per dimension made
-- the reports that call it twice plan noticeably longer.
CREATE OR REPLACE FUNCTION pushlog_by_value AS (by, topic, env, push_type, reason, app_version) -> if(pushlog_is_dimension(by),
  coalesce(nullIf(toString([topic, env, push_type, reason, app_version][indexOf(['topic', 'env', 'push_type', 'reason', 'app_version'], by)]), ''),
           if(by = 'app_version', '(unknown)', '(none)')),
  '');

CREATE OR REPLACE FUNCTION pushlog_by_start AS (t, by) -> if(pushlog_is_dimension(by), toInt64(0), toInt64(pushlog_bucket_start(t, by)));

CREATE OR REPLACE FUNCTION pushlog_by_label AS (b, value, by) -> if(pushlog_is_dimension(by), value, pushlog_bucket(b, by));

-- Rounding as SQLite's round(), which the reports' figures must equal: SQLite adds half a unit
-- (and a nudge of 3e-16 of the number) to the double before writing its digits, so a computed
-- 92.83449999999999 rounds to 92.835 and 130.3755 (the double 130.37549999...) to 130.376. That is
-- the number's 15-significant-digit decimal form rounded half away from zero, which a Decimal
-- does. ClickHouse's round() of a float is banker's and binary. Numbers too large for the Decimal
-- round half away from zero as floats.
CREATE OR REPLACE FUNCTION pushlog_round AS (x, n) -> coalesce(toFloat64(round(toDecimal128OrNull(printf('%.15g', x), 18), n)),
  if(x < 0, -floor(-x * pow(10, n) + 0.5), floor(x * pow(10, n) + 0.5)) / pow(10, n));

CREATE OR REPLACE TABLE pushlog.kept_token_facts /*kept per token: token*/ ENGINE = MergeTree ORDER BY token
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT * FROM pushlog.token_facts WHERE 1 /*+ AND token IN pushlog.kept_touched_token */;

-- Responses, requests and sends (the `sends` view of schema.sql: split responses completed from
-- their request; the columns reports read), each with its token's facts (the latest
-- registration's env and app version, malformed, the first 410 and its APNs timestamp; NULL for a
-- token without facts): joined once here, so a report does not join every response it reads to
-- the per-token facts.
CREATE OR REPLACE TABLE pushlog.kept_sends /*kept per token: token*/ ENGINE = MergeTree ORDER BY time_ms
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT s.kind AS kind, s.time_ms AS time_ms, s.line_hash AS line_hash, s.source AS source, s.line AS line, s.token AS token,
       s.token_malformed AS token_malformed, s.token_masked AS token_masked, s.apns_id AS apns_id, s.env AS env, s.topic AS topic,
       s.push_type AS push_type, s.priority AS priority, s.collapse_id AS collapse_id, s.expiration AS expiration,
       s.mutable_content AS mutable_content, s.content_available AS content_available, s.has_alert AS has_alert,
       s.has_sound AS has_sound, s.has_badge AS has_badge, s.attempt AS attempt, s.status AS status, s.reason AS reason,
       s.category AS category, s.apns_timestamp AS apns_timestamp, s.error AS error, s.latency_ms AS latency_ms,
       f.reg_env AS reg_env, f.reg_app_version AS reg_app_version, f.malformed AS malformed,
       f.first_410 AS first_410, f.first_410_ts AS first_410_ts
FROM pushlog.sends AS s LEFT JOIN pushlog.kept_token_facts AS f ON f.token = s.token
WHERE 1 /*+ AND s.token IN pushlog.kept_touched_token */
SETTINGS join_use_nulls = 1;

-- Responses: one APNs answer each, as reports count them.
CREATE OR REPLACE VIEW pushlog.kept_responses AS
SELECT * FROM pushlog.kept_sends WHERE kind IN ('send', 'response') AND status IS NOT NULL;

-- Errors: the responses other than 200 (response = 1) and the transport failures (transport = 1),
-- what the errors report lists; few rows next to kept_sends. The retry facts below start from
-- these errors too: the server reads a CTE again at each reference, and each reads these few rows
-- instead of every response.
CREATE OR REPLACE TABLE pushlog.kept_errors /*kept per token: token*/ ENGINE = MergeTree ORDER BY time_ms
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT time_ms, line_hash, source, line, token, topic, env, apns_id, collapse_id, attempt, status, reason, category, error,
       CAST(coalesce(kind IN ('send', 'response') AND status IS NOT NULL AND status <> 200, 0), 'UInt8') AS response,
       CAST(coalesce(category = 'transport', 0), 'UInt8') AS transport
FROM pushlog.kept_sends
WHERE ((kind IN ('send', 'response') AND status IS NOT NULL AND status <> 200) OR category = 'transport') /*+ AND token IN pushlog.kept_touched_token */;

-- Registrations: token, time, device and app version. Each record once, grouped by its identity
-- rather than read FINAL: its copies are the same line, so any one gives its fields, and FINAL
-- merges every record's key (the touched tokens' are spread over most of the table), where the
-- grouping reads only the rows asked for.
CREATE OR REPLACE TABLE pushlog.kept_registers /*kept per token: token*/ ENGINE = MergeTree ORDER BY time_ms
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT token, time_ms, any(device) AS device, any(app_version) AS app_version FROM pushlog.records
WHERE kind = 'register' /*+ AND token IN pushlog.kept_touched_token */
GROUP BY token, time_ms, line_hash;

-- Retries of never-retry errors (category token-gone, token-bad or request), per error over all
-- history: later responses to the same token and topic within one hour (at most 3,600,000 ms
-- later) with the same apns-id, an attempt above 1 or the same collapse-id, and no registration of
-- the token after the error and at or before the retry; a retry that follows several such errors
-- counts once, on the latest of them (two in one millisecond: the later in source path and line).
-- A retry is in its error's clock hour or the next, so each response is joined under its own hour
-- and the one before (one pair each): a token with many errors and sends is not paired whole.
-- kept_retry_links holds each (error, retry) pair with what hygiene shows of the retry (its
-- source and line, the order pushlog stores records in; apns-id, token, env, status, category);
-- kept_retries the count per error.
CREATE OR REPLACE TABLE pushlog.kept_retry_links /*kept per token: token*/ ENGINE = MergeTree ORDER BY (et, ek)
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
WITH never AS (
  SELECT token, time_ms, line_hash, source, line, topic, apns_id, collapse_id FROM pushlog.kept_errors
  WHERE response = 1 AND category IN ('token-gone', 'token-bad', 'request') AND token <> '' /*+ AND token IN pushlog.kept_touched_token */
), pairs AS (
  SELECT x.time_ms AS et, intDiv(x.time_ms, 3600000) AS eh, x.line_hash AS ek, x.source AS esrc, x.line AS eline,
         x.token AS token, x.topic AS topic,
         r.time_ms AS rt, r.line_hash AS rk, r.apns_id AS r_apns, r.attempt AS r_attempt, r.collapse_id AS r_collapse,
         r.source AS r_source, r.line AS r_line, r.env AS r_env, r.status AS r_status, r.category AS r_category
  FROM never AS x
  INNER JOIN (SELECT *, arrayJoin([intDiv(time_ms, 3600000), intDiv(time_ms, 3600000) - 1]) AS h FROM pushlog.kept_responses
              WHERE token IN (SELECT token FROM never)) AS r ON r.token = x.token AND r.h = intDiv(x.time_ms, 3600000)
  WHERE r.time_ms > x.time_ms AND r.time_ms <= x.time_ms + 3600000 AND isNotDistinctFrom(r.topic, x.topic)
    AND (r.apns_id = x.apns_id OR r.attempt > 1 OR r.collapse_id = x.collapse_id)
), flagged AS (
  -- Each pair, and whether its retry is taken over by a later never-retry error.
  SELECT p.et AS et, p.ek AS ek, p.rt AS rt, p.rk AS rk, any(p.token) AS token, any(p.r_apns) AS r_apns,
         any(p.r_source) AS r_source, any(p.r_line) AS r_line, any(p.r_env) AS r_env, any(p.r_status) AS r_status,
         any(p.r_category) AS r_category,
         max(coalesce(n.time_ms >= p.et AND n.time_ms < p.rt AND (n.time_ms > p.et OR (n.source, n.line) > (p.esrc, p.eline))
                      AND isNotDistinctFrom(n.topic, p.topic)
                      AND (p.r_apns = n.apns_id OR p.r_attempt > 1 OR p.r_collapse = n.collapse_id), 0)) AS taken
  FROM pairs AS p
  LEFT JOIN (SELECT *, arrayJoin([intDiv(time_ms, 3600000), intDiv(time_ms, 3600000) - 1]) AS h FROM never) AS n
    ON n.token = p.token AND n.h = p.eh
  GROUP BY p.et, p.ek, p.rt, p.rk
), regs AS (
  SELECT token, groupArray(time_ms) AS times FROM pushlog.kept_registers WHERE token IN (SELECT token FROM never) GROUP BY token
)
SELECT f.et AS et, f.ek AS ek, f.rt AS rt, f.rk AS rk, f.token AS token, f.r_apns AS r_apns, f.r_source AS r_source,
       f.r_line AS r_line, f.r_env AS r_env, f.r_status AS r_status, f.r_category AS r_category
FROM flagged AS f LEFT JOIN regs AS g ON g.token = f.token
WHERE f.taken = 0 AND NOT arrayExists(t -> t > f.et AND t <= f.rt, g.times)
SETTINGS join_use_nulls = 1;

CREATE OR REPLACE TABLE pushlog.kept_retries ENGINE = MergeTree ORDER BY (et, ek)
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT et, ek, count() AS n FROM pushlog.kept_retry_links GROUP BY et, ek;

-- 429 and 5xx answers (category rate or server) and their first retry (within the hour after, same
-- token and topic, same apns-id or an attempt above 1): bad when it came within 1 s, or no later
-- than the gap since the 429/5xx before it (within the hour before, when the answer was a retry).
-- The first retry is the earliest, and of those the first stored (source and line); its source,
-- line, apns-id and token are kept for hygiene's example.
CREATE OR REPLACE TABLE pushlog.kept_rate_retries /*kept per token: r_token*/ ENGINE = MergeTree ORDER BY (et, ek)
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
WITH be AS (
  SELECT time_ms AS et, line_hash AS ek, token, topic, apns_id, attempt, intDiv(time_ms, 3600000) AS h FROM pushlog.kept_errors
  WHERE response = 1 AND category IN ('rate', 'server') AND token <> '' /*+ AND token IN pushlog.kept_touched_token */
), first_retry AS (
  SELECT be.et AS et, be.ek AS ek, min(q.time_ms) AS rt,
         argMin(tuple(q.source, q.line, q.apns_id, q.token), tuple(q.time_ms, q.source, q.line)) AS r
  FROM be INNER JOIN (SELECT *, arrayJoin([intDiv(time_ms, 3600000), intDiv(time_ms, 3600000) - 1]) AS h FROM pushlog.kept_responses
                      WHERE token IN (SELECT token FROM be)) AS q ON q.token = be.token AND q.h = be.h
  WHERE q.time_ms > be.et AND q.time_ms <= be.et + 3600000 AND isNotDistinctFrom(q.topic, be.topic)
    AND (q.apns_id = be.apns_id OR q.attempt > 1)
  GROUP BY be.et, be.ek
), prev AS (
  SELECT be.et AS et, be.ek AS ek, max(q.time_ms) AS pt
  FROM be INNER JOIN (SELECT *, arrayJoin([intDiv(time_ms, 3600000), intDiv(time_ms, 3600000) + 1]) AS h FROM pushlog.kept_responses
                      WHERE token IN (SELECT token FROM be)) AS q ON q.token = be.token AND q.h = be.h
  WHERE q.time_ms < be.et AND q.time_ms >= be.et - 3600000 AND q.category IN ('rate', 'server')
    AND isNotDistinctFrom(q.topic, be.topic) AND (q.apns_id = be.apns_id OR be.attempt > 1)
  GROUP BY be.et, be.ek
)
SELECT f.et AS et, f.ek AS ek, f.rt - f.et < 1000 OR (p.pt IS NOT NULL AND f.rt - f.et <= f.et - p.pt) AS bad,
       f.r.1 AS r_source, f.r.2 AS r_line, f.r.3 AS r_apns, f.r.4 AS r_token
FROM first_retry AS f LEFT JOIN prev AS p ON p.et = f.et AND p.ek = f.ek
SETTINGS join_use_nulls = 1;

-- Background pushes, from the responses just kept (line_hash orders pushes of one millisecond,
-- reg_app_version is the token's, for silent --by app_version; source and line for hygiene's example).
CREATE OR REPLACE TABLE pushlog.kept_background_pushes /*kept per token: token*/ ENGINE = MergeTree ORDER BY t
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
WITH rc AS (
  -- the first receipt per apns-id: a record's copies change no minimum, so no FINAL
  SELECT apns_id, min(time_ms) AS rt FROM pushlog.records
  WHERE kind = 'receipt' AND receipt = 'background' AND apns_id IS NOT NULL
    /*+ AND apns_id IN (SELECT apns_id FROM pushlog.kept_responses WHERE token IN pushlog.kept_touched_token) */
  GROUP BY apns_id
)
SELECT intDiv(s.time_ms, 3600000) AS hour, s.token AS token, s.time_ms AS t, s.status AS status, s.priority AS priority,
       coalesce(s.has_alert = 1 OR s.has_sound = 1 OR s.has_badge = 1, 0) AS with_alert,
       s.topic AS topic, s.env AS env, s.apns_id AS apns_id,
       if(s.status = 200 AND s.apns_id IS NOT NULL, rc.rt, NULL) AS rt,
       s.line_hash AS line_hash, s.reg_app_version AS reg_app_version, s.source AS source, s.line AS line
FROM pushlog.kept_responses AS s LEFT JOIN rc ON rc.apns_id = s.apns_id
WHERE pushlog_is_background(s.push_type, s.content_available, s.has_alert, s.has_sound, s.has_badge) /*+ AND s.token IN pushlog.kept_touched_token */
SETTINGS join_use_nulls = 1;

-- Responses to tokens APNs retired: every 410 response and every response after its token's first
-- 410, with what gone and hygiene count of them, which depends on the token's history only, never
-- on a report's range: first_gone (the token's first 410), after_gone (later than the first 410,
-- with no registration of the token after that 410's APNs timestamp, or its time, and at or before
-- the send). Few rows next to kept_sends: gone reads the tokens here, not in every response.
CREATE OR REPLACE TABLE pushlog.kept_gone /*kept per token: token*/ ENGINE = MergeTree ORDER BY time_ms
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
WITH regs AS (
  SELECT token, groupArray(time_ms) AS times FROM pushlog.kept_registers
  WHERE token IN (SELECT token FROM pushlog.kept_token_facts WHERE first_410 IS NOT NULL) GROUP BY token
)
SELECT s.time_ms AS time_ms, s.token AS token, s.status AS status, s.topic AS topic, s.env AS env, s.push_type AS push_type,
       s.reason AS reason, s.reg_app_version AS reg_app_version, s.source AS source, s.line AS line, s.apns_id AS apns_id,
       toUInt8(coalesce(s.status = 410 AND s.time_ms = s.first_410, 0)) AS first_gone,
       toUInt8(coalesce(s.time_ms > s.first_410
                        AND NOT arrayExists(x -> x > coalesce(s.first_410_ts, s.first_410) AND x <= s.time_ms, g.times), 0)) AS after_gone
FROM pushlog.kept_responses AS s LEFT JOIN regs AS g ON g.token = s.token
WHERE (s.status = 410 OR (s.first_410 IS NOT NULL AND s.time_ms > s.first_410)) /*+ AND s.token IN pushlog.kept_touched_token */;

-- Registrations and settings of a device, or of a user for those that name only a user (dkey
-- 'user:ID'): the observations the token runs and the per-device facts below are computed from,
-- read from the records once and kept in the order of their device.
CREATE OR REPLACE TABLE pushlog.kept_observations /*kept per dkey: dkey*/ ENGINE = MergeTree ORDER BY (dkey, time_ms)
  SETTINGS allow_nullable_key = 1, max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT if(device IS NOT NULL, device, concat('user:', user)) AS dkey, kind, time_ms, token, device, user, auth
FROM pushlog.records FINAL
WHERE kind IN ('register', 'settings') AND (device IS NOT NULL OR user IS NOT NULL)
  /*+ AND if(device IS NOT NULL, device, concat('user:', user)) IN pushlog.kept_touched_dkey */;

-- Runs of consecutive registrations of one device with the same token (pushlog's token_runs);
-- superseded_at: when the device first registered a different token after the run.
CREATE OR REPLACE TABLE pushlog.kept_token_runs /*kept per dkey: device*/ ENGINE = MergeTree ORDER BY start
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT device, token, start,
       leadInFrame(toNullable(start)) OVER (PARTITION BY device ORDER BY start
                                            ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS superseded_at
FROM (
  SELECT device, token, time_ms AS start,
         lagInFrame(toNullable(token)) OVER (PARTITION BY device ORDER BY time_ms
                                             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS prev
  FROM pushlog.kept_observations WHERE kind = 'register' AND device IS NOT NULL /*+ AND device IN pushlog.kept_touched_dkey */
)
WHERE prev IS NULL OR prev <> token;

-- When sends to a token were going to a superseded token (pushlog's token_stale): from the
-- moment its device registered a different token until the token's next run starts (any device).
CREATE OR REPLACE TABLE pushlog.kept_token_stale /*kept per token: token*/ ENGINE = MergeTree ORDER BY tuple()
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT token, superseded_at AS from_t, next_start AS to_t FROM (
  SELECT token, superseded_at,
         coalesce(leadInFrame(toNullable(start)) OVER (PARTITION BY token ORDER BY start
                                                       ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
                  toInt64(9000000000000000000)) AS next_start
  FROM pushlog.kept_token_runs WHERE 1 /*+ AND token IN pushlog.kept_touched_token */
)
WHERE superseded_at IS NOT NULL AND superseded_at < next_start;

-- Responses sent to a superseded token (churn's superseded_sends): one row per response and
-- stale period of its token that holds it. Whether a response is one depends on the token's
-- history only, so churn and weekly count these rows instead of joining every response's token.
CREATE OR REPLACE TABLE pushlog.kept_superseded /*kept per token: token*/ ENGINE = MergeTree ORDER BY time_ms
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT s.time_ms AS time_ms, s.topic AS topic, s.env AS env, s.token AS token
FROM pushlog.kept_responses AS s INNER JOIN pushlog.kept_token_stale AS z ON z.token = s.token
WHERE s.time_ms > z.from_t AND s.time_ms < z.to_t /*+ AND s.token IN pushlog.kept_touched_token */;

-- Opt-in facts per device, or per user for observations that name only a user (keyed 'user:ID'),
-- as pushlog's device_facts: observations are the auth of registrations and settings; opt_in is
-- the first authorized one, off the first denied one after it, fd_t/fd_auth the first decided one
-- (not notDetermined); last_token/last_reg the latest registration.
CREATE OR REPLACE TABLE pushlog.kept_device_facts /*kept per dkey: dkey*/ ENGINE = MergeTree ORDER BY tuple()
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT dkey, max_user AS user, opt_in,
       if(empty(arrayFilter(x -> x > opt_in, denied)), NULL, arrayMin(arrayFilter(x -> x > opt_in, denied))) AS off,
       fd_t, fd_auth, last_obs, last_token, last_reg
FROM (
  SELECT dkey, max(user) AS max_user,
         minIf(toNullable(time_ms), auth = 'authorized') AS opt_in,
         groupArrayIf(time_ms, auth = 'denied') AS denied,
         minIf(toNullable(time_ms), auth IN ('authorized', 'denied', 'provisional', 'ephemeral')) AS fd_t,
         argMinIf(tuple(auth), time_ms, auth IN ('authorized', 'denied', 'provisional', 'ephemeral')).1 AS fd_auth,
         maxIf(toNullable(time_ms), auth IS NOT NULL) AS last_obs,
         argMaxIf(tuple(token), time_ms, kind = 'register').1 AS last_token,
         maxIf(toNullable(time_ms), kind = 'register') AS last_reg,
         any(device IS NULL) AS user_only, countIf(auth IS NOT NULL) AS observations
  FROM pushlog.kept_observations WHERE 1 /*+ AND dkey IN pushlog.kept_touched_dkey */
  GROUP BY dkey
)
WHERE NOT user_only OR observations > 0;

-- What opts in and turns off, as opt-out and weekly count it, once for each unit: a device, or a
-- user (its devices; a device without a user stands for itself). opt_in and off: the first of its
-- devices'; last_gone: the last token of its device registered last got a 410 and was not
-- registered again after the 410's timestamp; fd_t and fd_provisional: its first decided
-- observation (not notDetermined), and whether it was provisional. A function of the history
-- alone, so kept here, not computed by each report from every device. A report's --unit picks
-- the rows with pushlog_unit_kind(unit): user, or else device.
CREATE OR REPLACE FUNCTION pushlog_unit_kind AS (unit) -> if(unit = 'user', 'user', 'device');
CREATE OR REPLACE TABLE pushlog.kept_unit_facts /*kept per unit: unit*/ ENGINE = MergeTree ORDER BY (unit_kind, opt_in)
  SETTINGS allow_nullable_key = 1, max_bytes_to_merge_at_max_space_in_pool = 1 AS
WITH d AS (
  SELECT f.*, coalesce(t.first_410 IS NOT NULL AND t.last_reg <= coalesce(t.first_410_ts, t.first_410), 0) AS gone
  FROM pushlog.kept_device_facts AS f LEFT JOIN pushlog.kept_token_facts AS t ON t.token = f.last_token
  /*+ WHERE f.dkey IN pushlog.kept_touched_unit OR f.user IN pushlog.kept_touched_unit */
), ranked AS (
  SELECT *, row_number() OVER (PARTITION BY unit_kind, unit ORDER BY last_reg DESC NULLS LAST) AS by_last_reg,
            row_number() OVER (PARTITION BY unit_kind, unit ORDER BY fd_t ASC NULLS LAST) AS by_first_decided
  FROM (SELECT arrayJoin(['device', 'user']) AS unit_kind, if(unit_kind = 'user', coalesce(d.user, d.dkey), d.dkey) AS unit, d.* FROM d)
)
SELECT unit_kind, unit, min(ranked.opt_in) AS opt_in, min(ranked.off) AS off, max(if(by_last_reg = 1, gone, NULL)) AS last_gone,
       min(ranked.fd_t) AS fd_t, max(if(by_first_decided = 1, fd_auth = 'provisional', NULL)) AS fd_provisional
FROM ranked /*+ WHERE unit IN pushlog.kept_touched_unit */ GROUP BY unit_kind, unit
SETTINGS join_use_nulls = 1;

-- The span of the data (responses, requests, registrations, settings), for filling empty buckets;
-- n: its rows, counted before deduplication (the reports only ask whether there are any), so the
-- records are read without FINAL.
CREATE OR REPLACE TABLE pushlog.kept_data_span ENGINE = MergeTree ORDER BY tuple()
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT min(time_ms) AS lo, max(time_ms) AS hi, count() AS n FROM pushlog.records WHERE kind NOT IN ('receipt', 'unregister');

-- Tokens the hex-run mask would not catch (malformed, masked or short ones): what a report's
-- output masks besides hex runs, read here instead of scanning every record's token per report.
CREATE OR REPLACE TABLE pushlog.kept_irregular_tokens /*kept per token: token*/ ENGINE = MergeTree ORDER BY tuple()
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT DISTINCT token FROM pushlog.records
WHERE (token_malformed = 1 OR token_masked = 1 OR length(token) < 32) AND length(token) >= 4
  /*+ AND token IN pushlog.kept_touched_token */;

-- Responses per UTC hour, counted by every value the reports group or filter them by (topic, env,
-- push type, reason, the token's latest registration's app version and env, malformed, status,
-- error, category): a report over many hours reads these counts for the range's whole hours and
-- the responses of its partial hours one by one (pushlog_hours_from/to), as SQLite's
-- hourly_responses serves it. Responses before 1970 are left to the one-by-one reads.
CREATE OR REPLACE TABLE pushlog.kept_hourly_responses ENGINE = MergeTree ORDER BY hour
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT intDiv(s.time_ms, 3600000) AS hour, s.topic AS topic, s.env AS env, s.push_type AS push_type, s.reason AS reason,
       s.reg_app_version AS reg_app_version, s.reg_env AS reg_env, toUInt8(coalesce(s.malformed, 0)) AS malformed,
       s.status AS status, s.error AS error, s.category AS category, count() AS responses
FROM pushlog.kept_responses AS s WHERE s.time_ms >= 0
GROUP BY hour, topic, env, push_type, reason, reg_app_version, reg_env, malformed, status, error, category;

-- The whole hours [from, to) of a range [since, until) in ms that kept_hourly_responses answers
-- for: none when the buckets are finer than an hour (by minute or 5m), or the range holds none.
CREATE OR REPLACE FUNCTION pushlog_hours_from AS (since, by) ->
  if(by IN ('minute', '5m'), toInt64(0), greatest(toInt64(ceil(since / 3600000)), toInt64(0)));
CREATE OR REPLACE FUNCTION pushlog_hours_to AS (since, until, by) ->
  if(by IN ('minute', '5m'), toInt64(0), greatest(pushlog_hours_from(since, by), toInt64(floor(until / 3600000))));

-- The responses of a range counted alike, for reports that count by the columns of
-- kept_hourly_responses without a time bucket: the range's whole hours from there, the responses
-- of its partial hours one by one (n = 1); mismatched: sent to another env than the token's
-- registered one. A parameterized view, so the reports hold this SQL once:
--   SELECT * FROM pushlog.kept_response_counts(since = '2026-11-02 00:00:00', until = '2299-12-31 23:59:59.999', topic = '', env = '')
CREATE OR REPLACE VIEW pushlog.kept_response_counts AS
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
pushlog_hours_from(since, 'hour') AS lo_h, pushlog_hours_to(since, until, 'hour') AS hi_h
SELECT topic, env, push_type, reason, category, reg_app_version, malformed, n,
       coalesce(reg_env IS NOT NULL AND env IS NOT NULL AND env <> reg_env, 0) AS mismatched
FROM (SELECT topic, env, push_type, reason, category, reg_env, reg_app_version, malformed, responses AS n
      FROM pushlog.kept_hourly_responses
      WHERE hour >= lo_h AND hour < hi_h
        AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
      UNION ALL
      SELECT topic, env, push_type, reason, category, reg_env, reg_app_version, toUInt8(coalesce(malformed, 0)), toUInt64(1)
      FROM pushlog.kept_responses
      WHERE time_ms >= since AND time_ms < until AND NOT (time_ms >= lo_h * 3600000 AND time_ms < hi_h * 3600000)
        AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String}));

-- Background pushes per token and UTC clock hour, what silent and weekly count of them: n pushes,
-- load (the accepted ones), not_5 (priority not 5; a missing priority is APNs' default, 10),
-- alerts (with an alert, sound or badge), lags (receipt time minus response time in seconds, of
-- the accepted pushes with a background receipt). No token column: nothing reads it, and the
-- reports' sums need no string. Pushes before 1970 are left to the one-by-one reads.
CREATE OR REPLACE TABLE pushlog.kept_background_hours ENGINE = MergeTree ORDER BY hour
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT hour, count() AS n, countIf(status = 200) AS load, countIf(coalesce(priority, 10) <> 5) AS not_5,
       sum(with_alert) AS alerts, groupArrayIf((rt - t) / 1000.0, status = 200 AND rt IS NOT NULL) AS lags
FROM pushlog.kept_background_pushes WHERE t >= 0
GROUP BY hour, token;

-- The token-hours of a range, a row each: the whole hours from kept_background_hours when no topic
-- or env is asked for (a token-hour may mix topics, and its load is of the matching pushes only),
-- the rest (partial hours at the ends, or every hour under a filter) grouped from the pushes:
--   SELECT * FROM pushlog.kept_background_loads(since = '2026-11-02 00:00:00', until = '2299-12-31 23:59:59.999', topic = '', env = '')
CREATE OR REPLACE VIEW pushlog.kept_background_loads AS
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
{topic:String} = '' AND {env:String} = '' AS whole, pushlog_hours_from(since, 'hour') AS lo_h,
if(whole, pushlog_hours_to(since, until, 'hour'), lo_h) AS hi_h
SELECT hour, n, load, not_5, alerts, lags FROM pushlog.kept_background_hours WHERE hour >= lo_h AND hour < hi_h
UNION ALL
-- The same sums as kept_background_hours', over the pushes that match.
SELECT hour, count(), countIf(status = 200), countIf(coalesce(priority, 10) <> 5), sum(with_alert),
       groupArrayIf((rt - t) / 1000.0, status = 200 AND rt IS NOT NULL)
FROM pushlog.kept_background_pushes
WHERE t >= since AND t < until AND (t < lo_h * 3600000 OR t >= hi_h * 3600000)
  AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
GROUP BY hour, token;

-- The hygiene report's facts. Whether a response breaks a rule depends on the response alone
-- (and, for missing_push_type, on whether its source logs APNs headers that UTC day of the range),
-- so the rebuild flags each response once (kept_hygiene_responses, kept_hygiene_flags), keeps the
-- violations one row each (kept_hygiene_violations, with what the report shows as the example) and
-- counts both per UTC hour, source, topic and env (kept_hygiene_hours, kept_hygiene_violation_hours).
-- A report reads the whole hours of its range there and the rows of the partial hours at its ends
-- (kept_hygiene_rules, below).

-- Each response with what hygiene counts of it: what it logs (APNs headers, payload, retry ids),
-- the rules it is checked by and the rules it breaks (`broken`, by rule number: 1-2 background,
-- 3-5 per response, 9 malformed token, 10 provider token).
CREATE OR REPLACE VIEW pushlog.kept_hygiene_responses AS
SELECT time_ms, intDiv(time_ms, 3600000) AS hour, source, line, topic, env, apns_id, token, reason,
       toUInt8(push_type IS NOT NULL OR priority IS NOT NULL OR collapse_id IS NOT NULL OR expiration IS NOT NULL) AS headers,
       toUInt8(has_alert IS NOT NULL) AS payload,
       toUInt8(apns_id IS NOT NULL OR attempt IS NOT NULL OR collapse_id IS NOT NULL) AS ids,
       toUInt8(push_type IS NOT NULL) AS typed,
       toUInt8(coalesce(push_type = 'alert' AND has_alert IS NOT NULL, 0) = 1) AS alert_n,
       toUInt8(coalesce(mutable_content = 1 AND has_alert IS NOT NULL, 0) = 1) AS mutable_n,
       toUInt8(coalesce(token_malformed = 1 AND token_masked = 1, 0) = 1) AS masked,
       toUInt8(coalesce(pushlog_is_background(push_type, content_available, has_alert, has_sound, has_badge), 0) = 1) AS background,
       toUInt8(background = 1 AND priority IS NOT NULL) AS bg_priority,
       -- the never-retry errors (token-gone, token-bad, request) to a token: what non_retryable_retried checks
       toUInt8(coalesce(status <> 200 AND category IN ('token-gone', 'token-bad', 'request') AND token <> '', 0) = 1) AS never_error,
       arrayFilter(o -> o > 0, [
         if(background = 1 AND coalesce(has_alert = 1 OR has_sound = 1 OR has_badge = 1, 0) = 1, 1, 0),
         if(background = 1 AND coalesce(priority, 10) <> 5, 2, 0),
         if(coalesce(push_type = 'alert' AND has_alert = 0 AND has_sound = 0 AND has_badge = 0, 0) = 1, 3, 0),
         if(push_type IS NULL, 4, 0),
         if(coalesce(mutable_content = 1 AND has_alert = 0, 0) = 1, 5, 0),
         if(token_malformed = 1 AND token_masked = 0, 9, 0),
         if(status <> 200 AND reason IN ('ExpiredProviderToken', 'TooManyProviderTokenUpdates'), 10, 0)]) AS broken
FROM pushlog.kept_responses;

-- Each response's flags, narrow (no strings but its source, topic and env), for the partial hours
-- at a range's ends; and their counts per UTC hour, source, topic and env, for the whole hours.
CREATE OR REPLACE TABLE pushlog.kept_hygiene_flags ENGINE = MergeTree ORDER BY time_ms
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT time_ms, hour, source, CAST(topic, 'LowCardinality(Nullable(String))') AS topic, CAST(env, 'LowCardinality(Nullable(String))') AS env,
       headers, payload, ids, typed, alert_n, mutable_n, masked, background, bg_priority, never_error
FROM pushlog.kept_hygiene_responses;

CREATE OR REPLACE TABLE pushlog.kept_hygiene_hours ENGINE = MergeTree ORDER BY hour
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT hour, source, topic, env, count() AS n, sum(headers) AS headers, sum(payload) AS payload, sum(ids) AS ids,
       sum(typed) AS typed, sum(alert_n) AS alert_n, sum(mutable_n) AS mutable_n, sum(masked) AS masked,
       sum(background) AS background, sum(bg_priority) AS bg_priorities, sum(never_error) AS never_errors
FROM pushlog.kept_hygiene_flags GROUP BY hour, source, topic, env;

-- Retries of the range's errors, for the two retry rules: each 429/5xx's first retry (rule 6,
-- `bad` when it came too soon) and each never-retry error's retries (rule 7), with the error's
-- time, topic and env (what the range selects by) and what `again` needs (the retry is itself a
-- never-retry error: counted as an error of the range when it is in the range, not twice).
CREATE OR REPLACE TABLE pushlog.kept_hygiene_retries ENGINE = MergeTree ORDER BY (ord, et)
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
WITH (SELECT groupArray(path), groupArray(version) FROM pushlog.sources FINAL) AS file_order
SELECT ord, et, topic, env, bad, rt, r_never, r_env, src, file_order.2[indexOf(file_order.1, src)] AS stored, line, apns, token
FROM (
  SELECT toUInt8(6) AS ord, b.et AS et, e.topic AS topic, e.env AS env, toUInt8(coalesce(b.bad, 0) = 1) AS bad, toInt64(0) AS rt,
         toUInt8(0) AS r_never, CAST(NULL, 'Nullable(String)') AS r_env, toString(b.r_source) AS src, b.r_line AS line,
         b.r_apns AS apns, b.r_token AS token
  FROM pushlog.kept_rate_retries AS b
  INNER JOIN (SELECT time_ms, line_hash, topic, env FROM pushlog.kept_errors
              WHERE response = 1 AND token <> '' AND category IN ('rate', 'server')) AS e ON e.time_ms = b.et AND e.line_hash = b.ek
  UNION ALL
  SELECT toUInt8(7), l.et, e.topic, e.env, toUInt8(1), l.rt,
         toUInt8(coalesce(l.r_status <> 200 AND l.r_category IN ('token-gone', 'token-bad', 'request'), 0) = 1), l.r_env,
         toString(l.r_source), l.r_line, l.r_apns, l.token
  FROM pushlog.kept_retry_links AS l
  INNER JOIN (SELECT time_ms, line_hash, topic, env FROM pushlog.kept_errors
              WHERE response = 1 AND token <> '' AND category IN ('token-gone', 'token-bad', 'request')) AS e
    ON e.time_ms = l.et AND e.line_hash = l.ek);

-- Every violation, one row each: its rule (ord), its time (a retry's: its error's), the topic and
-- env the range selects it by, and the record shown as its example (`key`: the first violation of
-- rules 1-5, of the others the first stored, in the order pushlog stores records: the files in the
-- order they were ingested, the version of their final `sources` row, then lines; files without a
-- `sources` row, loaded from `pushlog export`, first, by path).
CREATE OR REPLACE TABLE pushlog.kept_hygiene_violations ENGINE = MergeTree ORDER BY (ord, t)
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
WITH (SELECT groupArray(path), groupArray(version) FROM pushlog.sources FINAL) AS file_order
SELECT ord, t, intDiv(t, 3600000) AS hour, src, topic, env,
       tuple(if(ord <= 5, t, toInt64(0)), file_order.2[indexOf(file_order.1, src)], src, line) AS key, apns, token, reason
FROM (
  SELECT arrayJoin(broken) AS ord, time_ms AS t, toString(source) AS src, line, topic, env, apns_id AS apns, token,
         toString(reason) AS reason
  FROM pushlog.kept_hygiene_responses WHERE notEmpty(broken)
  UNION ALL SELECT ord, et, src, line, topic, env, apns, token, '' FROM pushlog.kept_hygiene_retries WHERE bad = 1
  UNION ALL
  -- sent_after_gone, as gone.sends_after_gone (kept_gone: its flag depends on the token's history only).
  SELECT 8, time_ms, toString(source), line, topic, env, apns_id, token, '' FROM pushlog.kept_gone WHERE after_gone = 1);

CREATE OR REPLACE TABLE pushlog.kept_hygiene_violation_hours ENGINE = MergeTree ORDER BY (hour, ord)
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT ord, hour, src, topic, env, count() AS v, min(t) AS f, max(t) AS l, min(key) AS k, argMin(tuple(apns, token), key) AS ex
FROM pushlog.kept_hygiene_violations GROUP BY ord, hour, src, topic, env;

-- Registrations of the tokens some response sent to malformed (unmasked): malformed_token's detail.
CREATE OR REPLACE TABLE pushlog.kept_hygiene_malformed_registers ENGINE = MergeTree ORDER BY token
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT token, app_version FROM pushlog.kept_registers
WHERE token IN (SELECT token FROM pushlog.kept_hygiene_violations WHERE ord = 9);

-- The rules over a range (since, until, topic, env: as the reports' parameters), one row per rule
-- in rule order: what it checked, why it is not observable (missing, NULL when it is), its
-- violations with the first, the last and the example, and its violations per UTC day (`days`,
-- `per_day`). Whole UTC hours of the range are read from the kept hours, the partial hours at its
-- ends from the responses' flags and the violations themselves. Each CTE is read once (ClickHouse
-- evaluates a CTE at each reference): the rules are computed from one row of facts and the
-- violations per day and source.
--   SELECT * FROM pushlog.kept_hygiene_rules(since = '2026-11-02 00:00:00', until = '2299-12-31 23:59:59.999', topic = '', env = '')
CREATE OR REPLACE VIEW pushlog.kept_hygiene_rules AS
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
     -- [whole_lo, whole_hi): the whole UTC hours of the range (none when it holds none)
     intDiv(greatest(since, 0) + 3599999, 3600000) AS whole_lo, greatest(whole_lo, intDiv(greatest(until, 0), 3600000)) AS whole_hi,
resp AS (
  SELECT hour, toString(source) AS src, n, headers, payload, ids, typed, alert_n, mutable_n, masked, background, bg_priorities, never_errors
  FROM pushlog.kept_hygiene_hours
  WHERE hour >= whole_lo AND hour < whole_hi
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
  UNION ALL
  SELECT hour, toString(source), count(), sum(headers), sum(payload), sum(ids), sum(typed), sum(alert_n), sum(mutable_n),
         sum(masked), sum(background), sum(bg_priority), sum(never_error)
  FROM pushlog.kept_hygiene_flags
  WHERE time_ms >= since AND time_ms < until AND NOT (time_ms >= whole_lo * 3600000 AND time_ms < whole_hi * 3600000)
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
  GROUP BY hour, source
), sd AS (
  -- Per source and UTC day: what its responses log (APNs headers, payloads, retry ids) and the
  -- responses each rule applies to.
  SELECT src, intDiv(hour, 24) AS day, sum(n) AS n, max(headers > 0) AS day_headers, max(payload > 0) AS day_payload,
         max(ids > 0) AS day_ids, sum(typed) AS day_typed, sum(alert_n) AS day_alert_n, sum(mutable_n) AS day_mutable_n,
         sum(masked) AS day_masked, sum(background) AS day_background, sum(bg_priorities) AS day_bg_priorities,
         sum(never_errors) AS day_never_errors
  FROM resp GROUP BY src, day
), retries AS (
  SELECT ord, bad, r_never = 1 AND rt >= since AND rt < until AND ({env:String} = '' OR r_env = {env:String}) AS again
  FROM pushlog.kept_hygiene_retries
  WHERE et >= since AND et < until AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
), facts AS (
  -- What the range's logs record (a rule without its data is not observable), the responses each
  -- rule applies to (checked), and the source-days that log APNs headers; one row.
  SELECT a.*, c.*
  FROM (SELECT sum(n) AS responses, max(day_headers) AS headers, max(day_payload) AS payload, max(day_ids) AS ids,
               sum(day_typed) > 0 AS typed, sumIf(n, day_headers = 1) AS header_responses, sum(day_alert_n) AS alert_n,
               sum(day_mutable_n) AS mutable_n, sum(day_masked) AS masked, sum(day_background) AS background,
               sum(day_bg_priorities) AS bg_priorities, sum(day_never_errors) AS nr_errors,
               groupArrayIf((src, day), day_headers = 1) AS header_days
        FROM sd) AS a
  -- retried: 429/5xx answers that were retried; nr_retries: never-retry errors' retries that are not errors of the range themselves
  CROSS JOIN (SELECT countIf(ord = 6) AS retried, countIf(ord = 7 AND NOT again) AS nr_retries FROM retries) AS c
), violation_days AS (
  -- Violations per rule, UTC day and source (the example's): whole hours kept, the partial ones counted here.
  SELECT ord, intDiv(hour, 24) AS day, src, sum(v) AS day_v, min(f) AS day_f, max(l) AS day_l, min(k) AS day_k, argMin(ex, k) AS day_ex
  FROM (SELECT ord, hour, src, v, f, l, k, ex FROM pushlog.kept_hygiene_violation_hours
        WHERE hour >= whole_lo AND hour < whole_hi
          AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
        UNION ALL
        SELECT ord, hour, src, count(), min(t), max(t), min(key), argMin(tuple(apns, token), key) FROM pushlog.kept_hygiene_violations
        WHERE t >= since AND t < until AND NOT (t >= whole_lo * 3600000 AND t < whole_hi * 3600000)
          AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
        GROUP BY ord, hour, src)
  GROUP BY ord, day, src
), rules AS (
  -- Per rule: its violations per day (missing_push_type only where the source logs APNs headers that day).
  SELECT *, arrayJoin(range(1, 11)) AS ord,
         arrayFilter(x -> x.1 = ord AND (ord <> 4 OR has(header_days, (x.3, x.2))), found) AS kept,
         arraySort(arrayDistinct(arrayMap(x -> x.2, kept))) AS days
  FROM facts CROSS JOIN (SELECT groupArray((ord, day, src, day_v, day_f, day_l, day_k, day_ex)) AS found FROM violation_days) AS d
)
SELECT ord,
       ['background_with_alert', 'background_priority_10', 'alert_without_content', 'missing_push_type',
        'mutable_without_alert', 'retry_without_backoff', 'non_retryable_retried', 'sent_after_gone',
        'malformed_token', 'provider_token_refresh'][ord] AS rule,
       arrayMap(x -> toInt64(x), [background, background, alert_n, header_responses, mutable_n, retried, nr_errors + nr_retries,
                                  responses, toInt64(responses) - toInt64(masked), responses])[ord] AS checked,
       [if(background = 0 AND NOT typed AND NOT payload, 'no push_type or payload logged: background pushes cannot be told apart', NULL),
        multiIf(background = 0 AND NOT typed AND NOT payload, 'no push_type or payload logged: background pushes cannot be told apart',
                background > 0 AND bg_priorities = 0, 'no apns-priority logged for background pushes', NULL),
        if(NOT payload, 'no payloads logged', NULL),
        if(NOT headers, 'no APNs headers logged (push_type, priority, collapse_id, expiration)', NULL),
        if(NOT payload, 'no payloads logged', NULL),
        if(NOT ids, 'no apns-id, attempt or collapse-id logged: retries cannot be told apart', NULL),
        if(NOT ids, 'no apns-id, attempt or collapse-id logged: retries cannot be told apart', NULL),
        NULL,
        if(responses > 0 AND responses = masked, 'every token in the logs is masked', NULL),
        NULL][ord] AS missing,
       arraySum(x -> x.4, kept) AS violations,
       if(empty(kept), NULL, arrayMin(x -> x.5, kept)) AS first_t, if(empty(kept), NULL, arrayMax(x -> x.6, kept)) AS last_t,
       -- the example: the least key (x.7) of the rule's days
       if(empty(kept), NULL, arraySort(x -> x.7, kept)[1].8.1) AS example, if(empty(kept), NULL, arraySort(x -> x.7, kept)[1].8.2) AS example_token,
       days, arrayMap(d -> arraySum(x -> if(x.2 = d, x.4, 0), kept), days) AS per_day
FROM rules;

-- Last: the facts are complete and match the records as kept_pending saw them. facts_sql names
-- the version of this file that built them: pushlog writes its own one's fingerprint here, so
-- facts built by another version (or by hand, '') are rebuilt by pushlog once before it reads them.
-- built: 'whole' (this file, every table from the whole history), or 'touched' (pushlog computed
-- again only what the loads since the last rebuild touched: touched.sql).
CREATE OR REPLACE TABLE pushlog.kept_state ENGINE = MergeTree ORDER BY tuple()
  SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1 AS
SELECT *, '' AS facts_sql, 'whole' AS built FROM pushlog.kept_pending;
