"""The lab's fine-tune budget sweep (the choice behind posenc.lab.__main__.SHIP_FT).

python bench/bench_lab_finetune.py [--seeds 1] [--out data/lab/finetune_sweep.json]

Pretrains the RoPE model on kback (300 steps) and on passkey (1,500 steps), then fine-tunes copies at
256 tokens with several budgets (steps × sequences per step, peak rate as a fraction of the pretraining
peak) and prints each fine-tuned model's accuracy at 64, 128, 256 and 512 tokens (4,096 scored tokens
per length; passkey: 128 sequences) and the seconds each fine-tune took. "Learned" = accuracy >= 0.95 at
256, the fine-tune length (posenc.lab.learned). ``--out`` writes the rows as JSON (the lab's fine-tune line
reads data/lab/finetune_sweep.json: which budgets each fine-tune learned at, per seed).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from posenc import lab
from posenc.lab import evaluation, training
from posenc.lab import model as tiny

SWEEP = {
    "kback": (300, [(100, 32, 1 / 3), (300, 32, 1 / 3), (400, 8, 1 / 3), (800, 8, 1 / 3), (400, 8, 1.0)]),
    "passkey": (1500, [(100, 32, 1 / 3)]),
}
METHODS = {
    "kback": ("rope@ft256", "rope+linear@ft256"),
    "passkey": ("rope@ft256", "rope+linear@ft256", "rope+yarn@ft256"),
}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--seeds", default="1", help="comma-separated seeds, e.g. 0,1,2")
    p.add_argument("--out", default=None, help="write the rows as JSON here")
    a = p.parse_args()
    seeds = [int(x) for x in a.seeds.split(",")]
    tiny.set_threads(1)
    date = f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M UTC}"
    print(f"{date} · load {os.getloadavg()[0]:.1f} · one torch thread · seeds {seeds}")
    doc: dict = {
        "command": "python bench/bench_lab_finetune.py " + " ".join(sys.argv[1:]),
        "date": date,
        "seeds": seeds,
        "finetune_len": 256,
        "tokens": 4096,
        "learned_accuracy": lab.LEARNED_ACCURACY,
        "tasks": {},
    }
    for task, (steps, budgets) in SWEEP.items():
        entry = doc["tasks"].setdefault(task, {"pretrain_steps": steps, "rows": []})
        for seed in seeds:
            r = training.train(tiny.TrainConfig(task=task, steps=steps, encoding="rope", seed=seed))
            print(
                f"{task}: pretrained {steps} steps, seed {seed}, accuracy at 64 = "
                f"{evaluation.evaluate_method(r.model, 'rope', [64], tokens=4096)[64]:.3f}"
            )
            for ft_steps, batch, ratio in budgets:
                for m in METHODS[task]:
                    t = time.perf_counter()
                    model = training.finetune(r, m, steps=ft_steps, batch=batch, lr_ratio=ratio).model
                    took = time.perf_counter() - t
                    acc = evaluation.evaluate_method(model, m, [64, 128, 256, 512], tokens=4096)
                    row = "  ".join(f"{n}: {v:.3f}" for n, v in acc.items())
                    print(
                        f"  {m:<20} {ft_steps:>4} steps × {batch:>2} at {ratio:.2g}× peak: {row}  ({took:.0f} s)",
                        flush=True,
                    )
                    entry["rows"].append(
                        {
                            "method": m,
                            "steps": ft_steps,
                            "batch": batch,
                            "lr_ratio": ratio,
                            "seed": seed,
                            "accuracy": {str(n): round(float(v), 3) for n, v in acc.items()},
                            "seconds": round(took),
                        }
                    )
    if a.out:
        Path(a.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
