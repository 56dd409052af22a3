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
import os
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import stats
from .analysis import chunk_means
from .facts import MAX_TOKENS, MODEL, ModelFacts, read_facts
from .methods import parse_method
from .shipped import SHIPPED
from .texts import default_text, passkey_prompt, read_text

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
SHIP_PASSKEY_KEYS = 4  # keys per depth: 4 × 5 depths = 20 keys per cell (the first round: the earlier run's keys)
SHIP_PARTS = ("norms", "long", "texts", "passkey")
#: the content control on the ``long`` part's text from its shipped chunks: one pass of the trained length per rope
SHIP_LONG_CONTROL = ("default", "yarn:factor=2")
#: long context on more texts, and the content control: the last SHIP_TAIL tokens of the 16,384 scored twice,
#: past the trained length in the full pass and inside it (a pass over the last 8,192 tokens alone)
_FIRST = ("default", "yarn:factor=2")  # computed first on every text: the control's pair
SHIP_TEXTS = {
    "pydoc_data.topics": _FIRST + tuple(m for m in SHIP_PPL_METHODS if m not in _FIRST),
    "typing.py": _FIRST + tuple(m for m in SHIP_PPL_METHODS if m not in _FIRST),
}  # argparse.py: every rope in the "long" part, its control from that part's chunks ("control")
SHIP_TAIL = 4096
SHIP_BLOCK = 16  # tokens per stored mean of the control's per-token losses
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
        "load": [round(x, 2) for x in os.getloadavg()],  # the machine's load average (1, 5, 15 min) at the start
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


def _ppl_record(nll: np.ndarray, chunk: int) -> dict[str, Any]:
    """Perplexity, mean NLL and NLL per ``chunk`` tokens of one pass's per-token losses, and how many were scored."""
    return {
        "ppl": float(np.exp(nll.mean())),
        "mean_nll": float(nll.mean()),
        "nll_by_chunk": chunk_means(nll, chunk),
        "scored": int(nll.size),
    }


def ppl(model: Any, ids: np.ndarray, methods: list[str], lengths: list[int], chunk: int, log: Any = None) -> dict:
    results: dict[str, dict[str, Any]] = {}
    rope: dict[str, dict[str, Any]] = {}
    for method in methods:
        results[method] = {}
        by_len = {}
        for n in lengths:
            t0 = time.time()
            results[method][str(n)] = _ppl_record(model.nll(ids[:n], method), chunk)
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


def passkey_cells(lengths: Sequence[int], depths: Sequence[float], seed: int, keys_per_depth: int = 1) -> list:
    """(length, depth, key) for every trial: round r draws a random 5-digit key per (length, depth) from seed
    ``seed + r`` in the order lengths × depths (round 0 is the single round of earlier runs); listed length by
    length, round by round."""
    rounds = []
    for r in range(keys_per_depth):
        rng = np.random.default_rng(seed + r)
        rounds.append({(n, d): int(rng.integers(10_000, 100_000)) for n in lengths for d in depths})
    return [(n, d, rounds[r][(n, d)]) for n in lengths for r in range(keys_per_depth) for d in depths]


def passkey_trial(model: Any, method: str, n: int, d: float, key: int, log: Any = None) -> dict[str, Any]:
    p, a = passkey_ids(model, key, n, d)
    t0 = time.time()
    ok, logp = model.passkey(p, a, method)
    if log:
        log(f"passkey {method} @ {n}, depth {d}: {'found' if ok else 'missed'} ({time.time() - t0:.1f} s)")
    return {"length": n, "tokens": int(len(p) + len(a)), "depth": d, "key": key, "correct": ok, "logp": logp}


def passkey_summary(trials: dict[str, list[dict[str, Any]]], lengths: Sequence[int]) -> dict[str, Any]:
    """{method: {length: {found, trials, ci95 (Wilson)}}} over the lengths each method has trials at."""
    out: dict[str, Any] = {}
    for method, rows in trials.items():
        summary = {}
        for n in lengths:
            hits = [r["correct"] for r in rows if r["length"] == n]
            if hits:
                lo, hi = stats.wilson_interval(sum(hits), len(hits))
                summary[str(n)] = {"found": int(sum(hits)), "trials": len(hits), "ci95": [lo, hi]}
        out[method] = summary
    return out


