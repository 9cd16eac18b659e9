"""API routes of the judges area: judges, pre-filter runs, verdicts of a pair."""

from django.urls import path

from curation.api import judges, prefilter

urlpatterns = [
    path("judges/", judges.JudgeListApi.as_view(), name="api-judge-list"),
    path("judges/create/", judges.JudgeCreateApi.as_view(), name="api-judge-create"),
    path("judges/<slug:name>/", judges.JudgeDetailApi.as_view(), name="api-judge-detail"),
    path("judges/<slug:name>/update/", judges.JudgeUpdateApi.as_view(), name="api-judge-update"),
    path("judges/<slug:name>/delete/", judges.JudgeDeleteApi.as_view(), name="api-judge-delete"),
    path("judges/<slug:name>/test/", judges.JudgeTestApi.as_view(), name="api-judge-test"),
    path("prefilter/campaigns/<slug:slug>/start/", prefilter.PrefilterStartApi.as_view(), name="api-prefilter-start"),
    path("prefilter/campaigns/<slug:slug>/rule/", prefilter.PrefilterRuleApi.as_view(), name="api-prefilter-rule"),
    path("prefilter/campaigns/<slug:slug>/rule/set/", prefilter.PrefilterRuleSetApi.as_view(), name="api-prefilter-rule-set"),
    path("prefilter/runs/<int:job_id>/", prefilter.PrefilterRunDetailApi.as_view(), name="api-prefilter-run"),
    path("prefilter/runs/<int:job_id>/resume/", prefilter.PrefilterRunResumeApi.as_view(), name="api-prefilter-run-resume"),
    path("prefilter/runs/<int:job_id>/cancel/", prefilter.PrefilterRunCancelApi.as_view(), name="api-prefilter-run-cancel"),
    path("prefilter/pairs/<int:pair_id>/verdicts/", prefilter.PairVerdictsApi.as_view(), name="api-pair-verdicts"),
    path("prefilter/pairs/<int:pair_id>/restore/", prefilter.PairRestoreApi.as_view(), name="api-pair-restore"),
]
