"""Load test of the work queue: simulated annotators looping claim → submit over HTTP against gunicorn.

    /work/main/.venv/bin/python bench/annotate_load.py --pairs 1000000 --small-pairs 10000 --annotators 32 \
        --duration 30 --rates 130,200,260 --paced-duration 20 --workers 3 --worker-class gthread --threads 2

Steps (everything on 127.0.0.1, in the separate database ``concord_bench``, dropped and recreated):

1. migrate; the annotators; a campaign of ``--small-pairs`` pairs and one of ``--pairs`` pairs (overlap 3),
   made with COPY and vacuumed;
2. gunicorn serves Concord (``config.settings.local`` with ``DATABASE_URL``, debug off);
3. closed loop: ``--annotators`` concurrent clients (one thread, one keep-alive connection each) loop
   claim → submit, ``--duration`` seconds per pool in ``--rounds`` turns, the pools taking turns
   (small, large, large, small, …) so that the machine's drift falls on both alike; then paced phases
   at each of ``--rates``, alternating the pools too;
4. prints p50/p95/p99 of claim and submit, cycles per second, CPU per cycle (server, database, client),
   and the in-process claim latency (the service alone, no HTTP) on each pool, so the pool-size
   effect is seen without HTTP noise. ``--pairs 0`` runs the small pool only.

Never part of ``make test``. Figures and their command go in ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import heapq
import importlib
import io
import json
import os
import secrets
import selectors
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
PG = "postgres://postgres@127.0.0.1:5432/"
MAX_PHASE_SECONDS = 60


def calibration_us() -> float:
    """CPU microseconds for sum(range(1000)): ~8-10 µs on a current desktop core; this VM has read 11 to 34."""
    started = time.process_time()
    for _ in range(5000):
        sum(range(1000))
    return round((time.process_time() - started) / 5000 * 1e6, 1)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _env(db: str) -> dict:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DATABASE_URL": PG + db,
        "DJANGO_DEBUG": "false",
        "DATABASE_CONN_MAX_AGE": "600",
        "DJANGO_LOG_LEVEL": "ERROR",
        # A shared cache (log-in throttle, Celery), as in production; sessions are in the database (annotation.accounts.sessions).
        "CACHE_URL": os.environ.get("BENCH_CACHE_URL", "redis://127.0.0.1:6379/3"),
        # The closed loop drives each account at machine speed (up to ~13 cycles/s), above the default claim and
        # submit limits made for people; the limits still count every request, so their cost stays measured.
        "CONCORD_API_RATES": "claim=1000000/s,submit=1000000/s",
    }


def recreate_database(db: str) -> None:
    import psycopg

    with psycopg.connect(PG + "postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{db}"')
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=_env(db), check=True)


def setup_django(db: str) -> None:
    """This process on a new, migrated database ``db`` with the bench's settings, Django set up."""
    import django

    os.environ.update(_env(db))
    sys.path.insert(0, str(ROOT))
    recreate_database(db)
    django.setup()


def timed_claim_then_submit(campaign, rater, key_prefix: str) -> float:
    """One claim → submit cycle through the services, in process; returns the claim's seconds."""
    from annotation.workqueue.services.assignments import annotation_submit, assignment_claim

    started = time.perf_counter()
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    elapsed = time.perf_counter() - started
    annotation_submit(assignment=assignment, annotator=rater, values={"preference": "A"}, time_on_item_ms=None,
                      idempotency_key=f"{key_prefix}-{assignment.pk}")
    return elapsed


def make_annotators(count: int) -> list[tuple[str, str]]:
    """Annotators with a logged-in session each: (session key, CSRF token)."""
    from annotation.accounts.models import User

    User.objects.bulk_create([User(username=f"bench-rater-{i}", role="annotator") for i in range(count)])
    return make_sessions()


