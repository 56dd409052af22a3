"""The Model configs page (pages/9_Model_configs.py): its parameters, snippet, tour steps, deep link and bench settings."""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Mapping
from typing import Any

from explorer.pagespec import BenchSettings, DeepLink, Page
from explorer.paramspec import Param
from explorer.snippets import HEADER, fill
from explorer.vocabulary import ALPHA_STOPS
from posenc.models import PRESETS


def snippet(v: Mapping[str, Any]) -> str:
    text = HEADER + fill(
        """
head_dim, base, alpha = $head_dim, $base, $alpha
new_base = posenc.ntk_alpha_to_base(alpha, head_dim, base=base)  # b' = b * alpha^(d / (d - 2))
assert np.isclose(posenc.base_to_ntk_alpha(new_base, head_dim, base=base), alpha)
theta = posenc.inverse_frequencies(head_dim, base=base)
wavelength = 2 * np.pi / theta                                            # as trained
wavelength_ntk = 2 * np.pi / posenc.inverse_frequencies(head_dim, base=new_base)  # NTK-aware
wavelength_linear = wavelength * alpha                                    # linear (PI), factor alpha
print(f"NTK alpha {alpha:g} = rope_theta {new_base:,.2f}")
print(f"slowest pair: {wavelength[-1]:,.0f} -> NTK {wavelength_ntk[-1]:,.0f}, linear {wavelength_linear[-1]:,.0f} tokens")
print(f"fastest pair: {wavelength[0]:.3f} -> NTK {wavelength_ntk[0]:.3f}, linear {wavelength_linear[0]:.3f} tokens")
""",
        head_dim=int(v["head_dim"]),
        base=float(v["base"]),
        alpha=float(v["alpha"]),
    )
    if v.get("block") is not None:
        if v.get("layer") is not None:  # a config whose layers differ: the block of the chosen layer
            text += f'\n# Decoder layer {int(v["layer"])}\'s rope (the layer chosen under "Open it on the other pages")'
        text += fill(
            """
# The pasted config's rope block (as posenc.parse_model_config normalised it)
block = $block
inv_freq, attention_factor = posenc.rope_inverse_frequencies(block, $config_head_dim,
                                                             max_position_embeddings=$max_pos)
print(f"config: {inv_freq.size} pairs, attention factor {attention_factor:.4f}")
""",
            block=dict(v["block"]),
            config_head_dim=int(v["config_head_dim"]),
            max_pos=int(v["max_position_embeddings"]),
        )
    return text


#: Longest encoded config a link may carry (characters of the `cfg` parameter): browsers and servers
#: accept URLs far longer, but a link is meant to be pasted into chat; a config.json compresses ~3×.
MAX_LINK_CHARS = 8000
#: Longest decoded text accepted from a link (posenc.config.MAX_TEXT_BYTES is the parser's own limit).
MAX_DECODED_BYTES = 256 * 1024
_PREFIX = "z"  # the encoding's version: zlib + base64url without padding

#: The example select's options (none, two special ones, then every preset) and what each shows (and puts in a link).
EXAMPLE_LABELS: dict[str, str] = {
    "none": "(choose an example)",
    "rope-block": "A rope block on its own (Llama 3.1's)",
    "broken": "A broken config (to see the messages)",
    **{key: f"{preset.name} (its published config)" for key, preset in PRESETS.items()},
}
#: What each example puts in the text box ("none" puts nothing): a preset's published config (its
#: position-related fields) as the file writes them.
EXAMPLE_TEXTS: dict[str, str] = {
    "rope-block": json.dumps(PRESETS["llama3.1-8b"].config["rope_scaling"]),  # the preset's own block
    "broken": """{
  "model_type": "llama",
  "head_dim": 128,
  "max_position_embeddings": 131072,
  "rope_theta": "500000",
  "rope_scaling": {
    "rope_type": "yarn",
    "factor": 0,
    "beta_fast": 1,
    "beta_slow": 32,
    "low_freq_factor": 1.0
  }
}""",
    **{key: json.dumps(preset.config, indent=2) for key, preset in PRESETS.items()},
}


class LinkTextError(ValueError):
    """The `cfg` value of a link cannot be decoded; the message says why in plain words."""


