"""Command line for a real model (default SmolLM2-135M-Instruct; ``--model PATH`` for any other).

``python -m posenc.realmodel ppl --text FILE --lengths 512,1024 --methods default,linear:factor=2,ntk:factor=2,yarn:factor=2 --out OUT.json``
``python -m posenc.realmodel norms --text FILE --tokens 256 --out OUT.json``
``python -m posenc.realmodel ppl --model DIR_OR_GGUF`` (likewise ``norms`` and ``facts``): a model of your own, a
.gguf file or an HF model directory (config.json, safetensors, tokenizer); a path that holds no rotary model
exits with code 2 and says why.
``python -m posenc.realmodel passkey --lengths 4096,8192 --depths 0.1,0.5,0.9 --methods default,yarn:factor=2 --out OUT.json``
``python -m posenc.realmodel ship``  (the page's shipped results, data/realmodel/results.json; see README)

Perplexity at length L = exp(mean NLL of tokens 2…L given their prefixes) over the first L tokens of
the text as the model's own tokenizer splits it. ``--device cuda`` runs the same on a GPU.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from .. import stats
from . import MAX_TOKENS, MODEL, SHIPPED, chunk_means, default_text, parse_method, passkey_prompt
from .facts import ModelFacts, read_facts

#: what ``ship`` computes (each a few minutes on 2 cores; ≈ 45 min in all on one thread)
SHIP_TEXT = "argparse.py"
SHIP_LENGTH = 16_384
SHIP_CHUNK = 512
SHIP_PPL_METHODS = (
    "default",
    "linear:factor=2",
    "ntk:factor=2",
    "dynamic:factor=2",
    "yarn:factor=2",
    "llama3:factor=2",
)
SHIP_PASSKEY_METHODS = ("default", "yarn:factor=2")
SHIP_PASSKEY_LENGTHS = (6144, 12288, 16384)  # one inside the trained 8,192 tokens, two past it
SHIP_PASSKEY_DEPTHS = (0.1, 0.3, 0.5, 0.7, 0.9)
SHIP_PARTS = ("norms", "long", "passkey")
SHIP_NORM_TOKENS = 512


def _ints(text: str) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be integers separated by commas, got {text!r}") from None
    if not out or any(not 2 <= n <= MAX_TOKENS for n in out):
        raise argparse.ArgumentTypeError(f"lengths must be in [2, {MAX_TOKENS}], got {text!r}")
    return out


def _floats(text: str) -> list[float]:
    try:
        out = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be numbers separated by commas, got {text!r}") from None
    if not out or any(not 0.0 <= d <= 1.0 for d in out):
        raise argparse.ArgumentTypeError(f"depths must be in [0, 1], got {text!r}")
    return out


def _methods(text: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    for name in names:
        try:
            parse_method(name)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return names


def _text(path: str | None) -> str:
    if path is None:
        return default_text(SHIP_TEXT)
    return Path(path).read_text(encoding="utf-8", errors="replace")


def _header(argv: list[str], model: Any, tokens: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "model": model.facts.name,
        **({"source": model.facts.source} if model.facts.source else {}),
        "command": "python -m posenc.realmodel " + " ".join(shlex.quote(a) for a in argv),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "device": model.device,
    }
    if tokens is not None:
        out["tokens"] = tokens
    return out


def _rope_record(method: str, seq_len: int, facts: ModelFacts = MODEL) -> dict[str, Any]:
    """The frequencies ``method`` runs with (for the model's main layer type; every type's under ``by_layer_type``
    where the model has several)."""
    inv, af = parse_method(method, facts).rope(seq_len, facts)
    out: dict[str, Any] = {"inv_freq": [float(x) for x in inv], "attention_factor": af, "seq_len": int(seq_len)}
    if len(facts.types) > 1:
        out["by_layer_type"] = {t: [float(x) for x in 2 * np.pi / facts.wavelengths(t)] for t in facts.types}
    return out


def facts_record(facts: ModelFacts) -> dict[str, Any]:
    """What the model's config declares, as JSON."""
    return {
        "model": facts.name,
        "source": facts.source,
        "architecture": facts.architecture,
        "layers": facts.layers,
        "q_heads": facts.q_heads,
        "kv_heads": facts.kv_heads,
        "head_dim": facts.head_dim,
        "layer_types": list(facts.layer_types),
        "rope": {t: dict(b) for t, b in facts.rope.items()},
        "trained_length": dict(facts.trained_lengths),
        "sliding_window": facts.sliding_window,
    }


