-- title: Weekly push health
-- description: One page for Monday: the KPIs of the week against the week before (the same
-- description: definitions as the gone, churn, env-mismatch, silent and opt-out reports), the top
-- description: error reasons, the incidents found in the data, the worst app versions and daily trends.
-- description: ClickHouse version of pushlog's weekly report (same sections, columns and labels).
-- param: week  ISO week, e.g. 2026-W47, {week:String}
-- param: budget=3  background pushes per token-hour (silent KPIs), {budget:UInt32}
-- param: topic  only responses for this topic, in every KPI and section that can be split by topic, {topic:String}; '' = all
-- param: env  only responses sent to production or sandbox, likewise, {env:String}; '' = all
-- param: unit=device  device or user (the turn_off_rate KPI), {unit:String}

-- section: kpis
-- metric, this_week, last_week, change (this - last), source (the report and column it comes from).
-- Under --topic/--env, turn_off_rate and rotation_rate (opt-in state and registrations have no
-- topic) are empty. rejects: the rejected lines of the files (`sources`, as `pushlog --clickhouse
-- URL ingest` fills it) whose records span the week; rows loaded from `pushlog export` have none.
WITH (toStartOfWeek(makeDate(toInt32(substring({week:String}, 1, 4)), 1, 4), 1) + 7 * (toInt32(substring({week:String}, 7)) - 1)) AS monday,
     toInt64(toUInt32(toDateTime(monday, 'UTC'))) * 1000 AS ws0, {topic:String} = '' AND {env:String} = '' AS whole,
