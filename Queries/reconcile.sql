-- title: Reconcile with Apple's delivery metrics
-- description: Our per-day, per-push-type response counts against the Apple Push Notifications
-- description: Console delivery-metrics export (ingest its CSV like any log); flags days where our
-- description: accepted count and Apple's received count differ by more than 1%.
-- records: responses
-- when-empty: apple  no Apple delivery metrics in the database, so nothing to compare: export them from the Push Notifications Console (CSV) and ingest that file
-- param: since time  start of the range (days)
-- param: until time  end of the range, exclusive
-- column: day,push_type,status key
-- column: difference_share rate
-- column: flag text
-- Written once for both engines: it reads only the relations both have (docs/store.md) and the
-- SQL both run alike. A day of Apple's is in the range when it starts at or after the start of
-- the day that holds --since, and before the start of the day that holds --until.
-- common:
apple_rows AS (
  SELECT day, day_ms, push_type, status, count FROM apple_metrics_v
  WHERE (:since < -1000000000000000 OR day_ms >= :since - :since % 86400000)
    AND (:until > 1000000000000000 OR day_ms < :until - :until % 86400000)
),
apple_daily AS (
  SELECT day, day_ms, push_type,
         sum(CASE WHEN lower(status) LIKE 'received%' THEN count END) AS apple_received,
         sum(CASE WHEN lower(status) LIKE 'delivered%' THEN count END) AS apple_delivered,
         sum(CASE WHEN lower(status) LIKE '%disabled%' THEN count END) AS apple_discarded_disabled
  FROM apple_rows
  GROUP BY day, day_ms, push_type
),
-- Our responses on Apple's days, per UTC day and push type. A response's push type is its
-- apns-push-type; without one it is background when the payload is a background push by the
-- silent report's rule (content-available, no alert, sound or badge), else alert (APNs' default).
ours_daily AS (
  SELECT s.time_ms - s.time_ms % 86400000 AS response_day_ms,
         coalesce(s.push_type, CASE WHEN s.content_available = 1 AND coalesce(s.has_alert, 0) = 0 AND coalesce(s.has_sound, 0) = 0
                                         AND coalesce(s.has_badge, 0) = 0 THEN 'background' ELSE 'alert' END) AS response_push_type,
         count(*) AS our_responses, count(CASE WHEN s.status = 200 THEN 1 END) AS our_accepted
  FROM responses_v s
  WHERE s.time_ms >= (SELECT min(day_ms) FROM apple_daily) AND s.time_ms < (SELECT max(day_ms) FROM apple_daily) + 86400000
  GROUP BY response_day_ms, response_push_type
),
daily AS (
  SELECT a.day AS day, a.push_type AS push_type, coalesce(o.our_responses, 0) AS our_responses,
         coalesce(o.our_accepted, 0) AS our_accepted, a.apple_received AS apple_received, a.apple_delivered AS apple_delivered,
         a.apple_discarded_disabled AS apple_discarded_disabled
  FROM apple_daily a LEFT JOIN ours_daily o ON o.response_day_ms = a.day_ms AND o.response_push_type = a.push_type
)

-- section: summary
-- Qualified columns: on ClickHouse an alias stands for its expression anywhere in the SELECT.
SELECT count(*) AS days_compared,
       coalesce(sum(CASE WHEN abs(d.our_accepted - coalesce(d.apple_received, 0)) > 0.01 * coalesce(d.apple_received, 0) THEN 1 ELSE 0 END), 0)
         AS days_flagged,
       coalesce(sum(d.our_accepted), 0) AS our_accepted, coalesce(sum(d.apple_received), 0) AS apple_received
FROM daily d;

-- section: by_day
SELECT day, push_type, our_responses, our_accepted, apple_received, apple_delivered, apple_discarded_disabled,
       our_accepted - coalesce(apple_received, 0) AS accepted_minus_received,
       pushlog_round(1.0 * (our_accepted - coalesce(apple_received, 0)) / nullif(apple_received, 0), 6) AS difference_share,
       CASE WHEN abs(our_accepted - coalesce(apple_received, 0)) > 0.01 * coalesce(apple_received, 0) THEN 'CHECK' ELSE 'ok' END AS flag
FROM daily
ORDER BY day, push_type;

-- section: apple
SELECT day, push_type, status, count FROM apple_rows ORDER BY day, push_type, status;
