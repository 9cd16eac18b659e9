-- The submission's locked read (PostgreSQLStore.submission_read, lock=True): the assignment,
-- locked, with the annotation already stored for it if any (an idempotency key is scoped to its assignment, so that
-- annotation is the one a repeat returns).
SELECT ${earlier_columns}, ${submit_columns}
FROM ${assignment} a
JOIN ${pair} p ON p.id = a.pair_id
JOIN ${campaign} c ON c.id = a.campaign_id
JOIN ${rating_schema} s ON s.id = c.rating_schema_id
LEFT JOIN LATERAL (
    SELECT id, assignment_id, created_at FROM ${annotation} n
    WHERE n.assignment_id = a.id
) n ON true
WHERE a.id = %(assignment)s AND a.annotator_id = %(annotator)s
  AND EXISTS (SELECT 1 FROM ${members} m WHERE m.${member_campaign} = a.campaign_id AND m.${member_user} = a.annotator_id)
FOR UPDATE OF a