weeks AS (SELECT arrayJoin([0, 1]) AS w, ws0 - w * 604800000 AS ws),
r AS (
  SELECT s.*, if(s.time_ms >= ws0, 0, 1) AS w FROM pushlog.kept_responses AS s
  WHERE s.time_ms >= ws0 - 604800000 AND s.time_ms < ws0 + 604800000
    AND ({topic:String} = '' OR s.topic = {topic:String}) AND ({env:String} = '' OR s.env = {env:String})
), basics AS (
  SELECT r.w AS w, count() AS responses, countIf(r.status = 200) AS accepted, countIf(r.status = 410) AS gone,
         countIf(r.category = 'auth') AS auth_errors, countIf(r.status <> 200 AND r.reason = 'TooManyRequests') AS too_many_requests,
         countIf(r.reason = 'BadDeviceToken') AS bad_device_token,
         countIf(r.reg_env IS NOT NULL AND r.env IS NOT NULL AND r.env <> r.reg_env) AS mismatched_sends,
         countIf(r.malformed = 1) AS malformed_token_sends
  FROM r GROUP BY r.w
), gone AS (
  -- gone's tokens_gone and sends_after_gone, from the 410s and the responses after one (kept_gone).
  SELECT if(time_ms >= ws0, 0, 1) AS w, uniqExactIf(token, first_gone = 1) AS tokens_gone, countIf(after_gone = 1) AS sends_after_gone
  FROM pushlog.kept_gone
  WHERE time_ms >= ws0 - 604800000 AND time_ms < ws0 + 604800000
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
  GROUP BY w
), silent AS (
  -- The two weeks' token-hours (kept_background_loads); a week starts at a whole hour.
  SELECT if(hour * 3600000 >= ws0, 0, 1) AS w, sum(load) AS accepted,
         sum(greatest(0, toInt64(load) - {budget:UInt32})) AS over_budget_sends
  FROM pushlog.kept_background_loads(since = fromUnixTimestamp64Milli(ws0 - 604800000, 'UTC'),
                                     until = fromUnixTimestamp64Milli(ws0 + 604800000, 'UTC'), topic = {topic:String}, env = {env:String})
  GROUP BY w
), active AS (
  SELECT if(time_ms >= ws0, 0, 1) AS w, uniqExact(device) AS active_devices FROM pushlog.kept_registers
  WHERE device IS NOT NULL AND time_ms >= ws0 - 604800000 AND time_ms < ws0 + 604800000 GROUP BY w
), rotated AS (
  SELECT if(superseded_at >= ws0, 0, 1) AS w, uniqExact(device) AS devices_rotated FROM pushlog.kept_token_runs
  WHERE superseded_at >= ws0 - 604800000 AND superseded_at < ws0 + 604800000 GROUP BY w
), stale AS (
  SELECT if(time_ms >= ws0, 0, 1) AS w, count() AS superseded_sends FROM pushlog.kept_superseded
  WHERE time_ms >= ws0 - 604800000 AND time_ms < ws0 + 604800000
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
  GROUP BY w
), units AS (
  SELECT opt_in, off FROM pushlog.kept_unit_facts WHERE unit_kind = pushlog_unit_kind({unit:String})
), turnoff AS (
  SELECT weeks.w AS w, countIf(u.opt_in < weeks.ws AND (u.off IS NULL OR u.off >= weeks.ws)) AS on_at_start,
         countIf(u.opt_in < weeks.ws AND (u.off IS NULL OR u.off >= weeks.ws) AND u.off < weeks.ws + 604800000) AS turned_off
  FROM weeks CROSS JOIN units AS u GROUP BY weeks.w
), rej AS (
  SELECT weeks.w AS w, sum(s.rejects) AS rejects
  FROM weeks CROSS JOIN (SELECT rejects, first_time_ms, last_time_ms FROM pushlog.sources FINAL) AS s
  WHERE s.first_time_ms < weeks.ws + 604800000 AND s.last_time_ms >= weeks.ws GROUP BY weeks.w
), m AS (
  SELECT weeks.w AS w,
    [toFloat64(coalesce(b.responses, 0)),
     if(coalesce(b.responses, 0) = 0, NULL, pushlog_round(b.accepted / b.responses, 6)),
     if(coalesce(b.responses, 0) = 0, NULL, pushlog_round(b.gone / b.responses, 6)),
     coalesce(g.tokens_gone, 0), coalesce(g.sends_after_gone, 0),
     coalesce(b.mismatched_sends, 0), coalesce(b.bad_device_token, 0), coalesce(b.malformed_token_sends, 0),
     if(coalesce(sl.accepted, 0) = 0, NULL, pushlog_round(sl.over_budget_sends / sl.accepted, 6)),
     coalesce(b.too_many_requests, 0), coalesce(b.auth_errors, 0),
     if(whole AND coalesce(t.on_at_start, 0) > 0, pushlog_round(t.turned_off / t.on_at_start, 6), NULL),
     if(whole AND coalesce(a.active_devices, 0) > 0, pushlog_round(coalesce(o.devices_rotated, 0) / a.active_devices, 6), NULL),
     coalesce(z.superseded_sends, 0),
     if(whole, coalesce(rj.rejects, 0), NULL)] AS v
  FROM weeks LEFT JOIN basics AS b ON b.w = weeks.w LEFT JOIN gone AS g ON g.w = weeks.w
  LEFT JOIN silent AS sl ON sl.w = weeks.w LEFT JOIN active AS a ON a.w = weeks.w LEFT JOIN rotated AS o ON o.w = weeks.w
  LEFT JOIN stale AS z ON z.w = weeks.w LEFT JOIN turnoff AS t ON t.w = weeks.w LEFT JOIN rej AS rj ON rj.w = weeks.w
), names AS (
  SELECT ['responses', 'accepted_share', 'gone_rate', 'tokens_gone', 'sends_after_gone', 'mismatched_sends',
          'bad_device_token', 'malformed_token_sends', 'over_budget_share', 'too_many_requests', 'auth_errors',
          'turn_off_rate', 'rotation_rate', 'superseded_sends', 'rejects'] AS metric,
         ['gone.responses', 'weekly.accepted_share', 'gone.gone_rate', 'gone.tokens_gone', 'gone.sends_after_gone',
          'env-mismatch.mismatched_sends', 'env-mismatch.bad_device_token', 'env-mismatch.malformed_token_sends',
          'silent.over_budget_share', 'silent.too_many_requests', 'weekly.auth_errors', 'opt-out.turn_off_rate',
          'churn.rotation_rate', 'churn.superseded_sends', 'weekly.rejects'] AS source
)
SELECT metric_names[i] AS metric, this_v[i] AS this_week, last_v[i] AS last_week,
       if(this_v[i] IS NULL OR last_v[i] IS NULL, NULL,
          if(this_v[i] - last_v[i] < 0, -floor(-(this_v[i] - last_v[i]) * 1e6 + 0.5), floor((this_v[i] - last_v[i]) * 1e6 + 0.5)) / 1e6) AS change,
       if(NOT whole AND metric_names[i] IN ('turn_off_rate', 'rotation_rate', 'rejects'),
          concat(metric_sources[i], ' (not split by topic/env)'), metric_sources[i]) AS source
FROM (
  SELECT arrayJoin(arrayEnumerate(names.metric)) AS i, names.metric AS metric_names, names.source AS metric_sources, vals.this_v AS this_v, vals.last_v AS last_v
  FROM names CROSS JOIN (SELECT anyIf(v, w = 0) AS this_v, anyIf(v, w = 1) AS last_v FROM m) AS vals  -- m once: a CTE is evaluated at each reference
)
ORDER BY i
SETTINGS join_use_nulls = 1;

