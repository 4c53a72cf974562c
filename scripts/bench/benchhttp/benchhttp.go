// Package benchhttp benchmarks MCP servers over Streamable HTTP, whatever
// they are written in: workload W3 (tools/call echo round trips from 1 or
// more concurrent clients) and the soak (many clients × many calls, nothing
// may be lost). It is scripts/bench/benchsrv's counterpart for HTTP and, like it,
// its client is deliberately minimal so the numbers describe the server:
// net/http with keep-alive and one Transport sized for the concurrency,
// request bodies assembled from pre-encoded pieces, replies (JSON, or an SSE
// stream whose data: line carries the answer) checked by a scan of their
// members, not decoded into values.
//
// Eras ([benchsrv.Era]):
//
//   - Modern (2026-07-28): every request is its own POST carrying the _meta
//     envelope in the body and the MCP-Protocol-Version, Mcp-Method and
//     Mcp-Name headers; a client opens with one server/discover.
//   - Legacy (2025-11-25): each client opens its own session — initialize,
//     then notifications/initialized — and sends Mcp-Session-Id and
//     MCP-Protocol-Version on every later POST; Close ends it with DELETE.
//
// Every answer is checked: its id, no JSON-RPC error, no isError, the first
// content block's text equal to the message sent (each call sends a
// different one), and resultType "complete" in the modern era. A wrong,
// missing or late answer is an error; [Load] counts what was answered and
// reports what was lost.
package benchhttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/scripts/bench/benchsrv"
)

// Protocol versions and the modern request envelope.
const (
	ModernVersion = benchsrv.ModernVersion
	LegacyVersion = benchsrv.LegacyVersion

	modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + ModernVersion +
		`","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"benchhttp","version":"0"}}`
)

// DefaultTimeout bounds one call (request to checked answer) when
// [Options.Timeout] is zero.
const DefaultTimeout = 10 * time.Second

// NewHTTPClient returns an http.Client for conns concurrent clients of one
// server: keep-alive on, up to conns idle connections kept, no proxy (the
// servers are on loopback), no compression, no overall timeout (calls carry
// their own).
func NewHTTPClient(conns int) *http.Client {
	conns = max(conns, 1)
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		WriteBufferSize:     8 << 10,
		ReadBufferSize:      8 << 10,
	}}
}

// Options configure the clients of a [Load].
type Options struct {
	URL     string
	Era     benchsrv.Era  // "" means Modern
	HTTP    *http.Client  // nil: NewHTTPClient(number of clients)
	Timeout time.Duration // per call (0 = DefaultTimeout)
}

func (o Options) era() benchsrv.Era {
	if o.Era == "" {
		return benchsrv.Modern
	}
	return o.Era
}

func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

// Client is one simulated MCP client: in the legacy era, one session. Its
// methods are not safe for concurrent use (a client makes one call at a
// time; concurrency is many clients).
type Client struct {
	url     string
	era     benchsrv.Era
	hc      *http.Client
	timeout time.Duration

	session string // Mcp-Session-Id (legacy)
	version string // negotiated (legacy)
	nextID  int64

	body  []byte       // the request being built
	reply bytes.Buffer // the response body being read
}

// NewClient returns a client that has not talked to the server yet; Open
// does the era's opening.
func NewClient(o Options) *Client {
	hc := o.HTTP
	if hc == nil {
		hc = NewHTTPClient(1)
	}
	return &Client{url: o.URL, era: o.era(), hc: hc, timeout: o.timeout(), nextID: 1, body: make([]byte, 0, 512)}
}

// Session is the legacy session id ("" in the modern era, or when the
// server gave none).
func (c *Client) Session() string { return c.session }