def encode_text(text: str) -> str:
    """The pasted text as one URL-safe value: "z" + base64url(zlib(utf-8)), no padding."""
    packed = zlib.compress(text.encode("utf-8"), 9)
    return _PREFIX + base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def decode_text(value: str) -> str:
    """Inverse of :func:`encode_text`; LinkTextError (never another exception) for anything else."""
    if not isinstance(value, str) or not value.startswith(_PREFIX):
        raise LinkTextError("is not a config encoded by this page (it should start with 'z')")
    if len(value) > MAX_LINK_CHARS:
        raise LinkTextError(f"is {len(value):,} characters long; the limit is {MAX_LINK_CHARS:,}")
    body = value[len(_PREFIX) :]
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_DECODED_BYTES + 1)
    except (binascii.Error, ValueError, zlib.error):
        raise LinkTextError("could not be decoded (the link was cut or changed)") from None
    if len(raw) > MAX_DECODED_BYTES or inflater.unconsumed_tail:
        raise LinkTextError(f"decodes to more than {MAX_DECODED_BYTES:,} bytes")
    if not inflater.eof:
        raise LinkTextError("could not be decoded (the link was cut or changed)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LinkTextError("does not decode to UTF-8 text") from None


PAGE = Page(
    script="pages/9_Model_configs.py",
    slug="configs",
    title="Model configs",
    icon=":material/settings_suggest:",
    params=(
        Param(
            "conv_from",
            "I have",
            "radio",
            "ntk_alpha",
            options=("ntk_alpha", "rope_theta", "linear_factor"),
            help="**ntk_alpha**: an NTK-aware alpha α (static NTK scaling; HF transformers has no rope_type for "
            "it: a config writes it as rope_type default with the larger rope_theta b·α^(d/(d−2))). "
            "**rope_theta**: a new, larger base. **linear_factor**: a Position Interpolation factor s "
            "(rope_type linear).",
        ),
        Param(
            "ntk_alpha",
            "Alpha α (or linear factor s)",
            "number",
            4.0,
            min=0.01,
            max=1000.0,
            step=0.01,
            fmt="%.2f",
            stops=ALPHA_STOPS,
            help="NTK alpha α, or the linear factor s when converting from a linear factor.",
        ),
        Param(
            "new_theta",
            "New rope_theta b′",
            "number",
            40000.0,
            min=1.0,
            max=1e12,
            step=1.0,
            fmt="%.0f",
            help="The enlarged base a model (or a recipe) uses instead of the trained one.",
        ),
        Param(
            "cfg",
            "Pasted config (in the link)",
            "text",
            "",
            max=MAX_LINK_CHARS,
            help="The pasted config.json, zlib-compressed and base64url-encoded (explorer.site.configs.encode_text).",
        ),
        Param(
            "cfg_example",
            "Start from an example",
            "select",
            "none",
            options=tuple(EXAMPLE_LABELS),
            labels=EXAMPLE_LABELS,
            aliases={key: (preset.name,) for key, preset in PRESETS.items()},  # ?cfg_example=Gemma 3 4B
            help="Loads an example into the text box; the text box (cfg) wins when the link has both.",
        ),
        Param(
            "cfg_head_dim",
            "head_dim",
            "number",
            128,
            min=2,
            max=1024,
            step=2,
            help="The head size used when the pasted text does not give it: a rope block on its own, or a "
            "config with neither head_dim nor hidden_size and num_attention_heads.",
        ),
        Param(
            "cfg_max_pos",
            "max_position_embeddings",
            "number",
            4096,
            min=1,
            max=10_000_000,
            help="The max_position_embeddings used when the pasted text does not give it: a rope block on "
            "its own, or a config with neither max_position_embeddings nor n_positions.",
        ),
    ),
    snippet=snippet,
    deep_link=DeepLink(
        {"head_dim": 96, "base": 500000, "conv_from": "rope_theta", "new_theta": 2000000},
        slider="head_dim",
        chart=0,
    ),
    bench=BenchSettings(
        max_query={"head_dim": "256", "base": "1000000", "conv_from": "rope_theta", "new_theta": "1000000000000"},
    ),
)
