from rest_framework.permissions import BasePermission, IsAuthenticated

# The work queue's claim and submit views' permission_classes, which the session door (annotation.workqueue.hotpath)
# checks through the view itself: one list, enforced on both ways in.
WORK_QUEUE_PERMISSIONS: list[type[BasePermission]] = [IsAuthenticated]


class IsCurator(BasePermission):
    """Curators and admins only."""

    def has_permission(self, request, view):
        return bool(request.user and request.user.is_authenticated and request.user.is_curator)