// Open opens the conversation: server/discover (modern, checked to list
// 2026-07-28), or initialize + notifications/initialized (legacy: the
// session id and negotiated version are kept for later requests).
func (c *Client) Open(ctx context.Context) error {
	if c.era == benchsrv.Modern {
		id := c.id()
		c.body = c.request(c.body[:0], id, "server/discover", "")
		reply, _, err := c.post(ctx, id, "server/discover", "")
		if err != nil {
			return err
		}
		res := jsonscan.Member(reply, "result")
		if !bytes.Contains(jsonscan.Member(res, "supportedVersions"), []byte(`"`+ModernVersion+`"`)) {
			return fmt.Errorf("server/discover: no supportedVersions listing %s: %s", ModernVersion, snip(reply))
		}
		return nil
	}
	id := c.id()
	c.body = c.request(c.body[:0], id, "initialize",
		`"protocolVersion":"`+LegacyVersion+`","capabilities":{},"clientInfo":{"name":"benchhttp","version":"0"}`)
	reply, hdr, err := c.post(ctx, id, "initialize", "")
	if err != nil {
		return err
	}
	v, _ := jsonscan.UnquoteSimple(jsonscan.Member(jsonscan.Member(reply, "result"), "protocolVersion"))
	if v != LegacyVersion {
		return fmt.Errorf("initialize: negotiated protocolVersion %q, want %s: %s", v, LegacyVersion, snip(reply))
	}
	c.version = v
	c.session = hdr.Get("Mcp-Session-Id")
	c.body = append(c.body[:0], `{"jsonrpc":"2.0","method":"notifications/initialized"}`...)
	status, err := c.send(ctx, http.MethodPost)
	if err != nil {
		return fmt.Errorf("notifications/initialized: %v", err)
	}
	if status/100 != 2 {
		return fmt.Errorf("notifications/initialized: HTTP %d", status)
	}
	return nil
}

// Close ends a legacy session with DELETE (a 405 is fine: the server does
// not let clients end sessions). Modern clients have nothing to close.
func (c *Client) Close(ctx context.Context) error {
	if c.era != benchsrv.Legacy || c.session == "" {
		return nil
	}
	c.body = c.body[:0]
	status, err := c.send(ctx, http.MethodDelete)
	if err != nil {
		return fmt.Errorf("DELETE session: %v", err)
	}
	if status/100 != 2 && status != http.StatusMethodNotAllowed {
		return fmt.Errorf("DELETE session: HTTP %d", status)
	}
	c.session = ""
	return nil
}

// Echo calls the tool echo with {"message": msg} and checks the answer
// (see the package comment). msg must need no JSON escaping.
func (c *Client) Echo(ctx context.Context, msg string) error {
	id := c.id()
	c.body = c.request(c.body[:0], id, "tools/call", "") // post adds the arguments
	reply, _, err := c.post(ctx, id, "tools/call", msg)
	if err != nil {
		return err
	}
	return checkEcho(reply, msg, c.era == benchsrv.Modern)
}

func (c *Client) id() int64 {
	id := c.nextID
	c.nextID++
	return id
}

// request appends one JSON-RPC request. For tools/call, fields is ignored
// and the echo arguments are written by post (the message is added there).
func (c *Client) request(b []byte, id int64, method, fields string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, `","params":{`...)
	b = append(b, fields...)
	return b
}

// post finishes the request begun in c.body (for tools/call, with msg as
// the echo argument), POSTs it and returns the JSON-RPC answer to id, from
// a JSON body or from the SSE stream; an error answer is an error.
func (c *Client) post(ctx context.Context, id int64, method, msg string) ([]byte, http.Header, error) {
	b := c.body
	sep := len(b) > 0 && b[len(b)-1] != '{'
	if method == "tools/call" {
		b = append(b, `"name":"echo","arguments":{"message":"`...)
		b = append(b, msg...)
		b = append(b, `"}`...)
		sep = true
	}
	if c.era == benchsrv.Modern {
		if sep {
			b = append(b, ',')
		}
		b = append(b, modernMeta...)
	}
	b = append(b, "}}"...)
	c.body = b

	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodPost, method)
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s id %d: %w", method, id, err)
	}
	defer resp.Body.Close()
	// Read to the end (a stream ends after its answer), so the connection
	// goes back to the pool.
	c.reply.Reset()
	if _, err := c.reply.ReadFrom(resp.Body); err != nil {
		return nil, nil, fmt.Errorf("%s id %d: reading the reply (HTTP %d): %w", method, id, resp.StatusCode, err)
	}
	body := c.reply.Bytes()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("%s id %d: HTTP %d: %s", method, id, resp.StatusCode, snip(body))
	}
	var reply []byte
	ct := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/json"):
		reply = bytes.TrimSpace(body)
		if err := checkReply(reply, id); err != nil {
			return nil, nil, fmt.Errorf("%s id %d: %v", method, id, err)
		}
	case strings.HasPrefix(ct, "text/event-stream"):
		if reply, err = findInSSE(body, id); err != nil {
			return nil, nil, fmt.Errorf("%s id %d: %v", method, id, err)
		}
	default:
		return nil, nil, fmt.Errorf("%s id %d: Content-Type %q: %s", method, id, ct, snip(body))
	}
	return reply, resp.Header, nil
}

