"""Pages: they call selectors and services, and hold no business logic."""

from django.contrib.auth.mixins import LoginRequiredMixin
from django.views.generic import TemplateView

from annotation.selectors import campaigns_for_user


class HomeView(LoginRequiredMixin, TemplateView):
    template_name = "frontend/home.html"

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "campaigns": campaigns_for_user(user=self.request.user)}
