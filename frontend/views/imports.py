"""The upload page: curators send a file to import and watch its job's progress."""

from django.contrib.auth.mixins import LoginRequiredMixin, UserPassesTestMixin
from django.views.generic import TemplateView

from annotation.catalogue.models import TaskKind
from annotation.catalogue.schemas import PRESETS
from annotation.catalogue.selectors import campaigns_for_user
from annotation.importers import FORMATS
from annotation.importers.selectors import import_jobs_recent


class ImportUploadView(LoginRequiredMixin, UserPassesTestMixin, TemplateView):
    template_name = "frontend/imports/upload.html"

    def test_func(self):
        return self.request.user.is_curator

    def get_context_data(self, **kwargs):
        return {
            **super().get_context_data(**kwargs),
            "campaigns": campaigns_for_user(user=self.request.user),
            "formats": sorted(FORMATS),
            "task_kinds": TaskKind.choices,
            "presets": PRESETS,
            "jobs": import_jobs_recent(),
        }
