package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/trace"
)

// Era negotiation over stdio (spec SUMMARY §7; the §27 pitfalls are the
// tests): probe server/discover; a DiscoverResult or a recognised modern
// error means modern; any other error, an invalid reply, the process
// exiting, or silence past the probe timeout means legacy → initialize. A
// process that exited on the probe is started again first. A late probe
// answer is dropped. The era found is remembered per command line.

// eras caches the era per server command line (per origin over HTTP), for reconnects and for other
// clients of the same server in this process.
var eras sync.Map // string -> Era

func (c *Client) eraKey() string {
	if c.opts.URL != "" {
		// Per origin: one deployment speaks one era on all its paths.
		if u, err := url.Parse(c.opts.URL); err == nil && u.Host != "" {
			return "origin\x00" + u.Scheme + "://" + u.Host
		}
		return "url\x00" + c.opts.URL
	}
	cmd := c.opts.Command
	return cmd.Path + "\x00" + strings.Join(cmd.Args, "\x00") + "\x00" + cmd.Dir
}

// ForgetEra drops the cached era of every server (tests, or after a server
// was upgraded).
func ForgetEra() {
	eras.Range(func(k, _ any) bool { eras.Delete(k); return true })
}

// errModernAfterAll: initialize was rejected with a modern error code (a
// slow modern server that missed the probe window).
var errModernAfterAll = errors.New("the server rejected initialize with a modern protocol error")

// dial starts the server and negotiates; it returns a ready session.
func (c *Client) dial(ctx context.Context) (*session, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.opts.StartupTimeout,
		errs.Errorf(errs.Timeout, "connect", "server %q did not finish starting within %s (startup_timeout)", c.opts.Name, roundDur(c.opts.StartupTimeout)))
	defer cancel()
	s, err := c.start()
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok && s != nil {
			s.abort()
		}
	}()

	era := EraUnknown
	switch c.opts.Protocol {
	case "legacy":
		era = EraLegacy
	case "modern":
		era = EraModern
	default:
		if v, found := eras.Load(c.eraKey()); found {
			era = v.(Era)
		}
	}

	var disc *discoverResult
	if era == EraUnknown || era == EraModern {
		var found Era
		var exited bool
		found, disc, exited, err = c.probe(ctx, s, era == EraModern && c.opts.Protocol == "modern")
		if err != nil {
			return nil, err
		}
		if exited && c.opts.Protocol == "modern" {
			// Nothing to fall back to: say how it ended.
			why, kind := disc.why, errs.Process
			if disc.err != nil {
				why = errs.Message(disc.err)
				if k := errs.KindOf(disc.err); k != errs.Unknown && k != errs.Closed {
					kind = k // a refused redirect stays kind protocol
				}
			}
			return nil, errs.Errorf(kind, "connect", "server/discover of %q failed: %s", c.opts.Name, why)
		}
		if exited {
			// The server exited on the probe (it accepts nothing before
			// initialize): start it again for the handshake.
			s.abort()
			if s, err = c.start(); err != nil {
				return nil, err
			}
		}
		if era == EraModern && found != EraModern {
			if c.opts.Protocol == "modern" {
				return nil, errs.Errorf(errs.Protocol, "connect", "server %q does not speak MCP %s (%s); use protocol = \"legacy\" or \"auto\"", c.opts.Name, ModernVersion, disc.why)
			}
			eras.Delete(c.eraKey()) // the cached era was wrong
		}
		era = found
	}
	if era == EraLegacy {
		err = c.initialize(ctx, s)
		if err != nil && !s.alive() && c.opts.Protocol != "legacy" {
			// The process died on the probe but we had not seen it yet (the
			// probe timed out first): start it again for the handshake.
			s.abort()
			if s, err = c.start(); err != nil {
				return nil, err
			}
			err = c.initialize(ctx, s)
		}
		if errors.Is(err, errModernAfterAll) && c.opts.Protocol != "legacy" {
			var found Era
			found, disc, _, err = c.probe(ctx, s, true)
			if err == nil && found != EraModern {
				err = errs.Errorf(errs.Protocol, "connect", "server %q rejected both initialize and server/discover (%s)", c.opts.Name, disc.why)
			}
			era = EraModern
		}
		if err != nil {
			return nil, err
		}
	}
	if era == EraModern {
		c.applyDiscover(s, disc)
	}
	eras.Store(c.eraKey(), era)
	trace.Emit(c.opts.Trace, trace.Event{Kind: trace.EraChosen, Server: c.opts.Name, Message: era.String() + " " + s.info.ProtocolVersion})
	if s.proc != nil {
		s.proc.MarkReady() // from now on it is closed gracefully, even at exit
	}
	ok = true
	return s, nil
}

