"""The lecture hall on freshly started servers, across checkouts and server environments, in turns.

    python bench/hall_checkouts.py [--rounds 2] NAME=DIR[/SCRIPT.py][:KEY=VALUE,...] ... [--reference-env KEY=VALUE,...]

Each round starts the one-chart app (bench/slider_chart_app.py, Streamlit's defaults) and then each explorer NAME
from its checkout DIR (its serve.py, else its app.py, or the entry script named; and its .streamlit/config.toml;
KEY=VALUE pairs are added to that server's environment, e.g. STREAMLIT_RUNNER_POST_SCRIPT_GC=false or PYTHONPATH=/some/site), each freshly started and met by
`--sessions` students the moment it answers its health check, as `bench/load.py --fresh` does: they open the home
link within 2 s and each drags "Vector size d" twice. ``--warm S``: each server first meets one session (open and
two drags, as in the hall) and then S seconds of quiet (the full run of bench/load.py at 7c49dd6 warmed its servers
before its hall). With ``--reference-env``, a second one-chart app with those
variables is measured in each round too (the ratios of a NAME whose environment has the same variables are taken
against it). Prints p95, p50 and server CPU a run of each, and each explorer's p95 over its one-chart app's.
Nothing is written to bench/RESULTS.md. Exit status 1 when any run failed or raised (a failed run is left out of the
percentiles). Used for section 30 (is the ≤ 0.3× of issue #36, measured at 7c49dd6,
reproducible there today?).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _p in (ROOT / "bench", ROOT / "tests"):
    sys.path.insert(0, str(_p))
import load  # noqa: E402
from e2e_support import StreamlitServer, entry  # noqa: E402

#: The home link and the slider its students drag (every checkout since 7c49dd6 has it).
HOME = load.Target(label="home", path="", slider="d_model")


def pairs(text: str) -> dict[str, str]:
    """ "K=V,K2=V2" as a dict ("" gives {})."""
    out = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {item!r}")
        out[key] = value
    return out


def checkout(text: str) -> tuple[str, Path, str, dict[str, str]]:
    """NAME=DIR (its serve.py, else its app.py: tests/e2e_support.entry) or NAME=DIR/SCRIPT.py (another entry script there, e.g. serve.py), then :KEY=VALUE,…:
    (name, folder, script, environment)."""
    name, sep, rest = text.partition("=")
    where, _, env = rest.partition(":")
    path = Path(where)
    folder, script = (path.parent, path.name) if path.suffix == ".py" else (path, entry(path))
    if not sep or not (folder / script).exists() or not (folder / "app.py").exists():
        raise argparse.ArgumentTypeError(f"expected NAME=DIR with DIR/app.py, or NAME=DIR/SCRIPT.py, got {text!r}")
    return name, folder.resolve(), script, pairs(env)


def hall(
    script: str, cwd: Path, target: load.Target, env: dict[str, str], sessions: int, warm: float | None
) -> tuple[float, float, float, int]:
    """(p95 s, p50 s, server CPU s a run, problems) of one hall on a freshly started server; with `warm`, after one
    session has opened the link and dragged twice, and `warm` s of quiet. Problems: errors and exceptions, the
    warm-up's included (printed; a failed run is not in the percentiles)."""
    server = StreamlitServer(script, cwd=cwd, env=env)
    server.start()
    try:
        server.wait_healthy(120)
        problems: list[str] = []
        if warm is not None:
            w = asyncio.run(load.hall(server.base_url, [target], sessions=1, ramp=0.0))
            problems += [f"warm-up: {p}" for p in w.errors + w.exceptions]
            time.sleep(warm)
        cpu0 = load.cpu_seconds(server.pid)
        r = asyncio.run(load.hall(server.base_url, [target], sessions=sessions, ramp=2.0, pids=[server.pid]))
        cpu = (load.cpu_seconds(server.pid) - cpu0) / max(1, len(r.runs))
    finally:
        server.stop()
    problems += r.errors + r.exceptions
    if problems:
        print(f"    {len(problems)} errors and exceptions: {problems[:3]}", flush=True)
    return r.pct(0.95), r.pct(0.5), cpu, len(problems)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("checkouts", nargs="+", type=checkout, metavar="NAME=DIR[:KEY=VALUE,...]")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--sessions", type=int, default=100)
    ap.add_argument("--warm", type=float, default=None, metavar="SECONDS", help="warm each server first (see hall)")
    ap.add_argument("--reference-env", type=pairs, default={}, metavar="KEY=VALUE,...")
    args = ap.parse_args(argv)
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    warm = "fresh servers" if args.warm is None else f"servers warmed by one session, then {args.warm:g} s quiet"
    print(
        f"{when} · {os.cpu_count()} CPUs · load {load.load_average()} · {args.sessions} sessions · {warm}", flush=True
    )
    references = [("one-chart app (defaults)", {})]
    if args.reference_env:
        references.append((f"one-chart app (defaults, {args.reference_env})", args.reference_env))
    trouble = 0
    for k in range(1, args.rounds + 1):
        ref_p95: dict[tuple, tuple[str, float]] = {}
        for label, extra in references:
            p95, p50, cpu, bad = hall(
                load.REFERENCE_APP, ROOT, load.REFERENCE, {**load.REFERENCE_ENV, **extra}, args.sessions, args.warm
            )
            trouble += bad
            ref_p95[tuple(sorted(extra.items()))] = (label, p95)
            print(
                f"  round {k} · {label}: p95 {p95:.2f} s · p50 {p50:.2f} s · CPU {cpu * 1e3:.0f} ms a run", flush=True
            )
        for name, folder, script, env in args.checkouts:
            p95, p50, cpu, bad = hall(script, folder, HOME, env, args.sessions, args.warm)
            trouble += bad
            # against the reference with the same extra variables (every one of --reference-env, same values)
            same = all(env.get(key) == value for key, value in args.reference_env.items()) and args.reference_env
            ref_label, ref = ref_p95[tuple(sorted(args.reference_env.items()))] if same else ref_p95[()]
            print(
                f"  round {k} · {name}: p95 {p95:.2f} s · p50 {p50:.2f} s · CPU {cpu * 1e3:.0f} ms a run · "
                f"{p95 / ref:.2f}x the p95 of the {ref_label}",
                flush=True,
            )
    return 1 if trouble else 0


if __name__ == "__main__":
    raise SystemExit(main())
