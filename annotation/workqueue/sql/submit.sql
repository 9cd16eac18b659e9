-- The submission's writes in one round trip (annotation.workqueue.store.postgresql, PostgreSQLStore.submission_write), only while the
-- assignment's status is still the one the submission read (guard, which locks the row): count the annotation on
-- the pair (releasing the lease's slot, or, for a lease that expired, only while the pair still has room),
-- completing the pair at its overlap; store the annotation; close the assignment; record the event. It answers
-- whether the guard held and the annotation's id (none: the pair had no room left for an expired lease).
WITH guard AS (
    SELECT id FROM ${assignment} WHERE id = %(assignment)s::bigint AND status = %(status)s::text FOR UPDATE
), counted AS (
    UPDATE ${pair} SET
        annotations_done = annotations_done + 1,
        active_claims = active_claims - %(release)s::integer,
        status = CASE WHEN status = 'queued' AND required_annotations <= annotations_done + 1
                      THEN 'complete' ELSE status END
    WHERE id = %(pair)s::bigint AND EXISTS (SELECT 1 FROM guard)
      AND (%(release)s::integer = 1
           OR (status = 'queued' AND (active_claims + annotations_done) < required_annotations))
    RETURNING id
), stored AS (
    INSERT INTO ${annotation} (pair_id, assignment_id, annotator_id, source, rater_label, "values",
        shown_swapped, rationale, time_on_item_ms, media_played, gold_correct, confirmed_warnings, idempotency_key,
        created_at)
    SELECT id, %(assignment)s::bigint, %(annotator)s::bigint, 'concord', '', %(values)s::jsonb,
        %(shown_swapped)s::boolean, %(rationale)s::text, %(time_on_item_ms)s::integer, %(media_played)s::jsonb,
        %(gold_correct)s::boolean, %(confirmed_warnings)s::jsonb,
        %(idempotency_key)s::text, %(now)s::timestamptz
    FROM counted
    RETURNING id
), closed AS (
    UPDATE ${assignment} SET status = 'submitted', finished_at = %(now)s::timestamptz, draft = '{}'::jsonb
    WHERE id = %(assignment)s::bigint AND EXISTS (SELECT 1 FROM stored)
), recorded AS (
    INSERT INTO ${assignment_event} (assignment_id, campaign_id, annotator_id, kind, at, detail)
    SELECT %(assignment)s::bigint, %(campaign)s::bigint, %(annotator)s::bigint, 'submit', %(now)s::timestamptz,
        %(detail)s::jsonb || jsonb_build_object('annotation', id)
    FROM stored
)
SELECT EXISTS (SELECT 1 FROM guard), (SELECT id FROM stored)
