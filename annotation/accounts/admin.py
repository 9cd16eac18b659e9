from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from annotation.accounts import models


@admin.register(models.User)
class ConcordUserAdmin(UserAdmin):
    fieldsets = (*UserAdmin.fieldsets, ("Concord", {"fields": ("role",)}))
    list_display = ("username", "email", "role", "is_active")
    list_filter = ("role", "is_active")



@admin.register(models.AccountEvent)
class AccountEventAdmin(admin.ModelAdmin):
    """The trail is read, never written or edited here."""

    list_display = ("at", "kind", "username", "actor_username")
    list_filter = ("kind",)
    search_fields = ("username", "actor_username")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
