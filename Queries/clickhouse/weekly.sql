-- title: Weekly push health
-- description: One page for Monday: the KPIs of the week against the week before, the top error
-- description: reasons, the incidents found in the data, the worst app versions and daily trends.
-- description: ClickHouse version of the page's own sections (same sections, columns and
-- description: labels); the KPIs, the hygiene rules and the turn-off trend come from the reports
-- description: the page's header names, run on each week, as on SQLite.
-- param: since  start of the week, {since:DateTime64(3)}
-- param: until  end of the week, exclusive, {until:DateTime64(3)}
-- param: budget=3  background pushes per token-hour (over-budget sends by day), {budget:UInt32}
-- param: topic  only responses for this topic, {topic:String}; '' = all
-- param: env  only responses sent to production or sandbox, {env:String}; '' = all

-- section: basics
-- The week's figures the page's own KPIs read (accepted share, auth errors, rejects). rejects: the
-- rejected lines of the files (`sources`, as `pushlog --clickhouse URL ingest` fills it) whose
-- records span the week; rows loaded from `pushlog export` have none. Rejected lines have no topic
-- or env: under --topic/--env rejects is null.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until
SELECT count() AS responses, countIf(status = 200) AS accepted,
       if(count() = 0, NULL, pushlog_round(countIf(status = 200) / count(), 6)) AS accepted_share,
       countIf(category = 'auth') AS auth_errors,
       if({topic:String} = '' AND {env:String} = '',
          (SELECT coalesce(sum(rejects), 0) FROM pushlog.sources FINAL WHERE first_time_ms < until AND last_time_ms >= since), NULL)
         AS rejects
FROM pushlog.kept_responses
WHERE time_ms >= since AND time_ms < until
  AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String});

-- section: top_reasons
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
r AS (
  SELECT * FROM pushlog.kept_responses WHERE time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
)
SELECT coalesce(reason, '(none)') AS reason, status, category, count() AS responses,
       uniqExactIf(token, token <> '') AS tokens,
       pushlog_round(count() / (SELECT count() FROM r), 6) AS response_share
FROM r WHERE status <> 200
GROUP BY r.reason, status, r.category ORDER BY responses DESC LIMIT 10;

-- section: incidents
-- An incident: 5-minute windows where auth, server, rate or transport errors (no APNs response:
-- TLS, DNS, timeouts) are at least 3 and at least 20% of the attempts (responses and transport
-- failures), merged when less than 15 minutes apart.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
b AS (
  SELECT intDiv(time_ms, 300000) AS k, count() AS responses, countIf(category IN ('auth', 'server', 'rate', 'transport')) AS errors
  FROM pushlog.kept_sends
  WHERE kind IN ('send', 'response') AND (status IS NOT NULL OR category = 'transport') AND time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
  GROUP BY k
), h AS (
  SELECT k, responses, errors,
         if(k - lagInFrame(toNullable(k)) OVER (ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) <= 3, 0, 1) AS new_window
  FROM b WHERE errors >= 3 AND errors >= 0.2 * responses
), hot AS (
  SELECT k, responses, errors, sum(new_window) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING) AS grp FROM h
), w AS (
  SELECT min(k) * 300000 AS ws, (max(k) + 1) * 300000 AS we, sum(errors) AS errors, sum(responses) AS responses
  FROM hot GROUP BY grp
), top AS (
  -- The most frequent category and reason (or error text) of each window, over every send row.
  SELECT ws, argMax(label, n) AS reason FROM (
    SELECT w.ws AS ws, concat(s.category, ': ', coalesce(toString(s.reason), s.error)) AS label, count() AS n
    FROM w CROSS JOIN pushlog.kept_sends AS s
    WHERE s.time_ms >= w.ws AND s.time_ms < w.we AND s.category IN ('auth', 'server', 'rate', 'transport')
      AND ({topic:String} = '' OR s.topic = {topic:String}) AND ({env:String} = '' OR s.env = {env:String})
    GROUP BY ws, s.category, coalesce(toString(s.reason), s.error))
  GROUP BY ws
)
SELECT pushlog_rfc3339(w.ws) AS window_start, pushlog_rfc3339(w.we) AS window_end, intDiv(w.we - w.ws, 60000) AS minutes,
       top.reason AS reason, w.errors AS errors, w.responses AS responses, pushlog_round(w.errors / w.responses, 6) AS error_share
FROM w LEFT JOIN top ON top.ws = w.ws ORDER BY w.ws
SETTINGS join_use_nulls = 1;

-- section: worst_app_versions
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until
SELECT coalesce(s.reg_app_version, '(unknown)') AS app_version, count() AS responses,
       countIf(s.status <> 200) AS errors, pushlog_round(countIf(s.status <> 200) / count(), 6) AS error_rate,
       sum(s.reason = 'BadDeviceToken') AS bad_device_token, sum(coalesce(s.malformed, 0)) AS malformed_token_sends  -- NULL when no response has a reason, as SQLite's sum
FROM pushlog.kept_responses AS s
WHERE s.time_ms >= since AND s.time_ms < until
  AND ({topic:String} = '' OR s.topic = {topic:String}) AND ({env:String} = '' OR s.env = {env:String})
GROUP BY app_version ORDER BY error_rate DESC, responses DESC LIMIT 5
SETTINGS join_use_nulls = 1;

-- section: trend_daily
-- Two weeks of days (the week before and this one), for the charts; days without responses are
-- rows of zeros, so an outage shows as a gap, not a shorter line.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
d AS (
  SELECT intDiv(s.time_ms, 86400000) AS day, count() AS responses, countIf(s.status = 410) AS gone,
         countIf(s.reg_env IS NOT NULL AND s.env IS NOT NULL AND s.env <> s.reg_env) AS mismatched_sends
  FROM pushlog.kept_responses AS s
  WHERE s.time_ms >= since - 604800000 AND s.time_ms < until
    AND ({topic:String} = '' OR s.topic = {topic:String}) AND ({env:String} = '' OR s.env = {env:String})
  GROUP BY day
), bg AS (
  SELECT intDiv(hour, 24) AS day, sum(greatest(0, toInt64(load) - {budget:UInt32})) AS over_budget_sends
  FROM pushlog.kept_background_loads(since = fromUnixTimestamp64Milli(since - 604800000, 'UTC'),
                                     until = fromUnixTimestamp64Milli(until, 'UTC'), topic = {topic:String}, env = {env:String})
  GROUP BY day
), days AS (SELECT arrayJoin(range(intDiv(since, 86400000) - 7, intDiv(since, 86400000) + 7)) AS day)
SELECT pushlog_bucket(days.day * 86400000, 'day') AS day, coalesce(d.responses, 0) AS responses,
       if(coalesce(d.responses, 0) = 0, NULL, pushlog_round(d.gone / d.responses, 6)) AS gone_rate,
       coalesce(d.mismatched_sends, 0) AS mismatched_sends, coalesce(bg.over_budget_sends, 0) AS over_budget_sends
FROM days LEFT JOIN d ON d.day = days.day LEFT JOIN bg ON bg.day = days.day
ORDER BY days.day
SETTINGS join_use_nulls = 1;
