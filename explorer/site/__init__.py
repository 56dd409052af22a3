"""One module per page, each declaring ``PAGE = explorer.pagespec.Page(...)``; see explorer.manifest."""
