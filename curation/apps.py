from django.apps import AppConfig


class CurationConfig(AppConfig):
    """Judges, pre-filter, agreement, consensus, releases and the leaderboard, over the annotation app's data."""

    name = "curation"
    verbose_name = "Curation"

    def ready(self) -> None:
        from annotation.catalogue.services.campaigns import prefilter_rule_reader_register
        from annotation.jobs.reaper import JobKindHooks, job_kind_register
        from curation.prefilter import rules

        # A release whose builder died is failed with a retry hint, never built again behind the curator's back.
        job_kind_register("release", JobKindHooks(before_reap="curation.services.releases.release_reap_stalled",
                                                  on_fail="curation.services.releases.release_job_failed",
                                                  resume_running=False))
        # A campaign stores a pre-filter rule only as the pre-filter reads it (RuleError is a ValueError).
        prefilter_rule_reader_register(lambda rule: rules.rule_from_config(rule).as_config())
