-- The submission's unlocked first read (PostgreSQLStore.submission_read, lock=False): the
-- assignment with what validating the answers needs, by id and still-member; whose it is, is checked on the row.
-- No idempotency lookup here: a plan kept while the annotation table was nearly empty read it whole.
SELECT ${submit_columns}
FROM ${assignment} a
JOIN ${pair} p ON p.id = a.pair_id
JOIN ${campaign} c ON c.id = a.campaign_id
JOIN ${rating_schema} s ON s.id = c.rating_schema_id
WHERE a.id = %(assignment)s
  AND EXISTS (SELECT 1 FROM ${members} m WHERE m.${member_campaign} = a.campaign_id AND m.${member_user} = a.annotator_id)