// send sends c.body (POST of a notification, or DELETE) and returns the
// status; the body of the answer is discarded.
func (c *Client) send(ctx context.Context, verb string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := c.newRequest(ctx, verb, "")
	if err != nil {
		return 0, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// newRequest makes the HTTP request for c.body with the era's headers.
// method is the JSON-RPC method of a modern request ("" otherwise).
func (c *Client) newRequest(ctx context.Context, verb, method string) (*http.Request, error) {
	var body io.Reader
	if len(c.body) > 0 {
		body = bytes.NewReader(c.body)
	}
	req, err := http.NewRequestWithContext(ctx, verb, c.url, body)
	if err != nil {
		return nil, err
	}
	h := req.Header
	if body != nil {
		h["Content-Type"] = []string{"application/json"}
	}
	h["Accept"] = []string{"application/json, text/event-stream"}
	if c.era == benchsrv.Modern {
		h["Mcp-Protocol-Version"] = []string{ModernVersion}
		h["Mcp-Method"] = []string{method}
		if method == "tools/call" {
			h["Mcp-Name"] = []string{"echo"}
		}
		return req, nil
	}
	if c.session != "" {
		h["Mcp-Session-Id"] = []string{c.session}
	}
	if c.version != "" {
		h["Mcp-Protocol-Version"] = []string{c.version}
	}
	return req, nil
}

// checkReply checks that reply is a JSON-RPC answer to id and not an error.
func checkReply(reply []byte, id int64) error {
	if !json.Valid(reply) {
		return fmt.Errorf("the reply is not JSON: %s", snip(reply))
	}
	var rid, res, e, method []byte
	if !jsonscan.Members(reply, func(k, v []byte) bool {
		switch string(k) {
		case `"id"`:
			rid = v
		case `"result"`:
			res = v
		case `"error"`:
			e = v
		case `"method"`:
			method = v
		}
		return true
	}) {
		return fmt.Errorf("the reply is not a JSON object: %s", snip(reply))
	}
	if method != nil {
		return fmt.Errorf("a server→client message where the answer was expected: %s", snip(reply))
	}
	if string(rid) != strconv.FormatInt(id, 10) {
		return fmt.Errorf("the answer's id is %s: %s", rid, snip(reply))
	}
	if e != nil {
		return fmt.Errorf("error answer: %s", snip(reply))
	}
	if res == nil || res[0] != '{' {
		return fmt.Errorf("the answer has no result object: %s", snip(reply))
	}
	return nil
}

// findInSSE returns the answer to id from an SSE stream: each event's data
// lines joined; events with empty data (priming), comments and
// notifications are skipped; another answer or a server→client request is
// an error, and so is a stream without the answer.
func findInSSE(stream []byte, id int64) ([]byte, error) {
	var data []byte
	var found []byte
	var err error
	event := func() bool {
		d := bytes.TrimSpace(data)
		data = data[:0]
		if len(d) == 0 {
			return true
		}
		if !json.Valid(d) {
			err = fmt.Errorf("an SSE event's data is not JSON: %s", snip(d))
			return false
		}
		if jsonscan.Member(d, "id") == nil {
			return true // a notification (progress, log)
		}
		if err = checkReply(d, id); err != nil {
			return false
		}
		found = d
		return false
	}
	rest := stream
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) == 0:
			if !event() {
				return found, err
			}
		case line[0] == ':':
			// a comment (keep-alive)
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			if string(field) == "data" {
				value = bytes.TrimPrefix(value, []byte(" "))
				if len(data) > 0 {
					data = append(data, '\n')
				}
				data = append(data, value...)
			}
		}
	}
	if len(data) > 0 && !event() {
		return found, err
	}
	return nil, fmt.Errorf("the SSE stream ended without the answer: %s", snip(stream))
}

