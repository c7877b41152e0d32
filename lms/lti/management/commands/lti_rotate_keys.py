from django.conf import settings
from django.core.management.base import BaseCommand

from lms.lti.keys import key_rotate, keys_published


class Command(BaseCommand):
    help = "Make a new LTI signing key; older keys stay in the JWKS for LTI_KEY_GRACE_DAYS days."

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        key = key_rotate()
        published = keys_published()
        self.stdout.write(
            f"New signing key {key}. Published keys: {len(published)} "
            f"(a replaced key stays {settings.LTI_KEY_GRACE_DAYS} days)."
        )
