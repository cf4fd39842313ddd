-- title: Weekly push health
-- description: The sections of weekly.sql for ClickHouse: the top error reasons, the incidents
-- description: found in the data, the worst app versions, the daily trends and the turn-off trend.
-- description: pushlog's kpis section (each KPI taken from a mission report for this week and the
-- description: week before) is not written here: run those reports' sections with the two weeks'
-- description: bounds (README, "Past one machine").
-- param: week  ISO week, e.g. 2026-W47, {week:String}
-- param: budget=3  background pushes per token-hour (silent KPIs), {budget:UInt32}
-- param: topic  only responses for this topic, {topic:String}; '' = all
-- param: env  only responses sent to production or sandbox, {env:String}; '' = all
-- param: unit=device  device or user (the turn-off trend), {unit:String}

-- section: top_reasons
WITH (toStartOfWeek(makeDate(toInt32(substring({week:String}, 1, 4)), 1, 4), 1) + 7 * (toInt32(substring({week:String}, 7)) - 1)) AS monday,
     toInt64(toUInt32(toDateTime(monday, 'UTC'))) * 1000 AS since, since + 604800000 AS until,
r AS (
  SELECT * FROM pushlog.responses WHERE time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
)
SELECT coalesce(reason, '(none)') AS reason, status, category, count() AS responses,
       uniqExactIf(token, token <> '') AS tokens,
       pushlog_round(count() / (SELECT count() FROM r), 6) AS response_share
FROM r WHERE status <> 200
GROUP BY r.reason, status, r.category ORDER BY responses DESC LIMIT 10;

-- section: incidents
-- An incident: 5-minute windows where auth, server or rate errors are at least 3 and at least
-- 20% of the responses, merged when less than 15 minutes apart.
WITH (toStartOfWeek(makeDate(toInt32(substring({week:String}, 1, 4)), 1, 4), 1) + 7 * (toInt32(substring({week:String}, 7)) - 1)) AS monday,
     toInt64(toUInt32(toDateTime(monday, 'UTC'))) * 1000 AS since, since + 604800000 AS until,
r AS (
  SELECT * FROM pushlog.responses WHERE time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
), b AS (
  SELECT intDiv(time_ms, 300000) AS k, count() AS responses, countIf(category IN ('auth', 'server', 'rate')) AS errors
  FROM r GROUP BY k
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
  SELECT ws, argMax(label, n) AS reason FROM (
    SELECT w.ws AS ws, concat(r.category, ': ', r.reason) AS label, count() AS n
    FROM w CROSS JOIN r WHERE r.time_ms >= w.ws AND r.time_ms < w.we AND r.category IN ('auth', 'server', 'rate')
    GROUP BY ws, r.category, r.reason)
  GROUP BY ws
)
SELECT pushlog_rfc3339(w.ws) AS window_start, pushlog_rfc3339(w.we) AS window_end, intDiv(w.we - w.ws, 60000) AS minutes,
       top.reason AS reason, w.errors AS errors, w.responses AS responses, pushlog_round(w.errors / w.responses, 6) AS error_share
FROM w LEFT JOIN top ON top.ws = w.ws ORDER BY w.ws
SETTINGS join_use_nulls = 1;

-- section: worst_app_versions
WITH (toStartOfWeek(makeDate(toInt32(substring({week:String}, 1, 4)), 1, 4), 1) + 7 * (toInt32(substring({week:String}, 7)) - 1)) AS monday,
     toInt64(toUInt32(toDateTime(monday, 'UTC'))) * 1000 AS since, since + 604800000 AS until
SELECT coalesce(f.reg_app_version, '(unknown)') AS app_version, count() AS responses,
       countIf(s.status <> 200) AS errors, pushlog_round(countIf(s.status <> 200) / count(), 6) AS error_rate,
       sum(s.reason = 'BadDeviceToken') AS bad_device_token, sum(coalesce(f.malformed, 0)) AS malformed_token_sends  -- NULL when no response has a reason, as SQLite's sum
FROM pushlog.responses AS s LEFT JOIN pushlog.token_facts AS f ON f.token = s.token
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
         countIf(f.reg_env IS NOT NULL AND s.env IS NOT NULL AND s.env <> f.reg_env) AS mismatched_sends
  FROM pushlog.responses AS s LEFT JOIN pushlog.token_facts AS f ON f.token = s.token
  WHERE s.time_ms >= since - 604800000 AND s.time_ms < until
    AND ({topic:String} = '' OR s.topic = {topic:String}) AND ({env:String} = '' OR s.env = {env:String})
  GROUP BY day
), bg AS (
  SELECT intDiv(hour, 24) AS day, sum(greatest(0, toInt64(load) - {budget:UInt32})) AS over_budget_sends FROM (
    SELECT hour, token, count() AS load FROM pushlog.bg_pushes
    WHERE status = 200 AND t >= since - 604800000 AND t < until
      AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
    GROUP BY hour, token)
  GROUP BY day
), days AS (SELECT arrayJoin(range(intDiv(since, 86400000) - 7, intDiv(since, 86400000) + 7)) AS day)
SELECT pushlog_bucket(days.day * 86400000, 'day') AS day, coalesce(d.responses, 0) AS responses,
       if(coalesce(d.responses, 0) = 0, NULL, pushlog_round(d.gone / d.responses, 6)) AS gone_rate,
       coalesce(d.mismatched_sends, 0) AS mismatched_sends, coalesce(bg.over_budget_sends, 0) AS over_budget_sends
FROM days LEFT JOIN d ON d.day = days.day LEFT JOIN bg ON bg.day = days.day
ORDER BY days.day
SETTINGS join_use_nulls = 1;

-- section: trend_turn_off_rate
-- The turn-off rate of the eight weeks ending with this one, each against the units opted in and
-- on at the week's start (opt-out's turn_off_rate). Empty under --topic/--env (opt-in state has no topic).
WITH (toStartOfWeek(makeDate(toInt32(substring({week:String}, 1, 4)), 1, 4), 1) + 7 * (toInt32(substring({week:String}, 7)) - 1)) AS monday,
     toInt64(toUInt32(toDateTime(monday, 'UTC'))) * 1000 AS since,
units AS (
  SELECT if({unit:String} = 'user', coalesce(user, dkey), dkey) AS unit, min(device_facts.opt_in) AS opt_in, min(device_facts.off) AS off
  FROM pushlog.device_facts GROUP BY unit
), weeks AS (SELECT arrayJoin(range(0, 8)) AS k, since - (7 - k) * 604800000 AS ws)
SELECT pushlog_iso_week(weeks.ws) AS week,
       if(countIf(u.opt_in < weeks.ws AND (u.off IS NULL OR u.off >= weeks.ws)) = 0, NULL,
          pushlog_round(countIf(u.opt_in < weeks.ws AND (u.off IS NULL OR u.off >= weeks.ws) AND u.off < weeks.ws + 604800000)
                        / countIf(u.opt_in < weeks.ws AND (u.off IS NULL OR u.off >= weeks.ws)), 6)) AS turn_off_rate
FROM weeks CROSS JOIN units AS u
WHERE {topic:String} = '' AND {env:String} = ''
GROUP BY weeks.k, weeks.ws ORDER BY weeks.k;
