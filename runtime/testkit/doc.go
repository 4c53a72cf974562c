// Package testkit is what luagent's tests share: the peers they drive
// (the npm reference servers, the Go SDK server, the TS SDK client, the
// Inspector CLI: peers.go, README.md), scripted misbehaving MCP servers
// (scripted.go), the skills fixtures (skills.go), a local OTLP receiver
// (otlp.go), process checks (proc.go), a goroutine-safe buffer
// (syncbuf.go) and the builder of the test binaries in servers/
// (testbin.go).
package testkit