def make_sessions(backend: str | None = None, prefix: str = "bench-rater-") -> list[tuple[str, str]]:
    """A logged-in session for each bench user whose name starts with ``prefix`` (the annotators unless given),
    naming ``backend`` (this tree's first authentication backend unless given: another version of Concord may name
    its own): (session key, CSRF token)."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    from annotation.accounts.models import User

    SessionStore = importlib.import_module(settings.SESSION_ENGINE).SessionStore
    sessions = []
    for user in User.objects.filter(username__startswith=prefix).order_by("pk"):
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = backend or settings.AUTHENTICATION_BACKENDS[0]
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        sessions.append((store.session_key, secrets.token_hex(16)))
    return sessions


def copy_campaign(slug: str, pairs: int) -> None:
    """A campaign of ``pairs`` pairs (4 per prompt, 4 responses per prompt), written with COPY."""
    from django.db import connection

    from annotation.accounts.models import User
    from annotation.catalogue.services.campaigns import campaign_create

    campaign = campaign_create(slug=slug, kind="text-to-text", preset="ab-tie", overlap=3)
    campaign.members.add(*User.objects.filter(username__startswith="bench-rater-"))
    prompts = (pairs + 3) // 4
    with connection.cursor() as cursor:
        raw = cursor.connection
        cur = raw.cursor()
        # Secondary indexes are rebuilt once after the load (a sort), not maintained row by row.
        cur.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN "
            "('annotation_prompt', 'annotation_response', 'annotation_pair') AND indexname NOT IN "
            "(SELECT conname FROM pg_constraint)"
        )
        secondary = cur.fetchall()
        for name, _ in secondary:
            cur.execute(f'DROP INDEX "{name}"')
        cur.execute("SELECT coalesce(max(id), 0) FROM annotation_prompt")
        prompt0 = cur.fetchone()[0] + 1
        cur.execute("SELECT coalesce(max(id), 0) FROM annotation_response")
        response0 = cur.fetchone()[0] + 1
        text = json.dumps([{"type": "text", "text": "Describe the picture in one sentence.", "format": "plain"}])
        with cur.copy("COPY annotation_prompt (id, campaign_id, external_id, source, source_task, content, metadata, "
                      "created_at) FROM STDIN") as copy:
            _write(copy, _rows((prompt0 + i, campaign.pk, f"{slug}-p{i}", "bench", "", text, "{}", "now()")
                             for i in range(prompts)))
        with cur.copy("COPY annotation_response (id, prompt_id, model_name, content, content_sha256, created_at) "
                      "FROM STDIN") as copy:
            answer = '[{"type": "text", "text": "Answer %d to prompt %d.", "format": "plain"}]'
            _write(copy, _rows(
                (response0 + 4 * i + m, prompt0 + i, f"bench-model-{m}", answer % (m, i), f"{i:060d}{m:04d}", "now()")
                for i in range(prompts) for m in range(4)
            ))
        combos = ((0, 1), (2, 3), (0, 2), (1, 3))
        with cur.copy("COPY annotation_pair (campaign_id, prompt_id, response_a_id, response_b_id, external_id, criteria, "
                      "status, status_reason, priority, required_annotations, active_claims, annotations_done, is_gold, "
                      "gold_answer, metadata, created_at) FROM STDIN") as copy:
            _write(copy, _rows(
                (campaign.pk, prompt0 + n // 4, response0 + 4 * (n // 4) + combos[n % 4][0],
                 response0 + 4 * (n // 4) + combos[n % 4][1], f"{slug}-{n}", "[]", "queued", "", 0, 3, 0, 0, "f", None,
                 "{}", "now()")
                for n in range(pairs)
            ))
        for _, definition in secondary:
            cur.execute(definition)
        for table in ("annotation_prompt", "annotation_response"):
            cur.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
        # A campaign imported a while ago has been vacuumed; a fresh COPY gets autovacuum's first pass over the
        # whole table (and its visibility map) during the measured phase instead, a cost of the load, not of a claim.
        for table in ("annotation_prompt", "annotation_response", "annotation_pair"):
            cur.execute(f"VACUUM (ANALYZE) {table}")
        # flush the load's writes now, PostgreSQL's and then the kernel's: their write-back during the
        # measured phase stalls every commit's fsync (the 1M phase then left a third of the CPU idle)
        cur.execute("CHECKPOINT")
    os.sync()


def _write(copy, chunks) -> None:
    for chunk in chunks:
        copy.write(chunk)


def _rows(rows):
    """Rows in COPY text format, streamed in chunks."""
    buffer = io.StringIO()
    for n, row in enumerate(rows, 1):
        buffer.write("\t".join("\\N" if v is None else str(v) for v in row) + "\n")
        if n % 50_000 == 0:
            yield buffer.getvalue().encode()
            buffer = io.StringIO()
    yield buffer.getvalue().encode()


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (FileNotFoundError, ProcessLookupError):
                continue
    return found


def _machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(values[:8]) - idle) / hz, sum(values[:8]) / hz


class CpuMeter:
    """CPU seconds used by the server, by the database backends serving it, by this client, and by the machine.

    Processes that appear during the phase (database backends opened by the workers) count in full.
    """

    def __init__(self, server_pid: int):
        self.server_pid = server_pid
        self.start = self._sample()

    def _db_pids(self) -> list[int]:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            return [row[0] for row in cursor.fetchall()]

    def _sample(self) -> dict:
        busy, total = _machine_busy()
        return {
            "server": {pid: _cpu_seconds(pid) for pid in [self.server_pid, *_children(self.server_pid)]},
            "db": {pid: _cpu_seconds(pid) for pid in self._db_pids()},
            "client": time.process_time(),
            "machine_busy": busy,
            "machine_total": total,
        }

    def per_cycle(self, cycles: int) -> dict:
        end = self._sample()
        used = {
            kind: sum(cpu - self.start[kind].get(pid, 0.0) for pid, cpu in end[kind].items()) for kind in ("server", "db")
        }
        for kind in ("client", "machine_busy", "machine_total"):
            used[kind] = end[kind] - self.start[kind]
        out = {f"{k}_cpu_ms_per_cycle": round(1000 * used[k] / max(cycles, 1), 2) for k in ("server", "db", "client")}
        ours = used["server"] + used["db"] + used["client"]
        out["machine_busy_share"] = round(used["machine_busy"] / max(used["machine_total"], 1e-9), 2)
        out["others_cpu_share"] = round(max(used["machine_busy"] - ours, 0) / max(used["machine_total"], 1e-9), 2)
        per_cycle = (used["server"] + used["db"]) / max(cycles, 1)
        out["server_db_capacity_cycles_per_s_on_2_free_cores"] = round(2 / per_cycle, 1) if per_cycle else None
        return out


def percentiles(samples: list[float]) -> dict:
    if not samples:
        return {"n": 0}
    ordered = sorted(samples)

    def pick(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1)

    return {"n": len(ordered), "p50_ms": pick(0.50), "p95_ms": pick(0.95), "p99_ms": pick(0.99)}


class _Annotator:
    """One simulated annotator: its keep-alive HTTP/1.1 connection and where it is in its claim → submit cycle.

    The load generator shares the two cores with the server, so it is kept to a few system calls and a few
    microseconds of Python per request: requests are written as bytes, responses read into a buffer and cut
    at their Content-Length (or their last chunk). httpx cost 3.4–4.2 ms of client CPU per cycle here, asyncio
    streams 0.3–0.36 ms.
    """

    __slots__ = ("index", "address", "sock", "fixed", "claim_request", "buffer", "step", "started", "due")

    def __init__(self, index: int, address: tuple[str, int], session_key: str, csrf: str, claim_path: str, due: float):
        self.index, self.address = index, address
        host = f"{address[0]}:{address[1]}"
        self.fixed = (
            f"Host: {host}\r\nCookie: sessionid={session_key}; csrftoken={csrf}\r\nX-CSRFToken: {csrf}\r\n"
            f"Referer: http://{host}/\r\nAccept: application/json\r\nContent-Type: application/json\r\n"
        ).encode()
        self.claim_request = f"POST {claim_path} HTTP/1.1\r\n".encode() + self.fixed + b"Content-Length: 0\r\n\r\n"
        self.buffer = bytearray()
        self.step = ""  # "claim" or "submit" while a request is out
        self.started = 0.0
        self.due = due
        self.sock = None

    def connect(self, selector: selectors.BaseSelector) -> None:
        self.sock = socket.create_connection(self.address)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setblocking(False)
        selector.register(self.sock, selectors.EVENT_READ, self)

    def close(self, selector: selectors.BaseSelector) -> None:
        if self.sock is not None:
            selector.unregister(self.sock)
            self.sock.close()
            self.sock = None

    def send(self, step: str, request: bytes, started: float) -> None:
        self.step, self.started = step, started
        sent = self.sock.send(request)
        if sent < len(request):  # a full socket buffer: never with requests this small, but be correct
            self.sock.setblocking(True)
            self.sock.sendall(request[sent:])
            self.sock.setblocking(False)

    def response(self) -> tuple[int, bytes, bool] | None:
        """(status, body, the server closes the connection) once the buffer holds a whole response, else None."""
        buffer = self.buffer
        end = buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = bytes(buffer[:end]).lower()
        status = int(head[9:12])
        begin = end + 4
        length_at = head.find(b"\r\ncontent-length:")
        if length_at >= 0:
            line_end = head.find(b"\r\n", length_at + 2)
            length = int(head[length_at + 17 : line_end if line_end >= 0 else len(head)])
            if len(buffer) < begin + length:
                return None
            body, rest = bytes(buffer[begin : begin + length]), buffer[begin + length :]
        elif b"\r\ntransfer-encoding: chunked" in head:
            body, rest = _dechunk(buffer, begin)
            if body is None:
                return None
        else:
            body, rest = b"", buffer[begin:]
        self.buffer = bytearray(rest)
        return status, body, b"\r\nconnection: close" in head


def _dechunk(buffer: bytearray, at: int) -> tuple[bytes | None, bytes]:
    """A chunked body from ``at``: (body, what follows), or (None, b"") while it is incomplete."""
    parts = []
    while True:
        line_end = buffer.find(b"\r\n", at)
        if line_end < 0:
            return None, b""
        size = int(bytes(buffer[at:line_end]).split(b";")[0], 16)
        if len(buffer) < line_end + 2 + size + 2:
            return None, b""
        parts.append(bytes(buffer[line_end + 2 : line_end + 2 + size]))
        at = line_end + 2 + size + 2
        if size == 0:
            return b"".join(parts), bytes(buffer[at:])


def run_phase(base_url: str, slug: str, sessions: list[tuple[str, str]], duration: float,
              rate: float | None = None) -> dict:
    """Every annotator loops claim → submit on its own keep-alive connection for ``duration`` seconds.

    Without ``rate`` the loop is closed (the next claim goes out as soon as the submit returns: the most the
    server can do, every request queueing behind the others). With ``rate`` (cycles per second, all annotators
    together) each annotator starts a cycle every ``annotators / rate`` seconds, staggered, and a claim's latency
    counts from when it was due, not when it went out, so a server that falls behind is charged for the wait
    (no coordinated omission). A cycle under way at the end is finished. One thread, one ``selectors`` loop.
    """
    host, port = base_url.removeprefix("http://").split(":")
    claim_times: list[float] = []
    submit_times: list[float] = []
    failures: Counter[str] = Counter()
    answer = json.dumps({"values": {"preference": "A"}, "time_on_item_ms": 1000}).encode()
    submit_tail = b"Content-Length: %d\r\n\r\n" % len(answer) + answer
    interval = len(sessions) / rate if rate else 0.0
    selector = selectors.DefaultSelector()
    began = time.perf_counter()
    deadline = began + duration
    annotators = [
        _Annotator(i, (host, int(port)), key, csrf, f"/api/v1/campaigns/{slug}/claim/", began + interval * i / len(sessions))
        for i, (key, csrf) in enumerate(sessions)
    ]
    # Annotators whose next cycle is to start, a heap by when it is due (in a closed loop: at once).
    waiting = [(annotator.due, i) for i, annotator in enumerate(annotators)]
    heapq.heapify(waiting)
    busy = 0  # cycles under way

    try:
        while busy or waiting:
            now = time.perf_counter()
            while waiting and (waiting[0][0] <= now or not interval):
                _, index = heapq.heappop(waiting)
                annotator = annotators[index]
                if annotator.sock is None:
                    # Connected when its first request is due, as a browser does: gthread gives a new connection a
                    # thread until its first request arrives (up to 5 s), so idle ones opened early stall the rest.
                    annotator.connect(selector)
                started = annotator.due if interval else now
                annotator.due += interval
                annotator.send("claim", annotator.claim_request, started)
                busy += 1
            timeout = max(0.0, waiting[0][0] - now) if waiting else None
            for key, _ in selector.select(timeout):
                annotator = key.data
                data = annotator.sock.recv(262144)
                if not data:
                    raise ConnectionError(f"the server closed a connection during a {annotator.step}")
                annotator.buffer += data
                answer_read = annotator.response()
                if answer_read is None:
                    continue
                status, body, closing = answer_read
                now = time.perf_counter()
                if closing:
                    annotator.close(selector)
                    annotator.connect(selector)
                if annotator.step == "claim":
                    claim_times.append(now - annotator.started)
                    if status == 200:
                        assignment = orjson.loads(body)["assignment"]
                        annotator.send(
                            "submit",
                            b"POST /api/v1/assignments/%d/submit/ HTTP/1.1\r\n" % assignment + annotator.fixed
                            + b"Idempotency-Key: bench-%d\r\n" % assignment + submit_tail,
                            now,
                        )
                        continue
                    failures[f"claim {status}"] += 1
                    busy -= 1
                    if status == 204:  # nothing left for this annotator
                        annotator.close(selector)
                        continue
                else:
                    submit_times.append(now - annotator.started)
                    if status != 200:
                        failures[f"submit {status}"] += 1
                    busy -= 1
                if time.perf_counter() < deadline:
                    heapq.heappush(waiting, (annotator.due, annotator.index))
                else:
                    annotator.close(selector)
    finally:
        for annotator in annotators:
            annotator.close(selector)
        selector.close()
    elapsed = time.perf_counter() - began
    return {
        "offered_cycles_per_s": rate,
        "claim": percentiles(claim_times),
        "submit": percentiles(submit_times),
        "cycles": len(submit_times),
        "cycles_per_s": round(len(submit_times) / elapsed, 1),
        "failures": dict(failures),
        "_samples": (claim_times, submit_times, elapsed),
    }


def service_claim_latency(slug: str, claims: int) -> dict:
    """The claim service alone, timed in this process: three probe annotators in turn claim and submit, as the
    load's annotators do (pairs in progress first, each finished by the three)."""
    from annotation.accounts.models import User
    from annotation.catalogue.models import Campaign

    campaign = Campaign.objects.get(slug=slug)
    raters = [User.objects.create(username=f"bench-probe-{slug}-{secrets.token_hex(4)}") for _ in range(3)]
    campaign.members.add(*raters)
    return [timed_claim_then_submit(campaign, raters[n % len(raters)], "probe") for n in range(claims)]