type discoverResult struct {
	SupportedVersions []string                   `json:"supportedVersions"`
	Capabilities      json.RawMessage            `json:"capabilities"`
	Instructions      string                     `json:"instructions"`
	Meta              map[string]json.RawMessage `json:"_meta"`
	why               string                     // for legacy: what the server answered
	err               error                      // why the connection ended, when the server exited on the probe
}

// probe sends server/discover and classifies the answer. required means
// only a modern answer will do (a modern error is then an error).
func (c *Client) probe(ctx context.Context, s *session, required bool) (era Era, disc *discoverResult, exited bool, err error) {
	s.info.Era = EraModern
	s.envelope = c.envelope(ModernVersion)
	params := c.params(s, nil, "", false)
	s.info.Era = EraUnknown
	call, err := s.conn.Call("server/discover", params)
	if err != nil {
		// The process died before we could even write.
		return EraLegacy, &discoverResult{why: "it exited at start", err: err}, true, nil
	}
	timeout := c.opts.ProbeTimeout
	if required {
		// Nothing to fall back to: the answer may take the whole start
		// (the caller's context, bounded by the startup timeout), not a
		// request's timeout.
		timeout = c.opts.StartupTimeout
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-call.Done():
		resp, rerr := call.Result()
		if rerr != nil {
			return EraLegacy, &discoverResult{why: "it exited on server/discover: " + rerr.Error(), err: rerr}, true, nil
		}
		if resp.Error != nil {
			if st := httpStatus(resp.Error); st == 401 || st == 403 {
				// Every request would be refused the same way: say so now
				// rather than try initialize.
				return EraUnknown, nil, false, c.authError("connect", resp.Error)
			}
			return c.classifyProbeError(resp.Error)
		}
		var d discoverResult
		if err := json.Unmarshal(resp.Result, &d); err != nil || d.SupportedVersions == nil {
			return EraLegacy, &discoverResult{why: "it answered server/discover with something that is not a DiscoverResult"}, false, nil
		}
		if common(d.SupportedVersions, ModernVersions) != "" {
			return EraModern, &d, false, nil
		}
		if common(d.SupportedVersions, LegacyVersions) != "" {
			// A server that knows server/discover but serves only legacy
			// versions (go-sdk stateful servers do this): initialize.
			d.why = "its server/discover lists only " + strings.Join(d.SupportedVersions, ", ")
			return EraLegacy, &d, false, nil
		}
		return EraUnknown, nil, false, errs.Errorf(errs.Protocol, "connect", "server %q supports protocol versions %s; luagent speaks %s and %s",
			c.opts.Name, strings.Join(d.SupportedVersions, ", "), strings.Join(ModernVersions, ", "), strings.Join(LegacyVersions, ", "))
	case <-s.conn.Done():
		return EraLegacy, &discoverResult{why: "it exited on server/discover", err: s.conn.Err()}, true, nil
	case <-s.invalid:
		call.Abandon()
		return EraLegacy, &discoverResult{why: "it answered server/discover with a line that is not JSON-RPC"}, false, nil
	case <-timer.C:
		call.Abandon()
		return EraLegacy, &discoverResult{why: fmt.Sprintf("no answer to server/discover within %s", roundDur(timeout))}, false, nil
	case <-ctx.Done():
		call.Abandon()
		return EraUnknown, nil, false, ctxError(ctx, "connect", c.opts.Name)
	}
}

