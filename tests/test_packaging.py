"""`pip install .` gives `posenc` alone: numpy only, torch as the extra `posenc[torch]`, no app.

The wheel is built offline from a copy of the repository (so the build's `build/` and
`*.egg-info` litter, and any stale `build/lib` left there, never touch or leak into the work tree),
then inspected: its files, its metadata, and what importing it pulls in, from the unpacked wheel
alone in a fresh interpreter.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP_ONLY = ("streamlit", "altair", "pandas", "torch", "explorer", "pages", "app", "PIL")


def _requirement(spec: str) -> tuple[str, str]:
    """'torch>=2.1; extra == "torch"' -> ('torch', 'extra=="torch"'): name and marker, spaces and quote style normalised."""
    head, _, marker = spec.partition(";")
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", head)
    assert match, spec
    name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
    return name, re.sub(r"\s+", "", marker).replace("'", '"')


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    pytest.importorskip("setuptools", reason="setuptools (requirements-dev.txt) builds the wheel")
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(
        ROOT,
        src,
        ignore=shutil.ignore_patterns(
            ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", ".venv"
        ),
    )
    out = tmp / "out"
    offline = ["--no-deps", "--no-build-isolation", "--no-index"]  # nothing fetched: the installed setuptools builds
    cmd = [sys.executable, "-m", "pip", "wheel", *offline, "-w", str(out), str(src)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}"
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def _dist_info(names: list[str]) -> str:
    dirs = {n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")}
    assert len(dirs) == 1, dirs
    return dirs.pop()


def test_wheel_holds_the_posenc_package_and_nothing_else(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        dist_info = _dist_info(names)
        top_level = zf.read(f"{dist_info}/top_level.txt").decode().split()
    assert wheel.name.startswith("posenc-") and wheel.name.endswith("-py3-none-any.whl"), wheel.name
    outside = sorted(n for n in names if not n.startswith(("posenc/", f"{dist_info}/")))
    assert not outside, f"the wheel ships files outside posenc/: {outside}"
    assert top_level == ["posenc"]
    shipped = {n for n in names if n.startswith("posenc/")}
    expected = {p.relative_to(ROOT).as_posix() for p in (ROOT / "posenc").rglob("*.py")}
    assert shipped == expected, f"missing: {sorted(expected - shipped)}; extra: {sorted(shipped - expected)}"


def test_wheel_requires_numpy_only_and_torch_under_the_torch_extra(wheel):
    with zipfile.ZipFile(wheel) as zf:
        meta = Parser().parsestr(zf.read(f"{_dist_info(zf.namelist())}/METADATA").decode())
    assert meta["Name"] == "posenc"
    requires = sorted(_requirement(r) for r in meta.get_all("Requires-Dist") or [])
    real = 'extra=="realmodel"'
    assert requires == sorted(
        [
            ("numpy", ""),
            ("torch", 'extra=="torch"'),
            *[(name, real) for name in ("torch", "transformers", "tokenizers", "gguf", "accelerate")],
        ]
    ), meta.get_all("Requires-Dist")
    assert meta.get_all("Provides-Extra") == ["torch", "realmodel"]


@pytest.fixture(scope="module")
def unpacked(wheel, tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    return site


def _run_isolated(site: Path, code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter that sees the unpacked wheel first and not the repository."""
    prelude = f"import sys; sys.path.insert(0, {str(site)!r})\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        cwd=site,  # not the repository: its posenc/ and explorer/ must not be importable by accident
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_importing_posenc_pulls_in_neither_the_app_nor_torch(unpacked):
    done = _run_isolated(
        unpacked,
        """
        import json, pkgutil
        import numpy as np
        import posenc
        assert posenc.__file__.startswith(sys.path[0]), posenc.__file__
        # every submodule but the torch one, which is the only place torch may come in
        for mod in pkgutil.iter_modules(posenc.__path__, "posenc."):
            if mod.name != "posenc.torch":
                __import__(mod.name)
        pe = posenc.sinusoidal_encoding(np.arange(16), 8)
        assert pe.shape == (16, 8), pe.shape
        print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
        """,
    )
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "posenc" in loaded and "numpy" in loaded
    pulled = sorted(loaded & set(APP_ONLY))
    assert not pulled, f"importing posenc pulled in {pulled}"


def test_posenc_torch_without_torch_says_how_to_install_it(unpacked):
    done = _run_isolated(
        unpacked,
        """
        sys.modules["torch"] = None  # as if torch were not installed
        try:
            import posenc.torch
        except ImportError as exc:
            print(type(exc).__name__, exc)
        else:
            print("imported")
        """,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.strip()
    assert out.startswith("ModuleNotFoundError "), out
    assert "pip install posenc[torch]" in out, out
