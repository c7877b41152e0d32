from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.utils.translation import gettext_lazy as _

from . import privacy
from .models import Assignment, ClassMember, Grade, Role, SchoolClass, Submission, User
from .services import user_set_role


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

    actions = ["export_student_data"]

    def delete_model(self, request, obj):
        """Deleting a student erases them: their name also leaves the games they played."""
        if obj.role == Role.STUDENT:
            privacy.student_erase(student=obj, by=request.user)
        else:
            super().delete_model(request, obj)

    def get_deleted_objects(self, objs, request):
        """The rows that go with a person go by design (lms.privacy), not by the admin's leave."""
        deleted, counts, _perms_needed, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected

    def delete_queryset(self, request, queryset):
        for user in queryset:
            self.delete_model(request, user)

    @admin.action(description=_("Download the selected student's data (JSON)"))
    def export_student_data(self, request, queryset):
        students = list(queryset.filter(role=Role.STUDENT)[:2])
        if len(students) != 1:
            self.message_user(request, _("Select exactly one student."), level=messages.ERROR)
            return None
        return privacy.student_data_download(student=students[0], by=request.user)

    def save_model(self, request, obj, form, change):

        super().save_model(request, obj, form, change)
        if not change or "role" in form.changed_data:
            user_set_role(user=obj, role=obj.role)


class ReadOnlyForAdmins(admin.ModelAdmin):
    """Classes and grades are changed on Talia's own pages (lms/classes/services.py, which
    keep the gradebook and the LMS outbox right); the admin lets an administrator look."""

    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_superuser

    def has_view_permission(self, request, obj=None):
        return self.has_module_permission(request)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ClassMemberInline(admin.TabularInline):
    model = ClassMember
    extra = 0
    fields = ("user", "role", "joined")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(SchoolClass)
class SchoolClassAdmin(ReadOnlyForAdmins):
    list_display = ("name", "teacher", "join_code", "archived", "created")
    list_filter = ("archived",)
    search_fields = ("name", "teacher__username", "join_code")
    inlines = [ClassMemberInline]


@admin.register(Assignment)
class AssignmentAdmin(ReadOnlyForAdmins):
    list_display = ("title", "school_class", "kind", "opens_at", "due_at", "policy", "published")
    list_filter = ("kind", "policy", "published")
    search_fields = ("title", "school_class__name")


@admin.register(Submission)
class SubmissionAdmin(ReadOnlyForAdmins):
    list_display = ("assignment", "student", "number", "status", "score", "max_score", "graded_at")
    list_filter = ("status",)
    search_fields = ("assignment__title", "student__username")


@admin.register(Grade)
class GradeAdmin(ReadOnlyForAdmins):
    list_display = ("assignment", "student", "score", "max_score", "updated")
    search_fields = ("assignment__title", "student__username")
