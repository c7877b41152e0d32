"""A live quiz over WebSockets: 30 phones answer, the projector counts (the live games' targets).

Run: ``.venv/bin/python bench/bench_quiz_live.py`` (about three minutes; ``--help`` for the
knobs). Needs PostgreSQL (``--pg``, trust auth as ``postgres``) and Redis (``--redis``) on
127.0.0.1.

Targets: those of the live games (``bench_live.py``, 30 students on one server process):
p99 from a phone's answer to its acknowledgement on that phone under 100 ms, p99 from an
answer to the projector's updated count under 100 ms, and no errors, for each way of
playing (``--teams``: three teams of ten, and everyone alone, by default).

What it does:

* drops and recreates the database ``--db`` (``talia_bench_quiz_live``), migrates it, loads
  the demo content and logs in a teacher and ``--students`` (30) students, with
  ``bench_live.py``'s code (a Django session in the database whose cookie each simulated
  browser sends);
* builds a quiz of ``--questions`` (10) items from the demo's published symbols and
  Knowledge? questions as a teacher does (``games.quiz.services.quiz_create``, generated in
  this process, then published), so the items are of the kinds a class gets;
* for each ``--teams`` count, makes a live quiz of it as the "run live" page does
  (``games.play.quiz_live.services.quiz_live_session_create``), joins every student and
  starts it; starts one real ASGI server, ``daphne config.asgi:application``, with
  PostgreSQL and the Redis channel layer (Redis db ``--redis-db``; only the channel
  layer's keys are deleted), and opens the teacher's screen (the projector) and the 30
  phones as WebSocket clients in this process (``bench_live.py``'s minimal client);
* in the lobby, one phone of each team chooses its Team ID (not measured); then for each
  question the teacher opens it; each phone, once it shows the question, answers after
  a pause drawn uniformly from ``--answer-min`` to ``--answer-max`` seconds (1-8: the
  class reads and taps), with an answer fitting the question's kind; one phone in
  ``--change`` (5) changes its mind 0.5-2 s after its answer was taken; once every
  answer is in (the projector shows the version they make), the teacher closes the
  question and moves on after ``--pause`` (1 s); after the last one the teacher ends the
  quiz (the attempts are recorded then: that action takes the locked path).

Every action carries a ``bench`` number (the engine ignores it, the log keeps it), so
each is matched afterwards to its ``ActionRecord`` and so to the version it made. Figures
(from writing the action to the socket to a socket receiving a state of at least that
version):

* answer -> acknowledgement: the answering phone (judged, p50 and p99);
* answer -> projector: the teacher's screen, whose count of teams that answered then
  includes it (judged, p99);
* question opened -> phones, closed -> phones: every phone showing it (reported);
* the end -> projector (the 30 attempts recorded; reported);
* errors: a refusal, a socket closed or failed, an answer never acknowledged, a phone that
  never showed a question, a traceback in the server's log (judged: none);
* CPU seconds of the server, PostgreSQL and Redis per answer, and the load average.

Everything runs on this machine (their CPU count and the load average are printed): on a
busy machine the figures say so. The exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import random
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_live as live  # noqa: E402  (the servers, the WebSocket client, the students' logins)
from results import load_average, record  # noqa: E402

TARGET_MS = 100.0  # p99, answer -> acknowledgement and answer -> projector (bench_live's target)
WAIT_SECONDS = 30.0  # longest wait for a screen to show what the bench expects
END_WAIT_SECONDS = 180.0  # the end records every student's attempt: it is given longer
NAME = "bench_quiz_live.py"


# --- the data set ------------------------------------------------------------------------------


@dataclass
class World:
    base: live.World  # the teacher, the students and their cookies
    teacher_cookie: str
    quiz_id: int
    kinds: dict[str, int]


def build_world(args: argparse.Namespace) -> World:
    from django.conf import settings
    from django.test import Client

    from content.models import Symbol
    from games.quiz import selectors as quiz_selectors
    from games.quiz import services as quiz_services
    from games.quiz.models import Quiz, QuizItem

    args.cards = 4  # bench_live's ZnajZnak setup, which this bench does not play
    base = live.build_world(args, students_count=args.students)
    client = Client()
    client.force_login(base.teacher)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    pool = quiz_selectors.pool_from_symbols(
        user=base.teacher, queryset=Symbol.objects.filter(status="published"), with_knowledge=True
    )
    quiz = quiz_services.quiz_create(
        owner=base.teacher,
        title="Bench live quiz",
        source=Quiz.Source.SELECTION,
        pool=pool,
        total=args.questions,
        seed=args.seed,
        enqueue=False,
    )
    quiz = quiz_services.quiz_generate(quiz=quiz)
    quiz = quiz_services.quiz_publish(quiz=quiz, by=base.teacher)
    kinds: dict[str, int] = {}
    for kind in QuizItem.objects.filter(quiz=quiz).values_list("kind", flat=True):
        kinds[kind] = kinds.get(kind, 0) + 1
    return World(base, cookie, quiz.pk, kinds)


def new_live_quiz(world: World, team_count: int) -> int:
    """A live quiz made, joined by every student and started, as in class: its session id."""
    from games import services
    from games.play.quiz_live.services import quiz_live_session_create
    from games.quiz.models import Quiz

    session = quiz_live_session_create(
        facilitator=world.base.teacher, quiz=Quiz.objects.get(pk=world.quiz_id), team_count=team_count
    )
    for student in world.base.students:
        services.session_join(session=session, user=student)
    services.session_start(session=session, by=world.base.teacher)
    return int(session.pk)


def answer_for(question: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """An answer that fits the question's kind, as a phone's form sends it (right or not)."""
    kind, prompt = question["kind"], question.get("prompt") or {}
    ids = [str(o["id"]) if isinstance(o, dict) else str(o) for o in prompt.get("options") or []]
    if kind == "periods":
        return {"choices": rng.sample(ids, rng.randint(1, len(ids)))}
    if kind in ("picture_name_typed", "know"):
        return {"text": rng.choice(["Kosciuszko", "1918", "a guess", "Wawel"])}
    if kind == "chronology":
        order = [str(e["id"]) for e in prompt.get("events") or []]
        rng.shuffle(order)
        return {"order": order}
    if kind in ("matching", "connect"):
        lefts = prompt.get("symbols" if kind == "connect" else "left") or []
        rights = prompt.get("groups" if kind == "connect" else "right") or []
        field_name = "groups" if kind == "connect" else "pairs"
        return {field_name: {str(a["id"]): str(rng.choice(rights)["id"]) for a in lefts}}
    return {"choice": rng.choice(ids)}


# --- the screens ------------------------------------------------------------------------------


@dataclass
class Sent:
    time: float
    screen: int  # -1: the teacher's
    kind: str  # the action's type
    question: int


@dataclass
class Run:
    sent: dict[int, Sent] = field(default_factory=dict)  # nonce -> what, when, by whom
    # screen -> versions (increasing) and when each first arrived; screen -1 is the teacher's
    seen: dict[int, tuple[list[int], list[float]]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    nonce: int = 0
    actions: int = 0  # actions sent that the server should store (each makes one version)
    base_version: int = 0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


class Screen:
    """A phone (``index`` >= 0) or the teacher's screen (-1): reads states, sends actions."""

    def __init__(self, index: int, sock: live.WebSocket, run: Run) -> None:
        self.index, self.sock, self.run = index, sock, run
        self.view: dict[str, Any] = {}
        self.version = -1
        self.changed = asyncio.Event()
        self.done = 0  # the last question this phone has answered (all it meant to send)
        run.seen[index] = ([], [])

    def accept(self, text: str) -> None:
        now = time.perf_counter()
        message = json.loads(text)
        if message.get("type") == "error":
            self.run.error(f"refused: {message.get('error')}: {message.get('reason')}")
            return
        if message.get("type") != "state":
            self.run.error(f"message {message.get('type')!r}")
            return
        versions, times = self.run.seen[self.index]
        if not versions or message["version"] > versions[-1]:
            versions.append(message["version"])
            times.append(now)
        if message["version"] >= self.version:
            self.version, self.view = message["version"], message.get("view") or {}
            self.changed.set()

    async def listen(self) -> None:
        try:
            while True:
                self.accept(await self.sock.recv())
        except (live.Closed, asyncio.IncompleteReadError, OSError) as error:
            self.run.error(f"socket: {error!r}")

    def act(self, action: dict[str, Any], question: int) -> None:
        run = self.run
        run.nonce += 1
        run.actions += 1
        action["bench"] = run.nonce
        run.sent[run.nonce] = Sent(time.perf_counter(), self.index, action["type"], question)
        self.sock.send(json.dumps({"type": "action", "action": action}))

    async def until(self, test: Any, what: str, wait: float = WAIT_SECONDS) -> bool:
        """Wait until ``test(view, version)`` holds on this screen; an error after ``wait`` s."""
        deadline = time.perf_counter() + wait
        while not test(self.view, self.version):
            self.changed.clear()
            try:
                async with asyncio.timeout(max(0.01, deadline - time.perf_counter())):
                    await self.changed.wait()
            except TimeoutError:
                self.run.error(f"{what} not shown within {wait:g} s")
                return False
        return True