def ppl(model: Any, ids: np.ndarray, methods: list[str], lengths: list[int], chunk: int, log: Any = None) -> dict:
    results: dict[str, dict[str, Any]] = {}
    rope: dict[str, dict[str, Any]] = {}
    for method in methods:
        results[method] = {}
        by_len = {}
        for n in lengths:
            t0 = time.time()
            nll = model.nll(ids[:n], method)
            results[method][str(n)] = {
                "ppl": float(np.exp(nll.mean())),
                "mean_nll": float(nll.mean()),
                "nll_by_chunk": chunk_means(nll, chunk),
                "scored": int(nll.size),
            }
            by_len[str(n)] = _rope_record(method, n, model.facts)
            if log:
                log(f"{method} @ {n}: ppl {results[method][str(n)]['ppl']:.3f} ({time.time() - t0:.1f} s)")
        rope[method] = {**by_len[str(max(lengths))], "by_length": by_len}
    return {"results": results, "rope": rope}


def norms(model: Any, ids: np.ndarray) -> dict[str, Any]:
    n = model.pair_norms(ids)
    return {
        "layer_types": list(model.facts.layer_types),
        "qk_norm": bool(model.qk_norm),
        "q": n["q"].round(6).tolist(),
        "k": n["k"].round(6).tolist(),
    }


def passkey_ids(model: Any, key: int, n: int, depth: float) -> tuple[np.ndarray, np.ndarray]:
    """The prompt with the most filler that keeps prompt + answer within ``n`` tokens, and the answer."""

    def size(repeats: int) -> int:
        p, a = passkey_prompt(key, repeats, depth)
        return len(model.tokenize(p)) + len(model.tokenize(a))

    base, unit = size(0), max(1, size(10) - size(9))
    if base > n:
        raise ValueError(f"length: a passkey prompt needs at least {base} tokens, got {n}")
    repeats = (n - base) // unit
    while repeats > 0 and size(repeats) > n:
        repeats -= 1
    while size(repeats + 1) <= n:
        repeats += 1
    p, a = passkey_prompt(key, repeats, depth)
    return model.tokenize(p), model.tokenize(a)