-- section: top_reasons
WITH (toStartOfWeek(makeDate(toInt32(substring({week:String}, 1, 4)), 1, 4), 1) + 7 * (toInt32(substring({week:String}, 7)) - 1)) AS monday,
     toInt64(toUInt32(toDateTime(monday, 'UTC'))) * 1000 AS since, since + 604800000 AS until,
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
WITH (toStartOfWeek(makeDate(toInt32(substring({week:String}, 1, 4)), 1, 4), 1) + 7 * (toInt32(substring({week:String}, 7)) - 1)) AS monday,
     toInt64(toUInt32(toDateTime(monday, 'UTC'))) * 1000 AS since, since + 604800000 AS until,
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
WITH (toStartOfWeek(makeDate(toInt32(substring({week:String}, 1, 4)), 1, 4), 1) + 7 * (toInt32(substring({week:String}, 7)) - 1)) AS monday,
     toInt64(toUInt32(toDateTime(monday, 'UTC'))) * 1000 AS since, since + 604800000 AS until
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
WITH (toStartOfWeek(makeDate(toInt32(substring({week:String}, 1, 4)), 1, 4), 1) + 7 * (toInt32(substring({week:String}, 7)) - 1)) AS monday,
     toInt64(toUInt32(toDateTime(monday, 'UTC'))) * 1000 AS since, since + 604800000 AS until,
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

-- section: provider_hygiene
-- The hygiene report's rules broken this week or last: violations per week, 'not observable'
-- when that week's logs lack the rule's data (hygiene's rules over each week, read from
-- pushlog.kept_hygiene_rules as the hygiene report reads them; its counts only).
WITH (toStartOfWeek(makeDate(toInt32(substring({week:String}, 1, 4)), 1, 4), 1) + 7 * (toInt32(substring({week:String}, 7)) - 1)) AS monday,
     toDateTime64(monday, 3, 'UTC') AS since
SELECT t.rule AS rule,
       if(t.missing IS NOT NULL, 'not observable'::Variant(Int64, String), toInt64(t.violations)::Variant(Int64, String)) AS this_week,
       if(l.missing IS NOT NULL, 'not observable'::Variant(Int64, String), toInt64(l.violations)::Variant(Int64, String)) AS last_week,
       if(t.missing IS NOT NULL OR l.missing IS NOT NULL, NULL, toInt64(t.violations) - toInt64(l.violations)) AS change
FROM pushlog.kept_hygiene_rules(since = since, until = since + INTERVAL 7 DAY, topic = {topic:String}, env = {env:String}) AS t
INNER JOIN pushlog.kept_hygiene_rules(since = since - INTERVAL 7 DAY, until = since, topic = {topic:String}, env = {env:String}) AS l
  ON l.ord = t.ord
WHERE t.violations > 0 OR l.violations > 0
ORDER BY t.ord
SETTINGS allow_experimental_variant_type = 1;

-- section: trend_turn_off_rate
-- The turn-off rate of the eight weeks ending with this one, each against the units opted in and
-- on at the week's start (opt-out's turn_off_rate). Empty under --topic/--env (opt-in state has no topic).
WITH (toStartOfWeek(makeDate(toInt32(substring({week:String}, 1, 4)), 1, 4), 1) + 7 * (toInt32(substring({week:String}, 7)) - 1)) AS monday,
     toInt64(toUInt32(toDateTime(monday, 'UTC'))) * 1000 AS since,
units AS (
  SELECT opt_in, off FROM pushlog.kept_unit_facts WHERE unit_kind = pushlog_unit_kind({unit:String})
), weeks AS (SELECT arrayJoin(range(0, 8)) AS k, since - (7 - k) * 604800000 AS ws),
rates AS (
  SELECT weeks.k AS k, countIf(u.opt_in < weeks.ws AND (u.off IS NULL OR u.off >= weeks.ws)) AS on_at_start,
         countIf(u.opt_in < weeks.ws AND (u.off IS NULL OR u.off >= weeks.ws) AND u.off < weeks.ws + 604800000) AS turned_off
  FROM weeks CROSS JOIN units AS u GROUP BY weeks.k
)
SELECT pushlog_iso_week(weeks.ws) AS week,
       if(coalesce(rates.on_at_start, 0) = 0, NULL, pushlog_round(rates.turned_off / rates.on_at_start, 6)) AS turn_off_rate
FROM weeks LEFT JOIN rates ON rates.k = weeks.k
WHERE {topic:String} = '' AND {env:String} = ''
ORDER BY weeks.k
SETTINGS join_use_nulls = 1;