async def phone(screen: Screen, args: argparse.Namespace, rng: random.Random) -> None:
    """A student: answers every question it sees, after a pause; some change their minds."""
    while True:
        shown = await screen.until(
            lambda view, _v: (
                view.get("phase") == "finished"
                or (
                    view.get("phase") == "open"
                    and (view.get("question") or {}).get("number", 0) > screen.done
                )
            ),
            f"phone {screen.index}: the next question",
            3600,  # as long as the teacher takes: an opened question not shown is counted from the log
        )
        if not shown or screen.view.get("phase") == "finished":
            return
        question = screen.view["question"]
        number = question["number"]
        await asyncio.sleep(rng.uniform(args.answer_min, args.answer_max))
        screen.act({"type": "answer", "question": number, "answer": answer_for(question, rng)}, number)
        if rng.random() < args.change / 100:
            await asyncio.sleep(rng.uniform(0.5, 2.0))
            screen.act({"type": "answer", "question": number, "answer": answer_for(question, rng)}, number)
        screen.done = number


async def play(args: argparse.Namespace, world: World, port: int, session_id: int, run: Run) -> float:
    """The teacher's screen and the phones through the whole quiz; the seconds it took."""
    path = f"/ws/sessions/{session_id}/"
    teacher = Screen(
        -1, await live.WebSocket.connect(live.HOST, port, path, cookie=world.teacher_cookie), run
    )
    teacher.accept(await teacher.sock.recv())
    phones = []
    for index, cookie in enumerate(world.base.cookies):
        screen = Screen(index, await live.WebSocket.connect(live.HOST, port, path, cookie=cookie), run)
        screen.accept(await screen.sock.recv())
        phones.append(screen)
    run.base_version = teacher.version
    listeners = [asyncio.create_task(s.listen()) for s in (teacher, *phones)]

    def stored(_view: dict[str, Any], version: int) -> bool:
        return version >= run.base_version + run.actions

    started = time.perf_counter()
    # In the lobby one phone of each team (``your_team.players`` lists it) chooses its Team ID.
    leads = {min(s.view["your_team"]["players"]) for s in phones}
    for screen in phones:
        if screen.view["you"] in leads:
            screen.act({"type": "choose_team_id", "team_id": f"Bench {screen.index:02d}"}, 0)
    await teacher.until(stored, "the Team IDs")
    rng = random.Random(args.seed + session_id)
    students = [asyncio.create_task(phone(s, args, random.Random(rng.random()))) for s in phones]
    questions = teacher.view["question_count"]
    for number in range(1, questions + 1):
        teacher.act({"type": "open_question"}, number)
        await teacher.until(stored, f"question {number} opened")
        # Every phone answers (some twice); then the projector shows the version they make.
        deadline = time.perf_counter() + args.answer_max + 2 + WAIT_SECONDS
        while any(s.done < number for s in phones) and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        await teacher.until(stored, f"the answers to question {number}")
        teacher.act({"type": "close_question"}, number)
        await teacher.until(stored, f"question {number} closed")
        await asyncio.sleep(args.pause)
    teacher.act({"type": "end_game"}, questions)
    await teacher.until(lambda view, _v: view.get("phase") == "finished", "the end", END_WAIT_SECONDS)
    elapsed = time.perf_counter() - started
    await asyncio.wait(students, timeout=END_WAIT_SECONDS)
    for task in (*students, *listeners):
        task.cancel()
    await asyncio.gather(*students, *listeners, return_exceptions=True)
    for screen in (teacher, *phones):
        await screen.sock.close()
    return elapsed


