"""The import pages: curators upload a file and watch its job; each import keeps a report of its outcome and row
errors, a page at a time, downloadable whole as CSV or JSON Lines."""

import csv
import json

from django.contrib.auth.mixins import LoginRequiredMixin, UserPassesTestMixin
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.views import View
from django.views.generic import TemplateView

from annotation.catalogue.models import TaskKind
from annotation.catalogue.schemas import PRESETS
from annotation.catalogue.selectors import campaigns_for_user
from annotation.importers import FORMATS
from annotation.importers.selectors import import_job_errors, import_job_get, import_jobs_recent
from annotation.jobs.models import Job
from core.errors import ApplicationError
from curation.csv_cells import csv_safe

ERRORS_PER_PAGE = 50
DOWNLOADS = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson; charset=utf-8"}


class CuratorOnly(LoginRequiredMixin, UserPassesTestMixin):
    def test_func(self):
        return self.request.user.is_curator


def _import_or_404(job_id: int) -> Job:
    try:
        return import_job_get(job_id=job_id)
    except ApplicationError as exc:
        raise Http404(exc.message) from exc


class ImportUploadView(CuratorOnly, TemplateView):
    template_name = "frontend/imports/upload.html"

    def get_context_data(self, **kwargs):
        return {
            **super().get_context_data(**kwargs),
            "campaigns": campaigns_for_user(user=self.request.user),
            "formats": sorted(FORMATS),
            "task_kinds": TaskKind.choices,
            "presets": PRESETS,
            "jobs": import_jobs_recent(),
        }


class ImportReportView(CuratorOnly, TemplateView):
    """One import's outcome (succeeded, partial or failed, and why) and its row errors, ERRORS_PER_PAGE at a time."""

    template_name = "frontend/imports/report.html"

    def get_context_data(self, **kwargs):
        job = _import_or_404(kwargs["job_id"])
        errors = Paginator(import_job_errors(job=job), ERRORS_PER_PAGE).get_page(self.request.GET.get("page"))
        return {**super().get_context_data(**kwargs), "job": job, "result": job.result or {}, "errors": errors}


class ImportErrorsDownloadView(CuratorOnly, View):
    """Every stored row error of one import, with its line in the file, as CSV (line,message) or JSON Lines."""

    def get(self, request, job_id: int, fmt: str):
        if fmt not in DOWNLOADS:
            raise Http404("no such download")
        job = _import_or_404(job_id)
        errors = import_job_errors(job=job)
        response = HttpResponse(content_type=DOWNLOADS[fmt])
        response["Content-Disposition"] = f'attachment; filename="import-{job.pk}-errors.{fmt}"'
        if fmt == "csv":
            writer = csv.writer(response)
            writer.writerow(["line", "message"])
            for error in errors:
                writer.writerow([error["line"], csv_safe(error["message"])])
        else:
            for error in errors:
                response.write(json.dumps(error, ensure_ascii=False) + "\n")
        return response
