"""Newer encodings: CoPE, FoPE, PaTH, DroPE, a RoPE/NoPE hybrid and SSMax trained beside RoPE in the lab.

URL parameters: explorer/site/newer.py. Sentences: explorer/text/newer.py. Pictures: explorer/compute/newer.py.
The grid reads the shipped results (data/lab/results.json, `python -m posenc.lab ship`); the pictures run the
shipped seed-0 models (torch, imported by those functions only).
"""

import streamlit as st

from explorer.layout import intro, notice_list, page_setup

page_setup("newer")  # before the imports below: see explorer.layout

from explorer.charts import newer as charts
from explorer.compute import newer as compute
from explorer.exports import page_footer
from explorer.render import Keyed, shared, show_chart, themed
from explorer.text import lab as lab_text
from explorer.text import newer as text
from explorer.widgets import widget

with intro(formulas=False):
    st.markdown(text.INTRO)

try:
    by_task = compute.shown_tasks()
except (OSError, ValueError) as exc:
    st.error(lab_text.unreadable(exc))
    st.stop()
if not by_task:
    st.warning(text.NOT_SHIPPED)
    st.stop()

view = widget("newer_view")
past = view == text.VIEWS[1]
for task, s in by_task.items():
    rows = text.grid_rows(s, past=past)
    show_chart(
        # the shipped results are fixed while the server runs: the task and the view name the table (render.Keyed)
        shared(charts.grid_chart)(
            Keyed(("newer_grid", task, past), charts.grid_frame(rows)), **text.grid_chart(s, past=past, rows=rows)
        ),
        width="stretch",
        save_as=f"newer_encodings_{task}",
    )
st.caption(text.learned_line(by_task))
for line in text.sentences(by_task, past=past):
    st.markdown(line)

st.subheader(text.PICTURE_HEADING)
with st.container(border=True, key="newer_controls"):
    c1, c2 = st.columns(2)
    enc, task = widget("newer_enc", container=c1), widget("newer_task", container=c2)
    c3, c4 = st.columns(2)
    length, head = widget("newer_len", container=c3), widget("newer_head", container=c4)
if task not in by_task or enc not in by_task[task].runs:
    st.warning(text.no_picture(enc, task, tuple(by_task)))
else:
    s = by_task[task]
    try:
        with st.spinner("Running the shipped model on one sequence…"):
            raw = compute.picture(enc, task, length=length, head=head, longest=s.longest, entry=s.entry)
    except (OSError, ValueError) as exc:
        st.error(text.no_pattern(exc))
    else:
        words = text.picture_words(enc, raw, task=task, head=head, train_len=s.train_len)
        picture = Keyed(("newer_picture", enc, task, length, head, s.longest), raw)  # what compute.picture read
        for i in range(charts.picture_count(enc, raw)):  # each built once, for every session (render.shared)
            chart = themed(charts.picture_chart)(  # dark: a heatmap's own image on the dark card
                enc, picture, index=i, title=words["title"], subtitle=words["subtitle"], train_len=s.train_len
            )
            show_chart(chart, width="stretch", save_as=f"{enc}_{task}_{i}")
        notice_list([words["caption"]])

page_footer(
    "newer",
    {"newer_view": view, "newer_enc": enc, "newer_task": task},
    data=lambda: charts.grid_frame([r for s in by_task.values() for r in text.grid_rows(s, past=past)]),
    file_name="newer_encodings.csv",
)
