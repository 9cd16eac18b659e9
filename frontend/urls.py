"""Server-rendered pages; each area keeps its own routes module."""

from django.contrib.auth import views as auth_views
from django.urls import include, path

from frontend.views import auth, home, invitations

urlpatterns = [
    path("", home.HomeView.as_view(), name="home"),
    path("favicon.ico", home.favicon, name="favicon"),
    path("login/", auth.ThrottledLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("invite/<str:token>/", invitations.InvitationAcceptView.as_view(), name="invitation-accept"),
    path("", include("frontend.urls_setup")),
    path("", include("frontend.urls_workspace")),
    path("", include("frontend.urls_console")),
    path("", include("frontend.urls_leaderboard")),
    path("", include("frontend.urls_agreement")),
    path("", include("frontend.urls_releases")),
    path("", include("frontend.urls_imports")),
    path("", include("frontend.urls_profile")),
]
