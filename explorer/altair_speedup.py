"""Two changes to Altair's run-time costs, which dominated our page runs.

Every time Altair turns a shorthand (``x="pos:Q"``) or a dict into a channel object it calls
``SchemaBase.from_dict``, which builds a fresh ``_FromDict`` converter. The converter's
constructor hashes the JSON schema of every one of Altair's ~900 schema classes (``json.dumps``
of each) to build a lookup table — about 5 ms, every time, for a table that never changes. A
page with a dozen shorthand encodings paid 60–80 ms for it (cProfile of the RoPE page).

`install()` makes the constructor build that table once per set of wrapper classes and share
it: the converter still looks classes up in the same table, and the charts' specs are identical
(tests/test_altair_speedup.py compares them with and without).

`install()` also turns off Altair's DEBUG_MODE for the whole process: every schema object was
validated as it was created. Validation still happens in ``chart.to_dict()``, which every chart
test calls; the served app sends specs through `explorer.presentation.show_chart`, which skips
Streamlit's repeat of it, so a builder's schema error shows up in the tests, not at run time.

Fragile on an Altair upgrade by nature (it patches ``altair.utils.schemapi._FromDict``); if the
class or its ``class_dict`` attribute disappears, `install()` does nothing and Altair runs as
shipped (slower, still correct).
"""

from __future__ import annotations

import threading
from typing import Any

_TABLES: dict[tuple[type, ...], Any] = {}
_LOCK = threading.Lock()
_INSTALLED = False


def install() -> bool:
    """Patch Altair's ``_FromDict`` to share its class table (idempotent). True if active."""
    global _INSTALLED
    if _INSTALLED:
        return True
    try:
        from altair.utils import schemapi

        from_dict_class = schemapi._FromDict
        original_init = from_dict_class.__init__
    except (ImportError, AttributeError):  # pragma: no cover - a future Altair
        return False

    def __init__(self: Any, wrapper_classes: Any, /) -> None:
        classes = tuple(wrapper_classes)
        table = _TABLES.get(classes)
        if table is None:
            original_init(self, classes)
            with _LOCK:
                table = _TABLES.setdefault(classes, self.class_dict)
        # A defaultdict(list): a lookup of an unknown hash adds an empty list, which any
        # fresh table would have answered the same way.
        self.class_dict = table

    __init__.__wrapped__ = original_init  # type: ignore[attr-defined]
    schemapi.disable_debug_mode()
    from_dict_class.__init__ = __init__
    _INSTALLED = True
    return True
