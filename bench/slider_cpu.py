"""Server CPU of a page's run and of a slider change, for one checkout: ``python bench/slider_cpu.py [ROOT]``

For every page (AppTest, in this process): CPU time (``time.process_time``, all threads: torch's
included) of a run with `st.cache_data` and the shared chart specs cleared (a first view, median of
5), and of six slider changes to values not seen before (median): the same sliders as
bench/slider_latency.py. CPU time rather than wall time, so that a busy machine inflates it less.

Side by side with an earlier commit: ``git archive <commit> | tar -x -C /tmp/base`` and run
``python bench/slider_cpu.py /tmp/base`` and ``python bench/slider_cpu.py`` in turns (A B A B).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.chdir(ROOT)

import streamlit as st  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from explorer import render as shared_specs  # noqa: E402
from explorer import warm  # noqa: E402
from explorer.manifest import PAGES  # noqa: E402

# As serve.py runs the pages: one BLAS thread where the checkout's serve.py sets it (explorer.warm.limit_blas_threads).
BLAS = warm.limit_blas_threads() if hasattr(warm, "limit_blas_threads") else "as numpy starts"

SLIDERS = {
    "home": "d_model",
    "sinusoidal": "seq_len",  # d and b are the zoom chart's own sliders since issue #36
    # clocks: d, b, the clocks and p are the chart's own sliders since issue #36 (no Streamlit slider)
    "rope": "traj_m",  # j and d are the live plane's own sliders since issue #36
    "invariance": "seq_len",  # N, d and b are the shift test chart's own sliders since issue #36: set as a report would
    "extension": "head_dim",
    "lab": "lab_head",
    "vision": "vis_frames",  # the heatmaps' own slider since session 40, as the grid, the query and the frame are
    "compare": "head_dim",
    "configs": "head_dim",
}
OPEN_TAB = {"lab": {"lab_view": "Attention"}}


def main() -> int:
    print(f"{ROOT} · load {' '.join(f'{x:.2f}' for x in os.getloadavg())} · BLAS threads {BLAS}")
    for p in PAGES:
        if p.slug not in SLIDERS:
            continue
        at = AppTest.from_file(str(ROOT / p.script), default_timeout=300)
        for k, v in OPEN_TAB.get(p.slug, {}).items():
            at.query_params[k] = v
        at.run()
        assert not at.exception, at.exception
        first = []
        for _ in range(5):
            st.cache_data.clear()
            shared_specs._shared_spec.clear()
            t0 = time.process_time()
            at.run()
            first.append(time.process_time() - t0)
            assert not at.exception, at.exception
        change = []
        for _ in range(6):
            key = SLIDERS[p.slug]
            if any(s.key == key for s in at.slider):
                slider = at.slider(key)
                slider.set_value(slider.value + (slider.step or 1))
            else:  # a chart's own slider (explorer.liveparam): the session written from outside, so the chart is
                # rebuilt at the new value (more than a drag's release costs: bench/load.py --cpu reports it as the
                # browser does)
                at.session_state[key] = at.session_state[key] + 1
            t0 = time.process_time()
            at.run()
            change.append(time.process_time() - t0)
            assert not at.exception, at.exception
        print(
            f"{p.slug:<12} first view {statistics.median(first) * 1e3:5.0f} ms CPU   "
            f"slider change {statistics.median(change) * 1e3:5.0f} ms CPU",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
