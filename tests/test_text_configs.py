"""The Model configs page's sentences (explorer/text/configs.py) against the values they describe: the
problems counted in a parsed config, the numbers a config.json states (read here with `json`), the NTK
base b′ = b·α^(d/(d−2)) and the wavelengths 2π·b^(2j/d) computed here by hand, and the converter's
computations (explorer/compute/configs.py) that feed them checked against the same."""

from __future__ import annotations

import json
import math
import re
from types import SimpleNamespace

import pytest

from explorer.compute import configs as compute
from explorer.site import configs as site
from explorer.text import configs as text
from posenc.config import ERROR, parse_model_config

NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?!\w)")


def numbers(sentence: str) -> list[float]:
    return [float(n.replace(",", "")) for n in NUMBER.findall(sentence)]


def parse(config: dict | str, **fallbacks) -> object:
    return parse_model_config(config if isinstance(config, str) else json.dumps(config), **fallbacks)


def test_the_verdict_counts_the_problems():
    broken = parse(site.EXAMPLE_TEXTS["broken"])
    errors = sum(p.severity == ERROR for p in broken.problems)
    fine, line = text.verdict(broken)
    assert not fine and numbers(line) == [errors, len(broken.problems) - errors] == [2, 2]
    only_a_warning = parse({"head_dim": 128, "rope_scaling": {"rope_type": "yarn", "factor": 4, "beta_fast": 1}})
    fine, line = text.verdict(only_a_warning)
    assert not fine and line.startswith("**Readable") and numbers(line) == [len(only_a_warning.problems)] == [1]
    fine, line = text.verdict(parse(site.EXAMPLE_TEXTS["llama3.1-8b"]))
    assert fine and line == "No problems: read as a config."


def test_problems_come_errors_first_each_next_to_its_escaped_key():
    broken = parse(site.EXAMPLE_TEXTS["broken"])
    found = text.problems(broken)
    assert [is_error for is_error, _ in found] == [True, True, False, False]
    keys = sorted(p.key for p in broken.problems if p.severity == ERROR)
    assert sorted(body.split("**")[1].replace("\\", "") for _, body in found[:2]) == keys
    hostile = text.problems(parse({"rope_type": "yarn", "factor": 4.0, "<img src=x>": 1}))  # an unknown key
    assert (
        hostile
        and all(re.search(r"(?<!\\)[<>]", body) is None for _, body in hostile)
        and any("\\<img" in body for _, body in hostile)
    )


def test_the_metrics_state_the_configs_numbers():
    config = json.loads(site.EXAMPLE_TEXTS["llama3.1-8b"])
    (sizes, method) = text.reading_metrics(parse(config))
    by_label = {label: value for label, value, _ in sizes + method}
    assert numbers(by_label["Head dim (rotated)"]) == [config["head_dim"]]
    assert numbers(by_label["rope_theta (base)"]) == [config["rope_theta"]]
    assert numbers(by_label["max_position_embeddings"]) == [config["max_position_embeddings"]]
    assert numbers(by_label["Trained length L"]) == [config["rope_scaling"]["original_max_position_embeddings"]]
    assert by_label["Method (rope_type)"] == config["rope_scaling"]["rope_type"]
    assert by_label["Partial rotary factor"] == "1" and by_label["Read as"] == "config"
    partial = {
        label: value
        for label, value, _ in text.reading_metrics(parse({"head_dim": 128, "partial_rotary_factor": 0.5}))[0]
    }
    assert numbers(partial["Head dim (rotated)"]) == [128 * 0.5, 128]  # "64 of 128"
    block = {label: value for label, value, _ in text.reading_metrics(parse({"rope_type": "default"}))[0]}
    assert block["Trained length L"] == "—"  # the text does not say it


def test_layer_groups_count_and_list_the_layers():
    line = text.layer_groups(
        [(("RoPE, base 10,000", "sliding (1,024 tokens)"), list(range(12))), (("NoPE", "full"), [5])]
    )
    first, second = line.split("\n")
    assert numbers(first)[:11] == [12, *range(10)] and ", …)" in first  # 12 layers, the first ten listed
    assert numbers(second) == [1, 5]
    assert "\\_" in text.layer_groups([(("RoPE_x", "full"), [0])])  # the labels are escaped


