-- title: Tokens to remove or fix
-- description: `pushlog --clickhouse URL tokens`: one statement per kind of token to act on, with
-- description: the columns and order of pushlog's SQLite statements (TokenCleanup); pushlog merges
-- description: the kinds asked for into one row per token. Reads the kept facts (facts.sql).
-- param: since  evidence at or after this time (ms), {since:Int64}; -9223372036854775808 = all

-- section: gone
-- The token's latest token-gone response (status 410, or category token-gone under another
-- status) and no registration of the token after that response's APNs timestamp (its own time
-- when APNs gave none). first_410: the first token-gone response whose timestamp is not followed
-- by a registration either; sends_since_410 counts responses after it.
WITH g AS (
  SELECT token, time_ms AS t, coalesce(apns_timestamp, time_ms) AS ts, reason, topic FROM pushlog.kept_responses
  WHERE status <> 200 AND token <> '' AND (status = 410 OR category = 'token-gone')
), latest AS (
  SELECT token, max(t) AS last_t, argMax(tuple(ts, reason, topic), t) AS x FROM g GROUP BY token
), gone AS (
  SELECT l.token AS token, l.last_t AS t, l.x.1 AS ts, l.x.2 AS reason, l.x.3 AS topic, f.last_reg AS last_reg,
         f.reg_device AS device, f.reg_user AS user
  FROM latest AS l LEFT JOIN pushlog.kept_token_facts AS f ON f.token = l.token
  WHERE (f.last_reg IS NULL OR f.last_reg <= l.x.1) AND l.last_t >= {since:Int64}
), spell AS (
  SELECT gone.token AS token, min(g.t) AS first_t FROM gone INNER JOIN g ON g.token = gone.token
  WHERE gone.last_reg IS NULL OR g.ts >= gone.last_reg GROUP BY gone.token
), after AS (
  SELECT r.token AS token, maxIf(r.time_ms, r.status = 200) AS ok_t, countIf(r.status = 200) AS oks,
         countIf(r.time_ms > s.first_t) AS since_first
  FROM pushlog.kept_responses AS r INNER JOIN spell AS s ON s.token = r.token
  WHERE r.token IN (SELECT token FROM gone) GROUP BY r.token
)
SELECT gone.token AS token, gone.device AS device, gone.user AS user, gone.topic AS topic,
       pushlog_rfc3339(s.first_t) AS first_410, pushlog_rfc3339(gone.t) AS latest_410, pushlog_rfc3339(gone.ts) AS apns_timestamp,
       gone.reason AS reason, if(a.oks = 0, NULL, pushlog_rfc3339(a.ok_t)) AS last_accepted, a.since_first AS sends_since_410,
       gone.t AS evidence_t
FROM gone INNER JOIN spell AS s ON s.token = gone.token INNER JOIN after AS a ON a.token = gone.token
ORDER BY gone.t, gone.token
SETTINGS join_use_nulls = 1;

-- section: superseded
-- The device of the token's latest registration registered a different token later: the
-- device's run of the token holding that registration (its latest run: a later one would hold a
-- later registration) has a superseded_at, and the run starting then is the replacement's.
-- topic: of the token's latest registration.
WITH f AS (
  SELECT token, reg_device, reg_user FROM pushlog.kept_token_facts WHERE last_reg IS NOT NULL AND reg_device IS NOT NULL
), run AS (
  SELECT r.token AS token, r.device AS device, argMax(tuple(r.superseded_at), r.start).1 AS superseded_at
  FROM pushlog.kept_token_runs AS r INNER JOIN f ON f.token = r.token AND f.reg_device = r.device
  GROUP BY r.token, r.device
), hit AS (
  SELECT run.token AS token, run.device AS device, run.superseded_at AS superseded_at, n.token AS replaced_by
  FROM run INNER JOIN pushlog.kept_token_runs AS n ON n.device = run.device AND n.start = run.superseded_at
  WHERE run.superseded_at IS NOT NULL AND n.token <> run.token AND run.superseded_at >= {since:Int64}
), topics AS (
  SELECT token, argMax(tuple(topic), time_ms).1 AS topic FROM pushlog.records FINAL
  WHERE kind = 'register' AND token IN (SELECT token FROM hit) GROUP BY token
), sends AS (
  SELECT r.token AS token, countIf(r.time_ms > h.superseded_at) AS n
  FROM pushlog.kept_responses AS r INNER JOIN (SELECT DISTINCT token, superseded_at FROM hit) AS h ON h.token = r.token
  WHERE r.token IN (SELECT token FROM hit) GROUP BY r.token
)
SELECT hit.token AS token, hit.device AS device, f.reg_user AS user, t.topic AS topic, hit.replaced_by AS replaced_by,
       pushlog_rfc3339(hit.superseded_at) AS replaced_at, coalesce(s.n, 0) AS sends_since_replaced, hit.superseded_at AS evidence_t
