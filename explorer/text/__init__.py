"""The sentences each page shows, one module per page (explorer/text/<page>.py).

Every module here is pure: it takes the values a page computed and returns strings. Nothing here
imports Streamlit, and no page script or chart builder builds a sentence of its own.
"""