def passkey(
    model: Any,
    methods: list[str],
    lengths: list[int],
    depths: list[float],
    seed: int,
    log: Any = None,
    reuse: dict[str, list[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """One trial per (method, length, depth): a random 5-digit key (the same for every method at a cell; the keys
    follow ``seed`` in the order lengths × depths). ``reuse``: earlier trials {method: rows}; a row of the same
    method, length, depth and key is kept instead of computed again."""
    rng = np.random.default_rng(seed)
    cells = []
    for n in lengths:
        for d in depths:
            key = int(rng.integers(10_000, 100_000))
            cells.append((n, d, key))
    out: dict[str, Any] = {"trials": {}, "summary": {}}
    for method in methods:
        rows = []
        done = {(r["length"], r["depth"], r["key"]): r for r in (reuse or {}).get(method, [])}
        for n, d, key in cells:
            if (n, d, key) in done:
                rows.append(done[(n, d, key)])
                continue
            p, a = passkey_ids(model, key, n, d)
            t0 = time.time()
            ok, logp = model.passkey(p, a, method)
            rows.append(
                {"length": n, "tokens": int(len(p) + len(a)), "depth": d, "key": key, "correct": ok, "logp": logp}
            )
            if log:
                log(f"passkey {method} @ {n}, depth {d}: {'found' if ok else 'missed'} ({time.time() - t0:.1f} s)")
        out["trials"][method] = rows
        summary = {}
        for n in lengths:
            hits = [r["correct"] for r in rows if r["length"] == n]
            lo, hi = stats.wilson_interval(sum(hits), len(hits))
            summary[str(n)] = {"found": int(sum(hits)), "trials": len(hits), "ci95": [lo, hi]}
        out["summary"][method] = summary
    return out


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m posenc.realmodel", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--device", default="cpu", help="torch device (cpu, cuda, mps); default cpu")
    common.add_argument("--threads", type=int, default=0, help="torch threads on the CPU (0: torch's choice)")
    common.add_argument("--out", required=False, help="write the JSON here (default: standard output)")
    own = argparse.ArgumentParser(add_help=False)
    own.add_argument(
        "--model",
        metavar="PATH",
        help="a .gguf file or an HF model directory (config.json, safetensors, tokenizer); default: "
        f"{MODEL.name} from {MODEL.package}",
    )
    f = sub.add_parser(
        "facts", parents=[own], help="what the model's config declares (layers, heads, rope per layer type)"
    )
    f.add_argument("--out", required=False, help="write the JSON here (default: standard output)")
    p = sub.add_parser("ppl", parents=[common, own], help="perplexity and NLL per chunk, per method and length")
    p.add_argument("--text", help="a UTF-8 text file (default: the stdlib's argparse.py)")
    p.add_argument("--lengths", type=_ints, default=[512, 1024])
    p.add_argument("--methods", type=_methods, default=["default"])
    p.add_argument("--chunk", type=int, default=128, help="tokens per chunk of nll_by_chunk (default 128)")
    n = sub.add_parser(
        "norms", parents=[common, own], help="mean pair norms of q and k as the attention hands them to its rotation"
    )
    n.add_argument("--text", help="a UTF-8 text file (default: the stdlib's argparse.py)")
    n.add_argument("--tokens", type=int, default=256)
    k = sub.add_parser("passkey", parents=[common], help="passkey retrieval grid")
    k.add_argument("--lengths", type=_ints, default=[2048, 4096])
    k.add_argument("--depths", type=_floats, default=[0.1, 0.5, 0.9])
    k.add_argument("--methods", type=_methods, default=["default"])
    k.add_argument("--seed", type=int, default=0)
    sh = sub.add_parser("ship", parents=[common], help="recompute data/realmodel/results.json")
    sh.add_argument(
        "--parts",
        default=",".join(SHIP_PARTS),
        help=f"which parts to recompute, the others kept from the existing file (default: {','.join(SHIP_PARTS)})",
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    if getattr(args, "chunk", 1) < 1:
        _parser().error(f"--chunk must be ≥ 1, got {args.chunk}")
    if args.cmd == "norms" and not 1 <= args.tokens <= MAX_TOKENS:
        _parser().error(f"--tokens must be in [1, {MAX_TOKENS}], got {args.tokens}")
    if args.cmd == "facts":
        try:
            facts = MODEL if args.model is None else read_facts(args.model)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return _write(facts_record(facts), args.out)
    from . import load
    from .model import set_threads

    if args.threads:
        set_threads(args.threads)
    try:
        model = load(getattr(args, "model", None))
        for name in getattr(args, "methods", []):
            model.check_method(name)
        if args.device != "cpu":
            model.to(args.device)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    out_path = Path(args.out) if args.out else None
    if args.cmd == "ship":
        parts = [p.strip() for p in args.parts.split(",") if p.strip()]
        unknown = [p for p in parts if p not in SHIP_PARTS]
        if unknown or not parts:
            _parser().error(f"--parts must name some of {', '.join(SHIP_PARTS)}, got {args.parts!r}")
        return ship(model, argv, out_path or SHIPPED, log, parts)
    ids = model.tokenize(_text(getattr(args, "text", None)))
    if args.cmd == "ppl":
        if max(args.lengths) > ids.size:
            print(f"error: the text has {ids.size} tokens, fewer than --lengths {max(args.lengths)}", file=sys.stderr)
            return 2
        out = {**_header(argv, model, int(ids.size)), "chunk": args.chunk}
        out.update(ppl(model, ids, args.methods, args.lengths, args.chunk, log))
    elif args.cmd == "norms":
        out = {**_header(argv, model, int(min(ids.size, args.tokens))), **norms(model, ids[: args.tokens])}
    else:
        out = {**_header(argv, model), **passkey(model, args.methods, args.lengths, args.depths, args.seed, log)}
    return _write(out, args.out)


def _write(out: dict[str, Any], path: str | None) -> int:
    text = json.dumps(out)
    if path is None:
        print(text)
    else:
        Path(path).write_text(text, encoding="utf-8")
    return 0


def ship(model: Any, argv: list[str], path: Path, log: Any, parts: list[str]) -> int:
    """Recompute ``parts`` of the shipped file, keeping the others; each part records its own command and
    date. Writes after each method, so a run cut short leaves usable data (``"complete": false``)."""
    ids = model.tokenize(default_text(SHIP_TEXT))
    old: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    data: dict[str, Any] = {k: v for k, v in old.items() if k in SHIP_PARTS}
    head = _header(argv, model, int(ids.size))
    data.update({"model": MODEL.name, "text": SHIP_TEXT, "tokens": int(ids.size), "complete": False})
    path.parent.mkdir(parents=True, exist_ok=True)

    def save() -> None:
        data["complete"] = all(data.get(p, {}).get("complete") for p in SHIP_PARTS)
        path.write_text(json.dumps(data), encoding="utf-8")

    stamp = {k: head[k] for k in ("command", "date", "device")}
    if "norms" in parts:
        t0 = time.time()
        data["norms"] = {**stamp, "tokens": SHIP_NORM_TOKENS, **norms(model, ids[:SHIP_NORM_TOKENS]), "complete": True}
        data["norms"]["seconds"] = round(time.time() - t0)
        save()
    if "long" in parts:
        t0 = time.time()
        data["long"] = {
            **stamp,
            "length": SHIP_LENGTH,
            "chunk": SHIP_CHUNK,
            "results": {},
            "rope": {},
            "complete": False,
        }
        for method in SHIP_PPL_METHODS:
            part = ppl(model, ids, [method], [SHIP_LENGTH], SHIP_CHUNK, log)
            data["long"]["results"].update(part["results"])
            data["long"]["rope"].update(part["rope"])
            save()
        data["long"].update(complete=True, seconds=round(time.time() - t0))
        save()
    if "passkey" in parts:
        t0 = time.time()
        earlier = (old.get("passkey") or {}).get("trials", {})  # cells already computed are kept (same keys)
        data["passkey"] = {
            **stamp,
            "lengths": list(SHIP_PASSKEY_LENGTHS),
            "depths": list(SHIP_PASSKEY_DEPTHS),
            "trials": {},
            "summary": {},
            "complete": False,
        }
        for method in SHIP_PASSKEY_METHODS:
            part = passkey(
                model, [method], list(SHIP_PASSKEY_LENGTHS), list(SHIP_PASSKEY_DEPTHS), 0, log, reuse=earlier
            )
            data["passkey"]["trials"].update(part["trials"])
            data["passkey"]["summary"].update(part["summary"])
            save()
        kept = sum(r in earlier.get(m, []) for m, rows in data["passkey"]["trials"].items() for r in rows)
        if kept:  # say which trials came from the earlier run (its command and date)
            prev = old["passkey"]
            data["passkey"]["kept"] = {"trials": kept, "command": prev.get("command"), "date": prev.get("date")}
        data["passkey"].update(complete=True, seconds=round(time.time() - t0))
        save()
    log(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
