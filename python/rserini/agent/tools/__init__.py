"""The agent tools themselves: the session that runs them, their schemas and argument
checks, the pages, excerpts and chunks they render, and the cache, spill files,
truncation and time budget behind them."""
