""" "Reproduce in Python" (each page's declared `snippet`, explorer/site/): every page's snippet runs and gives the page's numbers.

Each test runs a page with non-default settings in AppTest, takes the snippet the page shows in
its "Reproduce in Python" expander, executes it in a fresh namespace (as a user would), and
compares its variables with the numbers the page displays (metrics, tables, chart data).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path

import _chartspec as cs
import numpy as np
import pytest
from _apptest import run_page
from streamlit.testing.v1 import AppTest

from explorer import manifest, snippets
from explorer.text import compare as compare_text

ROOT = Path(__file__).resolve().parent.parent


def run(path: str, query: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / path), default_timeout=180)
    for page in (p.slug for p in manifest.PAGES):  # open "Reproduce in Python" (it is drawn only while open)
        at.session_state[f"code_{page}"] = True
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return run_page(str(ROOT / path), at)


def page_snippet(at: AppTest) -> str:
    codes = [c for c in at.code if c.language == "python"]
    assert len(codes) == 1, "one 'Reproduce in Python' snippet per page"
    assert any(e.label == "Reproduce in Python" for e in at.expander)
    return codes[0].value


def execute(code: str) -> dict:
    namespace: dict = {"__name__": "__snippet__"}
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(code, "<snippet>", "exec"), namespace)
    namespace["__stdout__"] = out.getvalue()
    assert namespace["__stdout__"].strip(), "a snippet prints its numbers"
    return namespace


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


# ------------------------------------------------------------------------------------ pure
def test_literals_round_trip():
    for value in (0.1, 1e-300, 2.0, -3, "it's", True, None, [1.5, 2], (1,), {"a": (1.0, 2.0)}):
        assert eval(snippets.lit(value)) == value
    arr = np.array([0.1, 1 / 3, -2.5e-17])
    assert np.array_equal(eval(snippets.lit(arr), {"np": np}), arr)


def test_unknown_page_is_an_error():
    with pytest.raises(KeyError, match="no page 'nope'"):
        manifest.page("nope")


# ------------------------------------------------------------------------------ per page
def test_home():
    at = run(
        "app.py",
        {
            "sentence": "the quick brown fox jumps over the lazy dog",
            "home_pe": "rope",
            "seed": "3",
            "shuffle_seed": "2",
            "d_model": "32",
        },
    )
    ns = execute(page_snippet(at))

    def fmt_gap(gap: float) -> str:
        return f"{gap:.1e}" if gap < 1e-3 else f"{gap:.3f}"

    shown = metrics(at)
    assert shown["Output difference"] == fmt_gap(ns["output_gap"])
    assert shown["Attention difference"] == fmt_gap(ns["weight_gap"])
    assert ns["words"] == "the quick brown fox jumps over the lazy dog".split()


@pytest.mark.parametrize("pe", ["none", "sinusoidal", "learned"])
def test_home_other_signals(pe):
    at = run("app.py", {"home_pe": pe})
    ns = execute(page_snippet(at))
    shown = metrics(at)
    gap = ns["output_gap"]
    assert shown["Output difference"] == (f"{gap:.1e}" if gap < 1e-3 else f"{gap:.3f}")


def test_sinusoidal():
    query = {
        "seq_len": "300",
        "d_model": "96",
        "base": "500",
        "layout_sin": "concatenated",
        "zoom_p0": "40",
        "zoom_np": "20",
        "zoom_d0": "10",
        "zoom_nd": "12",
    }
    at = run("pages/1_Sinusoidal_heatmap.py", {**query, "sin_view": "Similarity"})
    ns = execute(page_snippet(at))
    shown = metrics(at)
    closest = next(v for label, v in shown.items() if label.startswith("Closest"))
    assert closest == f"{ns['distance'].min():.4g}"
    assert shown["…they are k apart"] == f"k = {int(ns['k'][ns['distance'].argmin()])}"
    numbers = run("pages/1_Sinusoidal_heatmap.py", {**query, "sin_view": "Numbers"})
    assert page_snippet(numbers) == page_snippet(at)  # the snippet does not depend on the tab
    table = numbers.dataframe[0].value
    assert table["position"].tolist() == list(range(40, 60))
    np.testing.assert_array_equal(table.drop(columns="position").to_numpy(), ns["window"])


def test_clocks():
    at = run("pages/2_Clock_hands.py", {"d_model": "64", "base": "1000", "m": "77", "n_clocks": "5"})
    ns = execute(page_snippet(at))
    table = at.dataframe[0].value
    pairs = ns["pairs"]
    assert table["pair j"].tolist() == pairs.tolist()
    np.testing.assert_array_equal(table["θ_j (rad/token)"], ns["theta"][pairs])
    np.testing.assert_array_equal(table["λ_j (tokens)"], ns["wavelengths"][pairs])
    np.testing.assert_array_equal(table["angle p·θ_j (rad)"], ns["angle"][pairs])
    np.testing.assert_array_equal(table["sin = x"], ns["sin"][pairs])
    np.testing.assert_array_equal(table["cos = y"], ns["cos"][pairs])


@pytest.mark.parametrize(
    "query",
    [
        {"m": "40", "n": "7", "j": "3", "head_dim": "32", "base": "100", "layout_rope": "interleaved"},
        {"vec_input": "polar", "q_angle": "-120", "q_len": "2.5", "k_angle": "45", "k_len": "0.3", "m": "1000"},
    ],
)
def test_rope(query):
    at = run("pages/3_RoPE_rotation.py", query)
    ns = execute(page_snippet(at))
    shown = metrics(at)
    assert shown["⟨R_m q, R_n k⟩"] == f"{ns['score']:.6f}"
    assert shown["⟨q, R_(n−m) k⟩"] == f"{ns['score_rel']:.6f}"
    assert shown["measured ∠ after"] == f"{np.degrees(ns['angles'].measured):.2f}°"
    assert shown["(m − n)·θ_j"] == f"{np.degrees(ns['angles'].offset):.2f}°"
    assert shown[f"‖q‖ after (m = {ns['m']})"] == f"{np.hypot(*ns['q_rot']):.6f}"
    assert ns["R"].shape == (ns["head_dim"], ns["head_dim"])


@pytest.mark.parametrize(
    "query",
    [
        {"seed": "5", "head_dim": "16", "seq_len": "40", "shift_t": "30", "base": "1000", "table_len": "64"},
        {
            "qk_source": "typed",
            "q_text": "1, 2, 3, 4",
            "k_text": "0.5, -1, 2, 0",
            "score_dtype": "float32",
            "layout_sin": "concatenated",
        },
    ],
)
def test_invariance(query):
    at = run("pages/4_Relative_invariance.py", query)
    ns = execute(page_snippet(at))
    shown = metrics(at)
    dtype = ns["dtype"]
    assert shown[f"RoPE ({dtype})"] == f"{ns['rope_dev']:.2e}"
    assert shown["sinusoidal, added"] == f"{ns['sinusoidal_dev']:.2e}"
    assert shown["pass mark"] == f"{ns['tolerance']:.1e}"
    if ns["learned_dev"] is None:
        assert shown["learned table, added"] == "no row"
    else:
        assert shown["learned table, added"] == f"{ns['learned_dev']:.2e}"
    # The shift test sits above the tabs: the same numbers and snippet whichever tab is open.
    decay = run("pages/4_Relative_invariance.py", {**query, "inv_view": "Decay"})
    assert page_snippet(decay) == page_snippet(at) and metrics(decay) == shown


def _extension_check(at: AppTest, ns: dict) -> None:
    shown = metrics(at)
    assert shown["Attention factor a"] == f"{ns['attention_factor']:.4f}"
    assert shown["Pairs out of distribution"] == f"{int(ns['ood'].sum())} of {ns['ood'].size}"
    block = at.json[0].value
    block = json.loads(block) if isinstance(block, str) else block
    assert block == ns["block"]


@pytest.mark.parametrize(
    "query",
    [
        {},
        {
            "rope_type": "llama3",
            "head_dim": "128",
            "base": "500000",
            "train_len": "8192",
            "target_len": "131072",
            "factor": "8",
        },
        {
            "rope_type": "longrope",
            "head_dim": "48",
            "train_len": "2048",
            "target_len": "9000",
            "factor": "4",
            "long_gen": "constant",
        },
        {"rope_type": "dynamic", "factor": "2.5", "target_len": "20000"},
    ],
)
def test_extension(query):
    at = run("pages/5_Context_extension.py", query)
    _extension_check(at, execute(page_snippet(at)))


def test_extension_with_a_longrope_preset():
    at = run("pages/5_Context_extension.py")
    at.selectbox(key="model").set_value("phi3-mini-128k-instruct").run()
    assert not at.exception
    ns = execute(page_snippet(at))
    _extension_check(at, ns)
    assert len(ns["block"]["long_factor"]) == 48


def test_compare():
    at = run(
        "pages/8_Compare_methods.py",
        {"head_dim": "16", "train_len": "64", "target_len": "200", "seed": "4", "alibi_head": "2"},
    )
    ns = execute(page_snippet(at))
    expected = compare_text.summary_table(list(ns["checks"].values()), trained_len=64, test_len=200, dim=16)
    shown = at.table[0].value.reset_index()
    assert shown.to_dict("list") == expected.to_dict("list")


def test_configs_converter_and_parsed_block():
    at = run("pages/9_Model_configs.py", {"head_dim": "96", "base": "500", "ntk_alpha": "2.5"})
    ns = execute(page_snippet(at))
    shown = metrics(at)
    assert shown["NTK alpha α"] == f"{ns['alpha']:.6g}"
    assert shown["rope_theta b′"] == f"{ns['new_base']:,.2f}"
    assert ns["wavelength_ntk"][-1] == pytest.approx(ns["alpha"] * ns["wavelength"][-1], rel=1e-12)
    (element,) = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    data = cs.view_rows(cs.element_spec(element))  # α = 2.5 is the chart's own slider: its transforms, run here
    ntk = data[data.scheme == "NTK-aware (new base)"].sort_values("j")["wavelength"].to_numpy()
    np.testing.assert_allclose(ntk, ns["wavelength_ntk"], rtol=1e-15)

    # With a pasted config, the snippet also reproduces its frequencies.
    at.text_area(key="cfg_text").input(
        json.dumps(
            {
                "head_dim": 64,
                "max_position_embeddings": 131072,
                "rope_theta": 150000,
                "rope_scaling": {
                    "rope_type": "yarn",
                    "factor": 32.0,
                    "beta_fast": 32.0,
                    "beta_slow": 1.0,
                    "truncate": False,
                    "original_max_position_embeddings": 4096,
                },
            }
        )
    ).run()
    assert not at.exception
    ns = execute(page_snippet(at))
    from posenc.models import preset_inverse_frequencies

    inv, af = preset_inverse_frequencies("gpt-oss-20b")
    np.testing.assert_array_equal(ns["inv_freq"], inv)
    assert ns["attention_factor"] == af and math.isfinite(af)


@pytest.mark.parametrize("layer", ["0", "5"])
def test_configs_snippet_carries_the_chosen_layers_rope(layer):
    """Gemma 3 4B: layers 0-4 slide (base 10,000, no scaling), layer 5 is global (base 1e6, linear
    ×8, from its published config). The snippet computes the frequencies of the layer chosen
    under "Open it on the other pages", and says which layer it is."""
    at = run("pages/9_Model_configs.py", {"cfg_example": "Gemma 3 4B", "layer": layer})
    code = page_snippet(at)
    assert f"# Decoder layer {layer}'s rope" in code
    ns = execute(code)
    d = 256  # Gemma 3 4B's head_dim
    base, factor = (10000.0, 1.0) if layer == "0" else (1_000_000.0, 8.0)
    expected = [base ** (-2 * j / d) / factor for j in range(d // 2)]
    np.testing.assert_allclose(ns["inv_freq"], expected, rtol=1e-12)
