"""The agent tools behind a protocol: an MCP server, pi-search's HTTP backend,
pi-serini's JSON-lines RPC, and the tool-call dispatch of the agent APIs."""
