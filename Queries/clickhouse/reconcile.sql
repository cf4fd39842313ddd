-- title: Reconcile with Apple's delivery metrics
-- description: Our per-day, per-push-type response counts against the Apple Push Notifications
-- description: Console delivery-metrics export (ingest its CSV like any log); flags days where our
-- description: accepted count and Apple's received count differ by more than 1%.
-- description: ClickHouse version of Queries/reconcile.sql (same sections, columns and labels).
-- param: since  start of the range (days), {since:DateTime64(3)}; 1900-01-01 = open
-- param: until  end of the range, exclusive, {until:DateTime64(3)}; 2299-12-31 = open
-- Apple's rows are read from pushlog.apple_metrics (schema.sql), a day's rows kept when the day is
-- in the range (a day the range ends inside is left out). A response's push type is its
-- apns-push-type; without one it is background when the payload is a background push by the silent
-- report's rule (content-available, no alert, sound or badge), else alert (APNs' default).

-- section: summary
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
apple AS (
  SELECT day, push_type, toInt64(toDateOrNull(day)) AS d,
         if(countIf(lower(status) LIKE 'received%') = 0, NULL, sumIf(count, lower(status) LIKE 'received%')) AS apple_received
  FROM pushlog.apple_metrics FINAL
  WHERE (since < -1000000000000000 OR day >= pushlog_bucket(since, 'day')) AND (until > 1000000000000000 OR day < pushlog_bucket(until, 'day'))
  GROUP BY day, push_type
), ours AS (
  SELECT intDiv(time_ms, 86400000) AS d,
         coalesce(toString(push_type), if(content_available = 1 AND coalesce(has_alert, 0) = 0 AND coalesce(has_sound, 0) = 0
                                          AND coalesce(has_badge, 0) = 0, 'background', 'alert')) AS push_type,
         countIf(status = 200) AS accepted
  FROM pushlog.kept_responses
  WHERE intDiv(time_ms, 86400000) IN (SELECT d FROM apple WHERE d IS NOT NULL)
  GROUP BY d, push_type
), daily AS (
  SELECT a.day AS day, a.apple_received AS received, toInt64(coalesce(o.accepted, 0)) AS accepted
  FROM apple AS a LEFT JOIN ours AS o ON o.d = a.d AND o.push_type = a.push_type
)
SELECT count() AS days_compared,
       countIf(abs(accepted - coalesce(received, 0)) > 0.01 * coalesce(received, 0)) AS days_flagged,
       sum(accepted) AS our_accepted, coalesce(sum(received), 0) AS apple_received
FROM daily
SETTINGS join_use_nulls = 1;

-- section: by_day
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
apple AS (
  SELECT day, push_type, toInt64(toDateOrNull(day)) AS d,
         if(countIf(lower(status) LIKE 'received%') = 0, NULL, sumIf(count, lower(status) LIKE 'received%')) AS apple_received,
         if(countIf(lower(status) LIKE 'delivered%') = 0, NULL, sumIf(count, lower(status) LIKE 'delivered%')) AS apple_delivered,
         if(countIf(lower(status) LIKE '%disabled%') = 0, NULL, sumIf(count, lower(status) LIKE '%disabled%')) AS apple_discarded_disabled
  FROM pushlog.apple_metrics FINAL
  WHERE (since < -1000000000000000 OR day >= pushlog_bucket(since, 'day')) AND (until > 1000000000000000 OR day < pushlog_bucket(until, 'day'))
  GROUP BY day, push_type
), ours AS (
  SELECT intDiv(time_ms, 86400000) AS d,
         coalesce(toString(push_type), if(content_available = 1 AND coalesce(has_alert, 0) = 0 AND coalesce(has_sound, 0) = 0
                                          AND coalesce(has_badge, 0) = 0, 'background', 'alert')) AS push_type,
         count() AS responses, countIf(status = 200) AS accepted
  FROM pushlog.kept_responses
  WHERE intDiv(time_ms, 86400000) IN (SELECT d FROM apple WHERE d IS NOT NULL)
  GROUP BY d, push_type
)
SELECT a.day AS day, a.push_type AS push_type, coalesce(o.responses, 0) AS our_responses, coalesce(o.accepted, 0) AS our_accepted,
       a.apple_received AS apple_received, a.apple_delivered AS apple_delivered, a.apple_discarded_disabled AS apple_discarded_disabled,
       toInt64(coalesce(o.accepted, 0)) - coalesce(a.apple_received, 0) AS accepted_minus_received,
       if(coalesce(a.apple_received, 0) = 0, NULL, pushlog_round((toInt64(coalesce(o.accepted, 0)) - a.apple_received) / a.apple_received, 6))
         AS difference_share,
       if(abs(toInt64(coalesce(o.accepted, 0)) - coalesce(a.apple_received, 0)) > 0.01 * coalesce(a.apple_received, 0), 'CHECK', 'ok') AS flag
FROM apple AS a LEFT JOIN ours AS o ON o.d = a.d AND o.push_type = a.push_type
ORDER BY a.day, a.push_type
SETTINGS join_use_nulls = 1;

-- section: apple
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until
SELECT day, push_type, status, count FROM pushlog.apple_metrics FINAL
WHERE (since < -1000000000000000 OR day >= pushlog_bucket(since, 'day')) AND (until > 1000000000000000 OR day < pushlog_bucket(until, 'day'))
ORDER BY day, push_type, status;