func (c *Client) classifyProbeError(e *jsonrpc.Error) (Era, *discoverResult, bool, error) {
	why := fmt.Sprintf("it answered server/discover with error %d %q", e.Code, e.Message)
	if !IsModernErrorCode(e.Code) {
		return EraLegacy, &discoverResult{why: why}, false, nil
	}
	if e.Code == CodeUnsupportedProtocolVersion {
		var data struct {
			Supported []string `json:"supported"`
		}
		json.Unmarshal(e.Data, &data)
		if v := common(data.Supported, ModernVersions); v != "" {
			return EraModern, &discoverResult{SupportedVersions: data.Supported}, false, nil
		}
		if common(data.Supported, LegacyVersions) != "" {
			// -32022 listing only legacy versions: the legacy path.
			return EraLegacy, &discoverResult{why: why + " listing only " + strings.Join(data.Supported, ", ")}, false, nil
		}
		return EraUnknown, nil, false, errs.Errorf(errs.Protocol, "connect", "server %q supports protocol versions %s; luagent speaks %s and %s",
			c.opts.Name, strings.Join(data.Supported, ", "), strings.Join(ModernVersions, ", "), strings.Join(LegacyVersions, ", "))
	}
	// -32020/-32021: a modern server; discover itself said no more.
	return EraModern, &discoverResult{SupportedVersions: ModernVersions}, false, nil
}

// common returns the first of ours that theirs lists.
func common(theirs, ours []string) string {
	for _, v := range ours {
		if slices.Contains(theirs, v) {
			return v
		}
	}
	return ""
}

func (c *Client) applyDiscover(s *session, d *discoverResult) {
	s.info.Era = EraModern
	s.info.ProtocolVersion = common(d.SupportedVersions, ModernVersions)
	if s.info.ProtocolVersion == "" {
		s.info.ProtocolVersion = ModernVersion
	}
	s.envelope = c.envelope(s.info.ProtocolVersion)
	s.info.SupportedVersions = d.SupportedVersions
	s.info.Instructions = d.Instructions
	parseCapabilities(d.Capabilities, &s.info.Capabilities)
	if si, ok := d.Meta[MetaServerInfo]; ok {
		json.Unmarshal(si, &s.info.ServerInfo)
	}
}

func parseCapabilities(raw json.RawMessage, caps *ServerCapabilities) {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	json.Unmarshal(raw, caps)
	caps.Raw = raw
}

// initialize runs the legacy handshake.
func (c *Client) initialize(ctx context.Context, s *session) error {
	s.info.Era = EraLegacy
	params, _ := json.Marshal(struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      Implementation  `json:"clientInfo"`
	}{LegacyVersion, c.capabilities(EraLegacy, false), c.opts.ClientInfo})
	res, err := c.roundTrip(ctx, s, "initialize", params, "", reqOpts{noCancel: true, timeout: c.opts.StartupTimeout})
	if err != nil {
		if je, ok := ServerError(err); ok && IsModernErrorCode(je.Code) {
			return errModernAfterAll
		}
		return errs.Errorf(errs.KindOf(err), "connect", "initialize of %q failed: %v", c.opts.Name, errs.Message(err))
	}
	var r struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      Implementation  `json:"serverInfo"`
		Instructions    string          `json:"instructions"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return errs.Errorf(errs.Protocol, "connect", "server %q sent a malformed initialize result: %v", c.opts.Name, err)
	}
	if !slices.Contains(LegacyVersions, r.ProtocolVersion) {
		return errs.Errorf(errs.Protocol, "connect", "server %q chose protocol version %q, which luagent does not support (it speaks %s)",
			c.opts.Name, r.ProtocolVersion, strings.Join(LegacyVersions, ", "))
	}
	s.info.ProtocolVersion = r.ProtocolVersion
	s.info.ServerInfo = r.ServerInfo
	s.info.Instructions = r.Instructions
	parseCapabilities(r.Capabilities, &s.info.Capabilities)
	return s.conn.Notify("notifications/initialized", nil)
}