def inprocess_cpu(slug: str, cycles: int) -> dict:
    """CPU per request in this process (Django test client, no HTTP): a trivial API view, then claim and submit.

    The first figure is the framework's floor on this machine (session, user, DRF, one query); the
    others are the work queue's endpoints, so the difference is what the engine itself costs.
    """
    from django.test import Client

    from annotation.accounts.models import User
    from annotation.catalogue.models import Campaign

    rater = User.objects.create(username=f"bench-cpu-{slug}")
    Campaign.objects.get(slug=slug).members.add(rater)
    client = Client()
    client.force_login(rater)
    client.get("/api/v1/campaigns/")  # the first request imports the views, DRF and the URLconf: not per request
    started = time.process_time()
    for _ in range(cycles):
        client.get("/api/v1/campaigns/")
    floor = (time.process_time() - started) / cycles
    claim = submit = 0.0
    for _ in range(cycles):
        started = time.process_time()
        assignment = client.post(f"/api/v1/campaigns/{slug}/claim/").json()["assignment"]
        claim += time.process_time() - started
        started = time.process_time()
        client.post(f"/api/v1/assignments/{assignment}/submit/", {"values": {"preference": "A"}},
                    content_type="application/json", HTTP_IDEMPOTENCY_KEY=f"cpu-{assignment}")
        submit += time.process_time() - started
    return {
        "trivial_get_cpu_ms": round(1000 * floor, 2),
        "claim_cpu_ms": round(1000 * claim / cycles, 2),
        "submit_cpu_ms": round(1000 * submit / cycles, 2),
    }


