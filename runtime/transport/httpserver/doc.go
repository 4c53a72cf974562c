// Package httpserver is the server side of MCP's Streamable HTTP transport
// (the client side is in runtime/transport): it serves an mcp.Server over
// Streamable HTTP, both protocol eras on one endpoint.
//
// Every POST is routed by what it carries (stdlib/doc/conformance-fixture.md §8.3):
// a 2026-07-28 request — an MCP-Protocol-Version header that is not a legacy
// version, or the _meta envelope in the body — is served on its own, its
// answer written as JSON, or as an SSE stream when progress or log messages
// come first. Anything else belongs to a 2025-11-25 session: initialize
// opens one (Mcp-Session-Id), its requests are answered on their POSTs (SSE
// when the server has something to send first, including requests to the
// client, whose answers arrive as POSTs of their own), and notifications not
// tied to a request go to the session's GET stream.
//
// An Auth guards the endpoint with bearer tokens (RFC 6750) and serves its
// OAuth 2.0 Protected Resource Metadata (RFC 9728), which is what MCP's
// authorization spec asks of a server:
//
//	a, err := httpserver.NewAuth(httpserver.AuthConfig{Path: "/mcp", Validate: httpserver.StaticToken(tok)})
//	mux.Handle("/mcp", a.Wrap(mcpHandler))
//	mux.HandleFunc(a.MetadataPath(), a.ServeMetadata)
//
// A request without a token gets 401 and a challenge naming the metadata
// document (WWW-Authenticate: Bearer resource_metadata="…"); a refused token
// adds error="invalid_token"; a malformed Authorization header is 400
// (error="invalid_request"). Tokens never appear in what this package
// writes or logs.
//
// Serve is the whole of `luagent serve --http`: it listens (TLS when given
// a certificate), bounds each client (Limits: connections, timeouts,
// sizes, sessions), serves one server or a pool of workers, and on the
// end of its context drains streams and gives requests in flight a grace
// period. The package imports no Lua: any Go program can serve with it.
package httpserver
