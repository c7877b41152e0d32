from django.core.management.base import BaseCommand

from content.demo.loader import demo_content
from lms.demo import demo_users
from lms.models import User


class Command(BaseCommand):
    help = "Load Talia's demo content and demo users (safe to run again) and print the logins."

    def handle(self, *args, **options):
        logins = demo_users()
        teacher = next(login for login in logins if login.role == "teacher")
        counts = demo_content(owner=User.objects.get(username=teacher.username))
        self.stdout.write(
            "Demo content: {symbols} symbols, {symbol_sets} symbol sets, {activity_cards} "
            "Activity cards, {knowledge_questions} Knowledge? questions, {quiz_questions} quiz "
            "questions.".format(**counts)
        )
        self.stdout.write("Demo logins (also in var/demo-logins.json):")
        for login in logins:
            self.stdout.write(f"  {login.role:8} {login.username:12} {login.password}")
