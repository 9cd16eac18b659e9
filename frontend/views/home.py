"""Pages: they call selectors and services, and hold no business logic."""

from pathlib import Path

from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import HttpResponse
from django.views.decorators.cache import cache_control
from django.views.generic import TemplateView

from annotation.catalogue.selectors import campaigns_for_user


class HomeView(LoginRequiredMixin, TemplateView):
    template_name = "frontend/home.html"

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "campaigns": campaigns_for_user(user=self.request.user)}


FAVICON = Path(__file__).resolve().parents[1] / "static" / "frontend" / "favicon.ico"


@cache_control(public=True, max_age=86400)
def favicon(request):
    """``/favicon.ico``, which browsers ask for on every site whatever the page links: Concord's own icon."""
    return HttpResponse(FAVICON.read_bytes(), content_type="image/x-icon")