def passkey(
    model: Any,
    methods: list[str],
    lengths: list[int],
    depths: list[float],
    seed: int,
    log: Any = None,
    keys_per_depth: int = 1,
) -> dict[str, Any]:
    """``keys_per_depth`` trials per (method, length, depth), each a random 5-digit key (the same keys for every
    method: :func:`passkey_cells`)."""
    trials: dict[str, list[dict[str, Any]]] = {m: [] for m in methods}
    for n, d, key in passkey_cells(lengths, depths, seed, keys_per_depth):
        for method in methods:
            trials[method].append(passkey_trial(model, method, n, d, key, log))
    return {"trials": trials, "summary": passkey_summary(trials, lengths)}


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
    k.add_argument("--keys", type=int, default=1, help="keys per (length, depth) cell (default 1)")
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
    from .model import load, set_threads  # torch: only for the commands that run the model

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
        unknown = [p for p in parts if p not in (*SHIP_PARTS, "control")]
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
        out = {
            **_header(argv, model),
            **passkey(model, args.methods, args.lengths, args.depths, args.seed, log, args.keys),
        }
    return _write(out, args.out)


def _write(out: dict[str, Any], path: str | None) -> int:
    text = json.dumps(out)
    if path is None:
        print(text)
    else:
        Path(path).write_text(text, encoding="utf-8")
    return 0


def control(model: Any, ids: np.ndarray, method: str, *, n: int, tail: int, block: int, log: Any = None) -> tuple:
    """The long pass over ``ids[:n]`` (its perplexity record) and the content control: the last ``tail`` tokens'
    losses in that pass (past the trained length) and in a pass over the last ``trained`` tokens alone (the same
    tokens with the same ``trained − tail`` tokens before them, inside the trained length), as means of ``block``
    consecutive tokens."""
    trained = model.facts.trained_length
    t0 = time.time()
    full = model.nll(ids[:n], method)
    record = _ppl_record(full, SHIP_CHUNK)
    t1 = time.time()
    inside = model.nll(ids[n - trained : n], method)
    past_tail, inside_tail = full[n - tail - 1 : n - 1], inside[trained - tail - 1 : trained - 1]
    assert past_tail.size == inside_tail.size == tail
    if log:
        log(f"{method} @ {n}: ppl {record['ppl']:.3f} ({t1 - t0:.1f} s); inside pass ({time.time() - t1:.1f} s)")
    pair = {"past": [round(x, 5) for x in chunk_means(past_tail, block)]}
    pair["inside"] = [round(x, 5) for x in chunk_means(inside_tail, block)]
    return record, pair


def ship_texts(model: Any, data: dict[str, Any], stamp: dict[str, Any], save: Any, log: Any) -> None:
    """Long context on :data:`SHIP_TEXTS` with the content control, saved after each rope; a (text, rope) the
    shipped part already holds is kept, and each run's command and date are listed under ``runs``."""
    t0 = time.time()
    n, trained = SHIP_LENGTH, model.facts.trained_length
    part = data.get("texts") or {}
    part = data["texts"] = {
        **stamp,
        **{k: v for k, v in part.items() if k in ("command", "date", "device", "load", "runs", "texts")},
        "length": n,
        "chunk": SHIP_CHUNK,
        "tail": SHIP_TAIL,
        "block": SHIP_BLOCK,
        "inside": [trained - SHIP_TAIL, trained],  # where the control's tokens sit in the inside pass
        "past": [n - SHIP_TAIL, n],  # and in the long pass
        "complete": False,
    }
    part.setdefault("runs", []).append(stamp)
    ids = {name: model.tokenize(read_text(name)) for name in SHIP_TEXTS}
    for name in SHIP_TEXTS:
        entry = part.setdefault("texts", {}).setdefault(name, {})
        entry.update(tokens=int(ids[name].size))
        entry.setdefault("results", {})
        entry.setdefault("control", {})
    # rope by rope across the texts (each text's first rope, then each one's second, …): a run cut short
    # leaves every text with the same ropes
    for i in range(max(len(m) for m in SHIP_TEXTS.values())):
        for name, methods in SHIP_TEXTS.items():
            entry = part["texts"][name]
            if i >= len(methods) or (methods[i] in entry["results"] and methods[i] in entry["control"]):
                continue
            record, pair = control(model, ids[name], methods[i], n=n, tail=SHIP_TAIL, block=SHIP_BLOCK, log=log)
            entry["results"][methods[i]] = {str(n): record}
            entry["control"][methods[i]] = pair
            save()
    part.update(complete=True, seconds=round(time.time() - t0))
    save()