def test_the_temperature_formula_states_the_configs_scales():
    assert "1 + 0.1·ln(⌊(pos+1)/8192⌋ + 1)" in text.temperature({"attn_scale": 0.1, "floor_scale": 8192.0})


@pytest.mark.parametrize("alpha", [4.0, 0.5, 1.0])
def test_the_converter_says_what_ntk_does_to_the_base_and_the_wavelengths(alpha):
    d, b = 128, 10000.0
    new_base = b * alpha ** (d / (d - 2))  # by hand
    assert compute.convert("ntk_alpha", alpha, d, b) == pytest.approx((alpha, new_base), rel=1e-12)
    assert compute.convert("rope_theta", new_base, d, b) == pytest.approx((alpha, new_base), rel=1e-12)
    _, _, slowest, fastest = compute.wavelength_ratios(d, b, new_base)
    lam = lambda base, j: 2 * math.pi * base ** (2 * j / d)  # noqa: E731 (λ_j = 2π / θ_j)
    assert (slowest, fastest) == pytest.approx((lam(new_base, d // 2 - 1) / lam(b, d // 2 - 1), 1.0), rel=1e-12)
    shown = {label: value for label, value, _ in text.converter_metrics(alpha, new_base, slowest, fastest)}
    assert shown["NTK alpha α"] == f"{alpha:.6g}" and numbers(shown["rope_theta b′"]) == [round(new_base, 2)]
    assert numbers(shown["Slowest pair's wavelength"]) == [alpha] and numbers(shown["Fastest pair's wavelength"]) == [1]
    words = text.wavelength_words(alpha)
    verb = "raises" if new_base > b else "lowers" if new_base < b else "keeps"
    assert f"NTK {verb} the base" in words["subtitle"] and f"s = {alpha:g} multiplies" in words["subtitle"]
    assert f"α = {alpha:g}" in words["title"]
    assert ("stretches the slowest" in words["title"]) == (alpha > 1)
    assert ("shrinks the slowest" in words["title"]) == (alpha < 1)
    assert f"α = {alpha:g} as rope_type `default` with the base b·α^(d/(d−2)) = {new_base:,.2f}" in text.ntk_in_config(
        alpha, new_base
    )
    linear = text.converter_notices(alpha)[1]
    if alpha == 1:
        assert linear.startswith("At α = 1 the three lines coincide")
    else:  # a linear factor s turns pair 0 by 1/s rad per token
        assert numbers(linear.split("to ")[-1])[-1] == pytest.approx(1 / alpha if alpha < 1 else alpha, rel=1e-4)


def test_a_base_not_above_one_is_named():
    assert text.not_a_base("rope_theta", 0.0, 10000.0, 1.0).startswith("The new base b′ = 1 is not above 1")
    d, b, alpha = 4, 2.0, 0.01
    _, new_base = compute.convert("ntk_alpha", alpha, d, b)
    assert new_base == pytest.approx(b * alpha ** (d / (d - 2)))  # 2 · 0.01² = 0.0002
    warning = text.not_a_base("ntk_alpha", alpha, b, new_base)
    assert warning.startswith(f"With α = 0.01 on base 2 the new base b′ = {b * alpha**2:.3g} is not above 1")


def test_link_messages():
    assert numbers(text.too_long(12_345, 8000))[:2] == [12345, 8000]
    assert "\\<b\\>" in text.link_problem("<b>")


def test_what_the_open_buttons_carry():
    block = parse(site.EXAMPLE_TEXTS["rope-block"], fallback_head_dim=96, fallback_max_position_embeddings=32768)
    settings = compute.open_settings(block, dict(block.rope_parameters), 4096)
    assert settings["head_dim"] == 96 and settings["max_position_embeddings"] == 32768
    assert settings["rope_theta"] == 10000.0  # no rope_theta in the block: HF's default base
    bare = SimpleNamespace(max_position_embeddings=None, original_max_position_embeddings=None)
    assert compute.max_positions(bare, 4096) == 4096
    table = compute.presets_table()
    assert list(table.columns) == [
        "model",
        "head dim",
        "rotated dims",
        "rope_theta",
        "max positions",
        "layout",
        "rope_type",
    ]


def test_the_layer_charts_title_counts_the_layers():
    assert text.layers_title(48) == "What each of the 48 layers does with positions"
