from django.apps import AppConfig


class CurationConfig(AppConfig):
    name = "curation"
    verbose_name = "Curation"

    def ready(self) -> None:
        from annotation.jobs.reaper import JobKindHooks, job_kind_register
        from curation.services.releases import release_job_failed, release_reap_stalled

        # A release whose builder died is failed with a retry hint, never built again behind the curator's back.
        job_kind_register("release", JobKindHooks(before_reap=release_reap_stalled, on_fail=release_job_failed,
                                                  resume_running=False))