# --- one way of playing -------------------------------------------------------------------------


@dataclass
class Result:
    name: str
    answers: int = 0
    questions: int = 0
    seconds: float = 0.0
    ack: list[float] = field(default_factory=list)  # answer -> the answering phone
    projector: list[float] = field(default_factory=list)  # answer -> the teacher's screen
    opened: list[float] = field(default_factory=list)  # open -> every phone
    closed: list[float] = field(default_factory=list)  # close -> every phone
    end: list[float] = field(default_factory=list)  # end -> the teacher's screen
    end_phones: list[float] = field(default_factory=list)  # end -> every phone
    errors: dict[str, int] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds during the quiz
    load: str = ""

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def analyse(name: str, session_id: int, run: Run, screens: int) -> Result:
    from games.models import ActionRecord

    result = Result(name, errors=dict(run.errors))
    made: dict[int, int] = {}  # nonce -> the version its action made
    for index, action in ActionRecord.objects.filter(session_id=session_id).values_list("index", "action"):
        if isinstance(action, dict) and isinstance(action.get("bench"), int):
            made[action["bench"]] = index + 1

    def latency(version: int, sent: Sent, screen: int, bucket: list[float], what: str) -> None:
        """From sending to ``screen`` first holding ``version`` (an error if it never did)."""
        versions, times = run.seen.get(screen, ([], []))
        at = bisect.bisect_left(versions, version)
        if at < len(versions) and times[at] >= sent.time:
            bucket.append(times[at] - sent.time)
        else:
            result.errors[what] = result.errors.get(what, 0) + 1

    for nonce, sent in run.sent.items():
        if nonce not in made:
            result.errors[f"{sent.kind} not stored"] = result.errors.get(f"{sent.kind} not stored", 0) + 1
            continue
        if sent.kind == "answer":
            result.answers += 1
            latency(made[nonce], sent, sent.screen, result.ack, "an answer never acknowledged")
            latency(made[nonce], sent, -1, result.projector, "an answer never shown on the projector")
        elif sent.kind in ("open_question", "close_question"):
            result.questions += sent.kind == "open_question"
            bucket = result.opened if sent.kind == "open_question" else result.closed
            for screen in range(screens):
                latency(
                    made[nonce],
                    sent,
                    screen,
                    bucket,
                    f"{sent.kind.split('_')[0]}ed question not shown on a phone",
                )
        elif sent.kind == "end_game":
            latency(made[nonce], sent, -1, result.end, "the end not shown on the projector")
            for screen in range(screens):
                latency(made[nonce], sent, screen, result.end_phones, "the end not shown on a phone")
    return result