// checkEcho checks an echo tools/call result (reply passed checkReply).
func checkEcho(reply []byte, msg string, modern bool) error {
	res := jsonscan.Member(reply, "result")
	if string(jsonscan.Member(res, "isError")) == "true" {
		return fmt.Errorf("echo %q: isError result: %s", msg, snip(reply))
	}
	if modern {
		if rt, _ := jsonscan.UnquoteSimple(jsonscan.Member(res, "resultType")); rt != "complete" {
			return fmt.Errorf("echo %q: resultType %q, want complete: %s", msg, rt, snip(reply))
		}
	}
	content := jsonscan.Member(res, "content")
	if len(content) < 2 || content[0] != '[' {
		return fmt.Errorf("echo %q: no content list: %s", msg, snip(reply))
	}
	i := jsonscan.SkipSpace(content, 1)
	end := jsonscan.SkipValue(content, i)
	if end < 0 {
		return fmt.Errorf("echo %q: empty content list: %s", msg, snip(reply))
	}
	block := content[i:end]
	raw := jsonscan.Member(block, "text")
	text, ok := jsonscan.UnquoteSimple(raw)
	if !ok {
		if err := json.Unmarshal(raw, &text); err != nil {
			return fmt.Errorf("echo %q: the first content block has no text: %s", msg, snip(reply))
		}
	}
	if typ, _ := jsonscan.UnquoteSimple(jsonscan.Member(block, "type")); typ != "text" || text != msg {
		return fmt.Errorf("echo %q: answered %s %q: %s", msg, typ, text, snip(reply))
	}
	return nil
}