def ship_long_control(
    model: Any, ids: np.ndarray, data: dict[str, Any], stamp: dict[str, Any], save: Any, log: Any
) -> None:
    """The content control on the ``long`` part's text without its long pass again: the past side is that pass's
    shipped chunk means over the last quarter (chunks L/c … 2L/c − 1), the inside side a pass over the last L tokens
    alone, its losses of the same tokens cut at the same chunk bounds. Stored in the ``texts`` part beside the
    others, with its own block (the chunk) and positions."""
    long, trained = data["long"], model.facts.trained_length
    n, chunk = int(long["length"]), int(long["chunk"])
    first = (n - trained // 2) // chunk  # the chunk where the last trained/2 tokens start
    part = data.setdefault("texts", {"texts": {}, "complete": False})
    entry = part.setdefault("texts", {}).setdefault(
        data["text"], {"tokens": int(ids.size), "results": {}, "control": {}}
    )
    entry["control_from_long"] = {
        **stamp,
        "block": chunk,
        "past": [first * chunk + 1, n - 1],  # token positions (0-based, inclusive) of the chunks used
        "inside": [first * chunk + 1 - (n - trained), trained - 1],
    }
    for method in SHIP_LONG_CONTROL:
        past = long["results"][method][str(n)]["nll_by_chunk"][first:]
        t0 = time.time()
        inside = model.nll(ids[n - trained : n], method)  # inside[j]: the loss of token n − trained + j + 1
        start = first * chunk + 1 - (n - trained) - 1
        pair = {"past": past, "inside": chunk_means(inside[start:], chunk), "block": chunk}
        assert len(pair["past"]) == len(pair["inside"])
        entry.setdefault("control", {})[method] = pair
        if log:
            log(f"control {method} on {data['text']}: inside pass ({time.time() - t0:.1f} s)")
        save()


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
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)  # never a half-written file, even if the run is stopped

    stamp = {k: head[k] for k in ("command", "date", "device", "load")}
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
    if "texts" in parts:
        ship_texts(model, data, stamp, save, log)
    if "control" in parts:
        ship_long_control(model, ids, data, stamp, save, log)
    if "passkey" in parts:
        t0 = time.time()
        prev = old.get("passkey") or {}
        earlier = prev.get("trials", {})  # trials already computed are kept (same method, length, depth, key)
        data["passkey"] = {
            **stamp,
            "lengths": list(SHIP_PASSKEY_LENGTHS),
            "depths": list(SHIP_PASSKEY_DEPTHS),
            "keys_per_depth": SHIP_PASSKEY_KEYS,
            "trials": {m: [] for m in SHIP_PASSKEY_METHODS},
            "summary": {},
            "complete": False,
        }
        if prev.get("kept"):
            data["passkey"]["kept_earlier"] = prev["kept"]
        done = {m: {(r["length"], r["depth"], r["key"]): r for r in rows} for m, rows in earlier.items()}
        kept = 0
        cells = passkey_cells(SHIP_PASSKEY_LENGTHS, SHIP_PASSKEY_DEPTHS, 0, SHIP_PASSKEY_KEYS)
        ran = [c for c in cells if all(c in done.get(m, {}) for m in SHIP_PASSKEY_METHODS)]
        # the trials already run first; then past the trained length first, shortest first, so that a run cut
        # short has the cells the comparisons need
        trained = model.facts.trained_length
        todo = sorted((c for c in cells if c not in ran), key=lambda c: (c[0] <= trained, c[0]))
        for i, (n, d, key) in enumerate(ran + todo):
            for method in SHIP_PASSKEY_METHODS:  # the methods in turn on each key: the pairs complete together
                row = done.get(method, {}).get((n, d, key))
                if row is None:
                    row = passkey_trial(model, method, n, d, key, log)
                else:
                    kept += 1
                data["passkey"]["trials"][method].append(row)
            if i + 1 < len(ran):
                continue  # save once the kept trials are in, then after each new key
            data["passkey"]["summary"] = passkey_summary(data["passkey"]["trials"], SHIP_PASSKEY_LENGTHS)
            if kept:  # say which trials came from the earlier run (its command and date)
                data["passkey"]["kept"] = {"trials": kept, "command": prev.get("command"), "date": prev.get("date")}
            data["passkey"]["seconds"] = round(time.time() - t0)
            save()
        data["passkey"].update(complete=True, seconds=round(time.time() - t0))
        save()
    log(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