def run_config(
    args: argparse.Namespace, env: dict[str, str], world: World, team_count: int, var_dir: Path
) -> Result:
    name = f"{team_count} teams" if team_count >= 2 else "everyone alone"
    name = f"{args.students} phones, {name}"
    live.redis_clean(args, check=False)
    session_id = new_live_quiz(world, team_count)
    server = live.start_server(env, var_dir, team_count, None)
    run = Run()
    try:
        live.wait_until_up(server)
        print(f"[{name}] daphne on {server.port}; {args.questions} questions ...", flush=True)
        before = live.cpu_snapshot([server], [])
        seconds = asyncio.run(play(args, world, server.port, session_id, run))
        after = live.cpu_snapshot([server], [])
        load = load_average()
    finally:
        live.stop_server(server)
    log = server.log.read_text(errors="replace")
    if "Traceback" in log:
        run.error("a traceback in the server's log")
        first = log.index("Traceback")
        print(f"[{name}] first traceback of the server:\n{log[first : first + 2500]}", file=sys.stderr)
    result = analyse(name, session_id, run, len(world.base.cookies))
    result.seconds, result.load = seconds, load
    result.cpu["server"] = after["servers"] - before["servers"]
    for key in ("postgres", "redis"):
        # Per process: a backend that ends in the window takes its CPU time with it.
        result.cpu[key] = sum(t - before[key].get(pid, 0.0) for pid, t in after[key].items())
    return result


# --- the report ---------------------------------------------------------------------------------