def explain_claim(slug: str) -> str:
    """EXPLAIN ANALYZE of the one-statement claim, run in a transaction that is rolled back."""
    from django.db import connection, transaction
    from django.utils import timezone

    from annotation.accounts.models import User
    from annotation.catalogue.models import Campaign
    from annotation.workqueue.store.postgresql import claim_params, claim_sql

    campaign = Campaign.objects.get(slug=slug)
    rater = User.objects.get(username="bench-rater-0")
    params = claim_params(campaign=campaign.pk, annotator=rater, gold=False, now=timezone.now())
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + claim_sql(), params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
        transaction.set_rollback(True)
    return plan


def _plan_figures(plan: str) -> dict:
    """Execution time and buffers touched by the claim statement: its cost, free of the machine's noise."""
    import re

    buffers = re.search(r"Buffers: shared hit=(\d+)(?: read=(\d+))?", plan)
    execution = re.search(r"Execution Time: ([\d.]+) ms", plan)
    return {
        "execution_ms": float(execution.group(1)) if execution else None,
        "buffers": int(buffers.group(1)) + int(buffers.group(2) or 0) if buffers else None,
        "uses_pair_claim_idx": "pair_claim_idx" in plan,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1_000_000, help="the large pool; 0 runs the small one only")
    parser.add_argument("--small-pairs", type=int, default=10_000)
    parser.add_argument("--annotators", type=int, default=32)
    parser.add_argument("--duration", type=float, default=30.0,
                        help=f"closed-loop seconds per pool (at most {MAX_PHASE_SECONDS})")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn worker processes")
    parser.add_argument("--worker-class", default="gthread", choices=["sync", "gthread"])
    parser.add_argument("--threads", type=int, default=2, help="threads per gunicorn worker (gthread)")
    parser.add_argument("--rates", default="",
                        help="comma-separated cycles/s: after each closed-loop phase, paced phases at these offered "
                             "rates (latency counted from when each claim was due)")
    parser.add_argument("--paced-duration", type=float, default=15.0, help="seconds per paced phase")
    parser.add_argument("--probe-claims", type=int, default=300, help="in-process claims timed per pool")
    parser.add_argument("--rounds", type=int, default=2,
                        help="closed-loop turns per pool, alternating the pools (--duration is split among them)")
    parser.add_argument("--db", default="concord_bench")
    args = parser.parse_args()
    duration = min(args.duration, MAX_PHASE_SECONDS)

    print(f"creating database {args.db} …", file=sys.stderr)
    setup_django(args.db)
    sessions = make_annotators(args.annotators)
    pools = [("small", "bench-small", args.small_pairs)] + ([("large", "bench-large", args.pairs)] if args.pairs else [])
    generation = {}
    for name, slug, pairs in pools:
        started = time.perf_counter()
        copy_campaign(slug, pairs)
        generation[name] = round(time.perf_counter() - started, 1)
        print(f"{pairs:,} pairs written in {generation[name]}s", file=sys.stderr)

    server, base_url = start_gunicorn(args.db, workers=args.workers, worker_class=args.worker_class,
                                      threads=args.threads)
    try:
        # Each worker imports the URLconf, DRF and the views on its first requests; that is not the claim's cost.
        for _, slug, _ in pools:
            run_phase(base_url, slug, sessions, 5.0)
        results = {"config": {"annotators": args.annotators, "duration_s": duration, "rounds": args.rounds,
                              "workers": args.workers, "worker_class": args.worker_class, "threads": args.threads,
                              "cpus": os.cpu_count(), "load_before": os.getloadavg(),
                              "calibration_us": calibration_us()},
                   "generation_s": generation}
        # The pools take turns (small, large, then large, small, …) so that the machine's drift over the run,
        # which is larger than the effect sought, falls on both alike.
        turns = [pools if r % 2 == 0 else pools[::-1] for r in range(args.rounds)]
        closed = {name: [] for name, _, _ in pools}
        for turn in turns:
            for name, slug, pairs in turn:
                closed[name].append(_measured_phase(server.pid, base_url, slug, sessions, duration / args.rounds, pairs))
        for name, phases in closed.items():
            results[name] = _merged(phases)
            results[name]["paced"] = []
        rates = [float(r) for r in args.rates.split(",") if r.strip()]
        paced = min(args.paced_duration, MAX_PHASE_SECONDS)
        for i, rate in enumerate(rates):
            for name, slug, pairs in pools if i % 2 == 0 else pools[::-1]:
                results[name]["paced"].append(
                    _strip(_measured_phase(server.pid, base_url, slug, sessions, paced, pairs, rate))
                )
        probes = {name: [] for name, _, _ in pools}
        for turn in turns:
            for name, slug, _ in turn:
                probes[name] += service_claim_latency(slug, args.probe_claims // args.rounds)
        plans = {}
        for name, slug, _ in pools:
            results[name]["service_claim"] = percentiles(probes[name])
            plans[name] = explain_claim(slug)
            results[name]["claim_statement"] = _plan_figures(plans[name])
            results[name]["inprocess_cpu_per_request"] = inprocess_cpu(slug, args.probe_claims)
        if args.pairs:
            results["claim_p50_large_over_small"] = round(
                results["large"]["claim"]["p50_ms"] / results["small"]["claim"]["p50_ms"], 2
            )
            results["service_claim_p50_large_over_small"] = round(
                results["large"]["service_claim"]["p50_ms"] / results["small"]["service_claim"]["p50_ms"], 2
            )
    finally:
        stop_gunicorn(server)
    print(json.dumps(results, indent=2))
    phase = "large" if "large" in plans else "small"
    print(f"\nclaim statement plan on the {phase} pool:\n" + plans[phase])
    print(_summary(results))


def _measured_phase(server_pid: int, base_url: str, slug: str, sessions, duration: float, pairs: int,
                    rate: float | None = None) -> dict:
    meter = CpuMeter(server_pid)
    result = run_phase(base_url, slug, sessions, duration, rate)
    return {"pairs": pairs, **result, **meter.per_cycle(result["cycles"])}


def _strip(phase: dict) -> dict:
    return {key: value for key, value in phase.items() if key != "_samples"}


def _merged(phases: list[dict]) -> dict:
    """One pool's closed-loop phases as one: percentiles over all samples, cycles/s over all the time, CPU per cycle
    weighted by cycles; each phase's own figures are kept under ``phases``."""
    claims = [t for phase in phases for t in phase["_samples"][0]]
    submits = [t for phase in phases for t in phase["_samples"][1]]
    elapsed = sum(phase["_samples"][2] for phase in phases)
    cycles = sum(phase["cycles"] for phase in phases)
    merged = {"pairs": phases[0]["pairs"], "claim": percentiles(claims), "submit": percentiles(submits), "cycles": cycles,
              "cycles_per_s": round(cycles / elapsed, 1), "failures": {}}
    for phase in phases:
        for key, count in phase["failures"].items():
            merged["failures"][key] = merged["failures"].get(key, 0) + count
    for key in ("server_cpu_ms_per_cycle", "db_cpu_ms_per_cycle", "client_cpu_ms_per_cycle", "machine_busy_share",
                "others_cpu_share"):
        merged[key] = round(sum(phase[key] * phase["cycles"] for phase in phases) / max(cycles, 1), 2)
    per_cycle = (merged["server_cpu_ms_per_cycle"] + merged["db_cpu_ms_per_cycle"]) / 1000
    merged["server_db_capacity_cycles_per_s_on_2_free_cores"] = round(2 / per_cycle, 1) if per_cycle else None
    merged["phases"] = [_strip(phase) for phase in phases]
    return merged


def _summary(results: dict) -> str:
    phases = [phase for phase in ("small", "large") if phase in results]
    lines = ["", f"{'phase':<8}{'pairs':>11}{'claim p50/p95/p99 ms':>24}{'submit p50/p95/p99 ms':>25}{'cycles/s':>10}"]
    for phase in phases:
        r = results[phase]
        c, s = r["claim"], r["submit"]
        lines.append(
            f"{phase:<8}{r['pairs']:>11,}{c['p50_ms']:>10}/{c['p95_ms']}/{c['p99_ms']:<8}"
            f"{s['p50_ms']:>11}/{s['p95_ms']}/{s['p99_ms']:<8}{r['cycles_per_s']:>10}"
        )
    for phase in phases:
        for r in results[phase]["paced"]:
            c, s = r["claim"], r["submit"]
            label = f"@{r['offered_cycles_per_s']:g}/s"
            lines.append(
                f"{phase + ' ' + label:<19}{c['p50_ms']:>10}/{c['p95_ms']}/{c['p99_ms']:<8}"
                f"{s['p50_ms']:>11}/{s['p95_ms']}/{s['p99_ms']:<8}{r['cycles_per_s']:>10}"
            )
    for phase in phases:
        r = results[phase]
        lines.append(
            f"{phase}: CPU per cycle server {r['server_cpu_ms_per_cycle']} ms, database {r['db_cpu_ms_per_cycle']} ms, "
            f"client {r['client_cpu_ms_per_cycle']} ms; machine busy {r['machine_busy_share']:.0%}, "
            f"of which other processes {r['others_cpu_share']:.0%}; server+database capacity on 2 free cores "
            f"≈ {r['server_db_capacity_cycles_per_s_on_2_free_cores']} cycles/s"
        )
    for phase in phases:
        statement, cpu = results[phase]["claim_statement"], results[phase]["inprocess_cpu_per_request"]
        lines.append(
            f"{phase}: claim statement {statement['execution_ms']} ms, {statement['buffers']} buffers; "
            f"in-process CPU per request: trivial GET {cpu['trivial_get_cpu_ms']} ms, "
            f"claim {cpu['claim_cpu_ms']} ms, submit {cpu['submit_cpu_ms']} ms"
        )
    lines.append(f"machine: sum(range(1000)) took {results['config']['calibration_us']} µs of CPU before the run")
    lines.append(f"HTTP claim p50 large/small: {results.get('claim_p50_large_over_small')}; "
                 f"service claim p50 large/small: {results.get('service_claim_p50_large_over_small')}")
    return "\n".join(lines)


def start_gunicorn(db: str, *, tree: Path = ROOT, workers: int = 3, worker_class: str = "gthread",
                   threads: int = 2) -> tuple[subprocess.Popen, str]:
    """gunicorn serving the checkout ``tree`` (its own ``.venv`` if it has one) on ``db``, listening: (process, URL)."""
    port = _free_port()
    python = tree / ".venv" / "bin" / "python"
    process = subprocess.Popen(
        [str(python if python.exists() else sys.executable), "-m", "gunicorn", "config.wsgi:application",
         "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--worker-class", worker_class,
         "--threads", str(threads), "--backlog", "256", "--log-level", "warning"],
        cwd=tree, env=_env(db), start_new_session=True,
    )
    try:
        _wait_for(port)
    except BaseException:
        stop_gunicorn(process)
        raise
    return process, f"http://127.0.0.1:{port}"


def stop_gunicorn(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)


def _wait_for(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"gunicorn did not listen on 127.0.0.1:{port} within {timeout}s")


if __name__ == "__main__":
    main()
