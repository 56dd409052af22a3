"""The explorer's server: ``streamlit run serve.py`` serves app.py and its pages as ``streamlit run app.py`` does, but
imports the modules the home page imports (explorer.warm) before it accepts the first connection: Streamlit runs an
st.App's lifespan first. On a freshly started server the first visitors' runs then do not wait for the imports
(issue #36: the lecture hall, fast from the first second; bench/RESULTS.md section 33). It also puts a quicker
filter in front of Streamlit's scan for installed components (explorer.compat.install_quick_component_scan: the same
components, about 0.13 s sooner; section 34), and limits numpy's BLAS to one thread (explorer.warm.limit_blas_threads:
a second thread doubled the CPU time of the invariance page's products for no gain in wall time; section 36)."""

import time
from contextlib import asynccontextmanager

import streamlit as st

from explorer import compat, warm

compat.install_quick_component_scan()  # before st.App starts the runtime, which scans for components (explorer.compat)


@asynccontextmanager
async def lifespan(_app):
    began = time.perf_counter()
    done = warm.import_all(warm.page_modules())
    blas = ", ".join(f"{name} {threads}" for name, threads in warm.limit_blas_threads())
    print(f"{warm.READY} ({len(done)} modules, {time.perf_counter() - began:.1f} s; BLAS threads: {blas})", flush=True)
    yield None


app = st.App(warm.HOME, lifespan=lifespan)