func snip(b []byte) string {
	const max = 300
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// Load is a set of opened clients of one server, driven together.
type Load struct {
	opts    Options
	clients []*Client
}

// Open opens n clients concurrently (n sessions in the legacy era), sharing
// one HTTP client sized for n unless o.HTTP is set.
func Open(ctx context.Context, o Options, n int) (*Load, error) {
	if n < 1 {
		return nil, fmt.Errorf("benchhttp: %d clients", n)
	}
	if o.HTTP == nil {
		o.HTTP = NewHTTPClient(n)
	}
	l := &Load{opts: o, clients: make([]*Client, n)}
	for i := range l.clients {
		l.clients[i] = NewClient(o)
	}
	errs := l.each(func(c *Client) error { return c.Open(ctx) })
	if len(errs) > 0 {
		l.Close(ctx)
		return nil, fmt.Errorf("opening %d %s clients of %s: %d failed; first: %v", n, o.era(), o.URL, len(errs), errs[0])
	}
	return l, nil
}

// Clients are the load's clients.
func (l *Load) Clients() []*Client { return l.clients }

// Close ends the clients' sessions (legacy) and closes idle connections.
func (l *Load) Close(ctx context.Context) error {
	errs := l.each(func(c *Client) error { return c.Close(ctx) })
	if t, ok := l.opts.HTTP.Transport.(*http.Transport); ok {
		t.CloseIdleConnections()
	}
	if len(errs) > 0 {
		return fmt.Errorf("closing: %d failed; first: %v", len(errs), errs[0])
	}
	return nil
}

// each runs f for every client concurrently and returns the errors.
func (l *Load) each(f func(*Client) error) []error {
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, c := range l.clients {
		wg.Go(func() {
			if err := f(c); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errs
}

// Stats is what a run measured.
type Stats struct {
	Want     int             // calls asked for
	Answered int             // correct answers received
	Elapsed  time.Duration   // wall time of the run
	Lat      []time.Duration // each answered call's latency, sorted
	Errors   []error         // the first few errors (one per failed client at most)
	Failed   int             // how many clients stopped on an error
}

// Quantile is the q-quantile of the latencies (0 with none).
func (s Stats) Quantile(q float64) time.Duration {
	if len(s.Lat) == 0 {
		return 0
	}
	i := int(q * float64(len(s.Lat)))
	return s.Lat[min(i, len(s.Lat)-1)]
}

// PerSecond is answered calls per second of the run.
func (s Stats) PerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Answered) / s.Elapsed.Seconds()
}

// Err says what was lost or wrong, or is nil when every call was answered
// correctly.
func (s Stats) Err() error {
	if s.Answered == s.Want && s.Failed == 0 {
		return nil
	}
	msg := fmt.Sprintf("%d of %d calls answered correctly (%d lost or wrong); %d client(s) stopped on an error",
		s.Answered, s.Want, s.Want-s.Answered, s.Failed)
	for _, e := range s.Errors {
		msg += "\n  " + e.Error()
	}
	return errors.New(msg)
}

// maxErrors is how many errors Stats keeps.
const maxErrors = 5

// Shared makes total echo calls spread over the clients: each client takes
// the next call from a shared counter as soon as its previous one is
// answered, so exactly total calls are made with up to len(clients) in
// flight. A client stops at its first error (its call and those it would
// have taken next are lost; the others go on).
func (l *Load) Shared(ctx context.Context, total int) Stats {
	var next atomic.Int64
	return l.run(ctx, total, func(int) bool { return next.Add(1) <= int64(total) })
}

// Each makes perClient echo calls from every client (the soak).
func (l *Load) Each(ctx context.Context, perClient int) Stats {
	return l.run(ctx, perClient*len(l.clients), func(done int) bool { return done < perClient })
}

// run drives every client until more says it has no further call; more is
// given the number of calls that client has made.
func (l *Load) run(ctx context.Context, want int, more func(done int) bool) Stats {
	lats := make([][]time.Duration, len(l.clients))
	var mu sync.Mutex
	st := Stats{Want: want}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for ci, c := range l.clients {
		lats[ci] = make([]time.Duration, 0, want/len(l.clients)+1)
		wg.Go(func() {
			// Messages differ across clients and calls: "c<client>-<id>".
			prefix := "c" + strconv.Itoa(ci) + "-"
			msg := make([]byte, 0, 32)
			<-start
			for k := 0; more(k); k++ {
				msg = strconv.AppendInt(append(msg[:0], prefix...), c.nextID, 10)
				t := time.Now()
				if err := c.Echo(ctx, string(msg)); err != nil {
					mu.Lock()
					st.Failed++
					if len(st.Errors) < maxErrors {
						st.Errors = append(st.Errors, fmt.Errorf("client %d, call %d: %w", ci, k, err))
					}
					mu.Unlock()
					return
				}
				lats[ci] = append(lats[ci], time.Since(t))
			}
		})
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	st.Elapsed = time.Since(t0)
	for _, l := range lats {
		st.Lat = append(st.Lat, l...)
	}
	st.Answered = len(st.Lat)
	slices.Sort(st.Lat)
	return st
}

// Server is a server process serving Streamable HTTP.
type Server struct {
	URL  string
	cmd  *exec.Cmd
	out  *benchsrv.TailBuffer
	done chan struct{} // closed when the process has exited
	name string
}

// urlRE finds the endpoint a server prints once it listens (luagent:
// "luagent: serving NAME at http://…"; the Go peers: "listening on
// http://…").
var urlRE = regexp.MustCompile(`https?://[^\s"'<>]+`)

// ExitedError is returned by [StartServer] when the server exits before
// printing its URL; Output is what it printed.
type ExitedError struct {
	Name   string
	State  string
	Output string
}

func (e *ExitedError) Error() string {
	return fmt.Sprintf("%s exited (%s) before printing its URL; its output:\n%s", e.Name, e.State, e.Output)
}

// StartServer runs argv (env added to this process's environment) and waits
// up to wait for the first http:// URL on its stdout or stderr, which it
// returns as Server.URL. Output keeps being read (its last 64 KiB kept) so
// the server never blocks on a full pipe. The caller must Close it.
func StartServer(argv, env []string, wait time.Duration) (*Server, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = w, w
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.WaitDelay = 2 * time.Second
	s := &Server{cmd: cmd, out: &benchsrv.TailBuffer{Max: 64 << 10}, done: make(chan struct{}), name: strings.Join(argv, " ")}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close()
	found := make(chan string, 1)
	read := make(chan struct{}) // closed when all output is in s.out
	go func() {
		defer close(read)
		defer r.Close()
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			s.out.Write([]byte(line + "\n"))
			if u := urlRE.FindString(line); u != "" {
				select {
				case found <- u:
				default:
				}
			}
		}
	}()
	go func() {
		cmd.Wait()
		close(s.done)
	}()
	select {
	case s.URL = <-found:
		return s, nil
	case <-s.done:
		select { // what it printed before exiting may still be in the pipe
		case <-read:
		case <-time.After(2 * time.Second):
		}
		return nil, &ExitedError{Name: s.name, State: cmd.ProcessState.String(), Output: s.out.String()}
	case <-time.After(wait):
		s.Close()
		return nil, fmt.Errorf("%s printed no URL within %v; its output:\n%s", s.name, wait, s.out.String())
	}
}

// Output is the last 64 KiB the server printed (stdout and stderr).
func (s *Server) Output() string { return s.out.String() }

// Pid is the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Exited reports whether the process has exited.
func (s *Server) Exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Close kills the server and waits for it.
func (s *Server) Close() {
	_ = s.cmd.Process.Kill()
	<-s.done
}

// CPU is the server's user+system CPU time so far (/proc, 10 ms ticks).
func (s *Server) CPU() (time.Duration, bool) { return benchsrv.ProcCPU(s.Pid()) }