def report(results: list[Result], args: argparse.Namespace, world: World) -> bool:
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(world.kinds.items()))
    print(
        f"\nA live quiz over WebSockets (one daphne process, PostgreSQL, Redis channel layer), "
        f"{args.questions} questions ({kinds}); answers {args.answer_min:g}-{args.answer_max:g} s after "
        f"a question shows, {args.change:g} % changed; {os.cpu_count()} CPUs shared by the server, "
        f"PostgreSQL, Redis and the clients"
    )
    header = (
        f"{'configuration':28} {'answers':>7} {'ack p50':>8} {'ack p99':>8} {'proj p50':>8} "
        f"{'proj p99':>8} {'open p99':>8} {'close p99':>9} {'end p99':>8} {'errors':>6}"
    )
    print(header)
    print("-" * len(header))
    missed = False
    for r in results:
        print(
            f"{r.name:28} {r.answers:7d} {pct(r.ack, 0.5):8.1f} {pct(r.ack, 0.99):8.1f} "
            f"{pct(r.projector, 0.5):8.1f} {pct(r.projector, 0.99):8.1f} {pct(r.opened, 0.99):8.1f} "
            f"{pct(r.closed, 0.99):9.1f} {pct(r.end_phones, 0.99):8.1f} {r.error_count:6d}"
        )
    print("Targets:")
    for r in results:
        verdicts = []
        for figure, values in (
            ("p99 answer to acknowledgement", r.ack),
            ("p99 answer to projector", r.projector),
        ):
            p99 = pct(values, 0.99)
            met = record(NAME, f"{r.name}: {figure}", f"{p99:.1f} ms", f"< {TARGET_MS:g} ms", p99 < TARGET_MS)
            missed |= not met
            verdicts.append(f"{figure} {p99:.1f} ms (target < {TARGET_MS:g} ms) {'ok' if met else 'MISSED'}")
        met = record(NAME, f"{r.name}: errors", str(r.error_count), "0", r.error_count == 0)
        missed |= not met
        verdicts.append(f"errors {r.error_count} (target 0) {'ok' if met else 'MISSED'}")
        print(f"  {r.name}: " + "; ".join(verdicts))
    print("Where the time goes:")
    for r in results:
        per = {key: 1000 * value / max(1, r.answers) for key, value in r.cpu.items()}
        errors = ", ".join(f"{what} ×{n}" for what, n in sorted(r.errors.items())) or "none"
        print(
            f"  {r.name}: {r.questions} questions in {r.seconds:.0f} s; CPU seconds server "
            f"{r.cpu['server']:.1f}, PostgreSQL {r.cpu['postgres']:.1f}, Redis {r.cpu['redis']:.1f} "
            f"({per['server']:.1f}, {per['postgres']:.1f}, {per['redis']:.1f} ms per answer); "
            f"question opened -> phones p50 {pct(r.opened, 0.5):.1f} ms, closed -> phones p50 "
            f"{pct(r.closed, 0.5):.1f} ms; the end (every attempt recorded) -> projector "
            f"{pct(r.end, 0.5):.0f} ms, -> phones p50 {pct(r.end_phones, 0.5):.0f} ms; "
            f"load average after it {r.load}; errors: {errors}"
        )
    return missed


def parse_teams(text: str) -> list[int]:
    counts = []
    for item in text.split(","):
        count = int(item)
        if count == 1 or not 0 <= count <= 30:
            raise argparse.ArgumentTypeError(f"{item}: 0 (everyone alone) or 2 to 30 teams")
        counts.append(count)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--teams", type=parse_teams, default=parse_teams("3,0"), help="team counts, 0 alone (3,0)"
    )
    parser.add_argument("--students", type=int, default=30, help="phones (30)")
    parser.add_argument("--questions", type=int, default=10, help="questions of the quiz (10)")
    parser.add_argument("--answer-min", type=float, default=1.0, help="seconds before an answer, least (1)")
    parser.add_argument("--answer-max", type=float, default=8.0, help="seconds before an answer, most (8)")
    parser.add_argument("--change", type=float, default=5.0, help="per cent of answers changed (5)")
    parser.add_argument("--pause", type=float, default=1.0, help="seconds between close and next (1)")
    live.service_arguments(parser, db="talia_bench_quiz_live")
    args = parser.parse_args()
    if not 2 <= args.students <= live.STUDENTS_MAX or not 1 <= args.questions <= 100:
        parser.error(f"--students from 2 to {live.STUDENTS_MAX}, --questions from 1 to 100")
    if not 0 <= args.answer_min <= args.answer_max:
        parser.error("--answer-min from 0 to --answer-max")

    signal.signal(signal.SIGTERM, live._interrupt)  # a CI timeout cleans up as Ctrl-C does
    var_dir = Path(tempfile.mkdtemp(prefix="talia-bench-quiz-live-"))
    results: list[Result] = []
    started = time.monotonic()
    print(f"CPUs: {os.cpu_count()}, load average: {load_average()}", flush=True)
    try:
        live.redis_clean(args, check=True)
        print(f"Building {args.db} (PostgreSQL): the demo content, {args.students} students, a quiz ...")
        live.recreate_database(args)
        env = live.child_env(args, var_dir)
        live.django_setup(env)
        world = build_world(args)
        for team_count in args.teams:
            results.append(run_config(args, env, world, team_count, var_dir))
    except KeyboardInterrupt:
        print("\nInterrupted: stopping.", file=sys.stderr)
        return 130
    finally:
        live.teardown(args, var_dir)
    missed = report(results, args, world)
    print(f"Load average after the run: {load_average()}; whole run {time.monotonic() - started:.0f} s")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
