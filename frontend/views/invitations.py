"""The invitation page: a person opens their one-time link and sets their own password."""

from django.contrib import messages
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views import View

from annotation.accounts.services.accounts import invitation_accept, invitation_get
from core.errors import ApplicationError


class InvitationAcceptView(View):
    """GET: the password form (or why the link no longer works); POST: set the password, then log in."""

    template_name = "frontend/invitation.html"

    def get(self, request, token: str):
        try:
            invitation = invitation_get(token=token)
        except ApplicationError as exc:
            return TemplateResponse(request, self.template_name, {"error": exc.message}, status=exc.status_code)
        return TemplateResponse(request, self.template_name, {"username": invitation.user.username})

    def post(self, request, token: str):
        try:
            user = invitation_accept(token=token, password=request.POST.get("password", ""),
                                     password_again=request.POST.get("password_again", ""))
        except ApplicationError as exc:
            context = {"error": exc.message}
            if exc.code in ("password_mismatch", "weak_password"):
                context.update(username=invitation_get(token=token).user.username, form_error=True)
            return TemplateResponse(request, self.template_name, context, status=exc.status_code)
        messages.success(request, f"Password set for {user.username}. Log in with it now.")
        return HttpResponseRedirect(reverse("login"))
