"""``manage.py judges list|add|update|enable|disable|test``: the judges of the pre-filter, as the console's Judges page."""

import json

from django.core.checks import Tags
from django.core.management.base import BaseCommand

from core.cli import emit, refuse
from core.errors import ApplicationError
from curation.judges import registry
from curation.models import Judge, JudgeVerdict
from curation.services.judges import judge_create, judge_test, judge_update


def _judge(name: str) -> Judge:
    judge = Judge.objects.filter(name=name).first()
    if judge is None:
        raise ApplicationError(f"no judge named {name!r}", code="judge_not_found", status_code=404)
    return judge


def _settings(raw: str) -> dict:
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ApplicationError(f"--settings is not JSON ({exc})", code="invalid_judge_settings") from exc


def judge_summary(judge: Judge) -> dict:
    return {"name": judge.name, "backend": judge.backend, "enabled": judge.enabled, "settings": judge.settings,
            "secrets": registry.secret_status(judge.settings or {})}


class Command(BaseCommand):
    help = ("List, add, update, enable, disable and try judges. `judges test NAME --pair ID` calls the judge once on one pair "
            "and prints its raw answer and the parsed verdict; nothing is stored.")
    requires_system_checks = [Tags.models]

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        listing = sub.add_parser("list", help="Every judge with its backend and whether it is enabled.")
        add = sub.add_parser("add", help="Configure a new judge.")
        add.add_argument("name")
        add.add_argument("--backend", required=True, help=f"One of {', '.join(registry.BACKENDS)}.")
        add.add_argument("--settings", default="{}",
                         help='Settings as JSON, e.g. {"callable": "curation.judges.heuristics.image_sanity"}.')
        add.add_argument("--disabled", action="store_true", help="Add it switched off.")
        update = sub.add_parser("update", help="Replace a judge's settings.")
        update.add_argument("name")
        update.add_argument("--settings", required=True, help="The new settings as JSON.")
        for action in ("enable", "disable"):
            sub.add_parser(action, help=f"{action.title()} a judge.").add_argument("name")
        test = sub.add_parser("test", help="Call a judge once on one pair and show what it answered.")
        test.add_argument("name")
        test.add_argument("--pair", type=int, required=True, help="The pair's id.")
        test.add_argument("--order", default=JudgeVerdict.Order.FORWARD, help="forward (A first) or swapped (B first).")
        for each in (listing, add, update, test, *[sub.choices[a] for a in ("enable", "disable")]):
            each.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, action, as_json=False, **options):
        try:
            getattr(self, f"_{action}")(as_json=as_json, **options)
        except ApplicationError as exc:
            raise refuse(self, exc, as_json=as_json) from exc

    def _list(self, *, as_json, **options):
        judges = [judge_summary(j) for j in Judge.objects.order_by("name")]
        lines = [f"{j['name']:<24} {j['backend']:<13} {'enabled' if j['enabled'] else 'disabled'}" for j in judges]
        emit(self, {"judges": judges}, "\n".join(lines) or "No judges configured.", as_json=as_json)

    def _add(self, *, as_json, name, backend, settings, disabled, **options):
        parsed = _settings(settings)
        if backend not in registry.BACKENDS:
            raise ApplicationError(f"unknown backend {backend!r}; choose one of {', '.join(registry.BACKENDS)}",
                                   code="invalid_judge_settings")
        judge = judge_create(name=name, backend=backend, settings=parsed, enabled=not disabled)
        emit(self, judge_summary(judge), f"Added judge {judge.name} ({judge.backend}, "
                                         f"{'enabled' if judge.enabled else 'disabled'}).", as_json=as_json)

    def _update(self, *, as_json, name, settings, **options):
        judge = judge_update(judge=_judge(name), settings=_settings(settings))
        emit(self, judge_summary(judge), f"Saved judge {judge.name}.", as_json=as_json)

    def _enable(self, *, as_json, name, **options):
        judge = judge_update(judge=_judge(name), enabled=True)
        emit(self, judge_summary(judge), f"Enabled judge {judge.name}.", as_json=as_json)

    def _disable(self, *, as_json, name, **options):
        judge = judge_update(judge=_judge(name), enabled=False)
        emit(self, judge_summary(judge), f"Disabled judge {judge.name}.", as_json=as_json)

    def _test(self, *, as_json, name, pair, order, **options):
        trial = judge_test(judge=_judge(name), pair_id=pair, order=order)
        text = (f"{trial.judge} on pair {trial.pair_id} ({trial.order}): "
                + (f"error: {trial.error}" if trial.error else
                   f"shown-order label {trial.shown_label} → verdict {trial.verdict}"
                   + (f", score {trial.score:+.2f}" if trial.score is not None else ""))
                + f"\nraw answer:\n{trial.raw_output}")
        emit(self, trial.as_dict(), text, as_json=as_json)
