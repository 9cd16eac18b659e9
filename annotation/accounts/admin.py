from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from annotation.accounts import models


@admin.register(models.User)
class ConcordUserAdmin(UserAdmin):
    fieldsets = (*UserAdmin.fieldsets, ("Concord", {"fields": ("role",)}))
    list_display = ("username", "email", "role", "is_active")
    list_filter = ("role", "is_active")

