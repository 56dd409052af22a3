"""The extrapolation lab's speed and memory.

python bench/bench_lab.py [--steps 300] [--quick]     this process: steps/s of the default model,
    wall time of the live default set (5 encodings, one seed, markov and kback), the extension
    panel's evaluation time, and the RSS high-water mark of this process (torch loaded, one
    thread, as the server's training worker runs)
python bench/bench_lab.py --server [--server-steps 100]   the Streamlit server itself: starts
    ``streamlit run serve.py``, opens the lab in Chromium (Playwright), clicks Train (5 encodings,
    markov, L = 64, d = 64), then switches to the Length tab and to another page and back while
    the job runs (the job must survive: it belongs to the session), and samples the server
    process's RSS every 0.2 s from before the lab is opened until the job is done. Prints the
    RSS before, after the lab opened, the sampled maximum while training and the kernel's
    high-water mark (VmHWM).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import resource
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from posenc import lab
from posenc.lab import evaluation, experiment, training
from posenc.lab import model as tiny

MB = 1024 * 1024


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def in_process(a: argparse.Namespace) -> None:
    tiny.set_threads(1)
    t = time.perf_counter()
    r = training.train(tiny.TrainConfig(task="markov", encoding="rope", steps=50))
    print(f"default model (d=64, 2 layers, 4 heads, L=64, batch 32): {50 / (time.perf_counter() - t):.1f} steps/s")
    tasks = ("markov",) if a.quick else ("markov", "kback")
    encs = ["rope", "alibi"] if a.quick else list(lab.ENCODINGS)
    t = time.perf_counter()
    for task in tasks:
        experiment.run_experiment(task, encs, steps=a.steps, tokens=4096)
    print(
        f"live set ({len(encs)} encodings × {len(tasks)} task(s), {a.steps} steps, evaluated): {time.perf_counter() - t:.1f} s"
    )
    t = time.perf_counter()
    evaluation.evaluate_method(r.model, "rope+yarn:beta_fast=2", [64, 128, 256, 512], tokens=2048)
    print(f"extension panel (one method, 4 lengths, 2,048 tokens each): {time.perf_counter() - t:.2f} s")
    print(f"RSS high-water mark: {rss_mb():.0f} MB")


def _status(pid: int) -> dict[str, int]:
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = int(line.split()[1]) * 1024
    return out


def server(a: argparse.Namespace) -> int:
    from e2e_support import launch_chromium, wait_idle
    from load import start_server
    from playwright.sync_api import sync_playwright

    load_start = os.getloadavg()
    srv = start_server()
    pid = srv.proc.pid
    samples: list[tuple[float, int]] = []
    stop = threading.Event()

    def sample() -> None:
        t0 = time.perf_counter()
        while not stop.is_set():
            try:
                samples.append((time.perf_counter() - t0, _status(pid)["VmRSS"]))
            except (OSError, KeyError):
                return
            stop.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    query = f"lab_view=Train&lab_ttask=markov&lab_encs=all%20five&lab_steps={a.server_steps}&lab_tlen=64&lab_width=64"
    try:
        rss_start = _status(pid)["VmRSS"]
        sampler.start()
        with sync_playwright() as pw:
            browser = launch_chromium(pw)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{srv.base_url}/Extrapolation_lab?{query}")
            wait_idle(page, title="Extrapolation lab", timeout=180)
            rss_open = _status(pid)["VmRSS"]
            t_click = time.perf_counter()
            page.get_by_role("button", name="Train").click()
            page.get_by_text("nope: step").first.wait_for(timeout=120_000)
            # look elsewhere while it trains: another tab, then another page, for longer than the heartbeat timeout
            page.get_by_role("tab", name="Length").click()
            page.get_by_text("Your training job").first.wait_for(timeout=60_000)
            page.locator(
                "[data-testid=stSidebar] [data-testid=stPageLink-NavLink]", has_text="RoPE rotation"
            ).first.click()
            wait_idle(page, title="RoPE rotation", timeout=120)
            time.sleep(20)
            page.locator(
                "[data-testid=stSidebar] [data-testid=stPageLink-NavLink]", has_text="Extrapolation lab"
            ).first.click()
            wait_idle(page, title="Extrapolation lab", timeout=120)
            page.get_by_role("tab", name="Train").click()
            page.get_by_text("Your run: markov").first.wait_for(timeout=900_000)
            t_done = time.perf_counter() - t_click
            cancelled = page.get_by_text("Training cancelled").count()
            browser.close()
        stop.set()
        sampler.join()
        st = _status(pid)
    finally:
        stop.set()
        srv.stop()
    peak = max(r for _, r in samples)
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"server RSS, `python bench/bench_lab.py --server` · {when} · {os.cpu_count()} CPUs")
    print(f"load average at the start {load_start[0]:.2f}, at the end {os.getloadavg()[0]:.2f}")
    print(f"job: markov, 5 encodings × {a.server_steps} steps, L = 64, d = 64: done {t_done:.0f} s after the click")
    print(f"job survived a tab switch and 20 s on another page: {'no (cancelled)' if cancelled else 'yes'}")
    print(f"server RSS before the lab was opened: {rss_start / MB:.0f} MB")
    print(f"server RSS with the lab open (torch loaded, shipped results): {rss_open / MB:.0f} MB")
    print(f"server RSS, sampled maximum while training (every 0.2 s, {len(samples)} samples): {peak / MB:.0f} MB")
    print(f"server high-water mark (VmHWM, whole life of the process): {st['VmHWM'] / MB:.0f} MB")
    return 1 if cancelled else 0


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--quick", action="store_true", help="one task, rope and alibi only")
    p.add_argument("--server", action="store_true", help="measure the Streamlit server's RSS while a job trains")
    p.add_argument("--server-steps", type=int, default=100)
    a = p.parse_args()
    if a.server:
        sys.exit(server(a))
    in_process(a)


if __name__ == "__main__":
    main()