FROM hit INNER JOIN f ON f.token = hit.token LEFT JOIN topics AS t ON t.token = hit.token LEFT JOIN sends AS s ON s.token = hit.token
ORDER BY hit.superseded_at, hit.token, hit.replaced_by
SETTINGS join_use_nulls = 1;

-- section: bad
-- At least two BadDeviceToken / DeviceTokenNotForTopic responses (any case) after the token's
-- last accepted (200) response, or ever when it had none; topic and reason of the latest.
WITH e AS (
  SELECT token, time_ms AS t, reason, topic FROM pushlog.kept_responses
  WHERE status <> 200 AND token <> '' AND lower(reason) IN ('baddevicetoken', 'devicetokennotfortopic')
), ok AS (
  SELECT token, maxIf(time_ms, status = 200) AS t, countIf(status = 200) AS n FROM pushlog.kept_responses
  WHERE token IN (SELECT token FROM e) GROUP BY token
), since_ok AS (
  SELECT e.token AS token, count() AS bad_n, min(e.t) AS first_t, max(e.t) AS last_t, argMax(tuple(e.reason, e.topic), e.t) AS x,
         any(ok.n) AS oks, any(ok.t) AS ok_t
  FROM e INNER JOIN ok ON ok.token = e.token
  WHERE ok.n = 0 OR e.t > ok.t
  GROUP BY e.token HAVING count() >= 2
)
SELECT b.token AS token, f.reg_device AS device, f.reg_user AS user, b.x.2 AS topic,
       pushlog_rfc3339(b.first_t) AS first_bad, pushlog_rfc3339(b.last_t) AS latest_bad, b.bad_n AS bad_responses, b.x.1 AS bad_reason,
       if(b.oks = 0, NULL, pushlog_rfc3339(b.ok_t)) AS last_accepted, b.last_t AS evidence_t
FROM since_ok AS b LEFT JOIN pushlog.kept_token_facts AS f ON f.token = b.token
WHERE b.last_t >= {since:Int64}
ORDER BY b.last_t, b.token
SETTINGS join_use_nulls = 1;

-- section: mismatched
-- Responses sent to the env other than the token's registered env (the env of its latest
-- registration), as in the env-mismatch report; topic of the latest. bad_device_token is NULL
-- when no response of the group has a reason (as SQLite's sum over NULLs).
SELECT r.token AS token, any(f.reg_device) AS device, any(f.reg_user) AS user, argMax(tuple(r.topic), r.time_ms).1 AS topic,
       any(f.reg_env) AS registered_env, r.env AS sent_env, count() AS mismatched_sends,
       pushlog_rfc3339(max(r.time_ms)) AS latest_mismatched,
       if(countIf(r.reason IS NOT NULL) = 0, NULL, countIf(r.reason = 'BadDeviceToken')) AS bad_device_token,
       max(r.time_ms) AS evidence_t
FROM pushlog.kept_responses AS r INNER JOIN pushlog.kept_token_facts AS f ON f.token = r.token
WHERE r.token <> '' AND f.reg_env IS NOT NULL AND r.env IS NOT NULL AND r.env <> f.reg_env
GROUP BY r.token, r.env
HAVING max(r.time_ms) >= {since:Int64}
ORDER BY max(r.time_ms), r.token, r.env
SETTINGS join_use_nulls = 1;
