from rest_framework.permissions import BasePermission


class IsCurator(BasePermission):
    """Curators and admins only."""

    def has_permission(self, request, view):
        return bool(request.user and request.user.is_authenticated and request.user.is_curator)
