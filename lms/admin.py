from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.utils.translation import gettext_lazy as _

from .models import User


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """Only admins manage people; the role decides the flags (lms.services.user_set_role)."""

    list_display = ("username", "first_name", "last_name", "role", "is_active")
    list_filter = ("role", "is_active")
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (_("Role in Talia"), {"fields": ("role",)}),
    )

    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_superuser

    def save_model(self, request, obj, form, change):
        from .services import user_set_role

        super().save_model(request, obj, form, change)
        if not change or "role" in form.changed_data:
            user_set_role(user=obj, role=obj.role)
