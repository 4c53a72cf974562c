// Command fakeopenai is a local model stand-in for scripts/bench-ask.sh: an
// OpenAI Chat Completions endpoint on 127.0.0.1 that answers at once.
//
// The job: the model calls the first offered tool named "echo" (or ending
// in "echo" after a separator: "everything__echo") with {"message":"hi"},
// and once that call's result is in the conversation it answers with the
// text "done: hi". When no echo is offered but luagent's search meta-tool
// is (it replaces the servers' tools when they number more than 40), the
// model first calls mcp_search_tools {"query":"echo"}, then the echo it
// found. It streams (SSE chunks, with a usage chunk when stream_options
// asks) or answers in one JSON body, as the request's "stream" says.
//
//	fakeopenai [-lifetime 10m] [-log FILE] [-delay 1s]
//
// -delay makes every answer wait that long first, as a hosted model does
// (issue 32's agent job: a model answering after 1 s). A prompt with the
// word "notool" in it is answered with the text at once, whatever tools are
// offered: a turn that calls no tool.
//
// prints its base URL (http://127.0.0.1:PORT/v1) on stdout's first line,
// then serves until stdin is closed or the lifetime is over. With -log each
// request appends "seq<TAB>received_unix_ns<TAB>answered_unix_ns<TAB>
// reply<TAB>stream<TAB>took_ns" to FILE (reply is call:TOOL or text;
// answered is when the answer was written, before its last flush; took_ns
// the difference), so a caller can count the model's turns and subtract
// the time spent answering them.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

type request struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type server struct {
	mu    sync.Mutex
	seq   int
	log   io.Writer
	delay time.Duration
}

func main() {
	lifetime := flag.Duration("lifetime", 10*time.Minute, "exit after this long")
	logPath := flag.String("log", "", "append one line per request to this file")
	delay := flag.Duration("delay", 0, "answer each request after this long (a hosted model's latency)")
	flag.Parse()
	s := &server{log: io.Discard, delay: *delay}
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		s.log = f
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/v1\n", ln.Addr())
	ctx, cancel := context.WithTimeout(context.Background(), *lifetime)
	defer cancel()
	go func() { // the caller closes stdin (or exits) to stop us
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.complete)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"gpt-x","object":"model","created":0,"owned_by":"bench"}]}`)
	})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}

// searchTool is luagent's meta-tool, offered instead of the servers' tools
// when they are many (more than 40: five server-everythings list 65).
const searchTool = "mcp_search_tools"

func isEcho(name string) bool {
	return name == "echo" || strings.HasSuffix(name, "_echo") || strings.HasSuffix(name, ".echo") || strings.HasSuffix(name, "-echo")
}

// next decides the turn: the tool to call and its arguments, or "" for
// the final text. It follows the conversation, so it needs no state: the
// echo's result is answered with the text; otherwise the first offered
// echo is called; when none is offered but the search meta-tool is (and
// has not been called yet), the model searches for it first.
func next(req *request) (tool, args string) {
	lastCall := ""
	for _, m := range req.Messages {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			lastCall = m.ToolCalls[0].Function.Name
		}
	}
	last := ""
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1].Role
	}
	if last == "tool" && isEcho(lastCall) {
		return "", ""
	}
	for _, m := range req.Messages {
		if m.Role == "user" && strings.Contains(string(m.Content), "notool") {
			return "", ""
		}
	}
	search := false
	for _, t := range req.Tools {
		if isEcho(t.Function.Name) {
			return t.Function.Name, `{"message":"hi"}`
		}
		search = search || t.Function.Name == searchTool
	}
	if search && lastCall != searchTool {
		return searchTool, `{"query":"echo"}`
	}
	return "", ""
}

func (s *server) complete(w http.ResponseWriter, r *http.Request) {
	got := time.Now()
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.seq++
	seq := s.seq
	s.mu.Unlock()
	if s.delay > 0 {
		select { // the model "thinking"
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return
		}
	}
	model := req.Model
	if model == "" {
		model = "gpt-x"
	}
	id := fmt.Sprintf("chatcmpl-%d", seq)
	tool, args := next(&req)
	reply := "text"
	if tool != "" {
		reply = "call:" + tool
	}
	text := "done: hi"
	callID := fmt.Sprintf("call_%d", seq)
	usage := `{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}`
	if req.Stream {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		fl, _ := w.(http.Flusher)
		chunk := func(delta, finish string) {
			fin := "null"
			if finish != "" {
				fin = `"` + finish + `"`
			}
			fmt.Fprintf(w, `data: {"id":%q,"object":"chat.completion.chunk","created":%d,"model":%q,"choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n",
				id, got.Unix(), model, delta, fin)
		}
		if tool != "" {
			chunk(`{"role":"assistant","content":null}`, "")
			chunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}`, callID, tool), "")
			chunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%q}}]}`, args), "")
			chunk(`{}`, "tool_calls")
		} else {
			chunk(`{"role":"assistant","content":""}`, "")
			chunk(fmt.Sprintf(`{"content":%q}`, text), "")
			chunk(`{}`, "stop")
		}
		if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
			fmt.Fprintf(w, `data: {"id":%q,"object":"chat.completion.chunk","created":%d,"model":%q,"choices":[],"usage":%s}`+"\n\n", id, got.Unix(), model, usage)
		}
		io.WriteString(w, "data: [DONE]\n\n")
		s.logged(seq, got, reply, true)
		if fl != nil {
			fl.Flush()
		}
	} else {
		var msg string
		finish := "stop"
		if tool != "" {
			msg = fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}]}`, callID, tool, args)
			finish = "tool_calls"
		} else {
			msg = fmt.Sprintf(`{"role":"assistant","content":%q}`, text)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%q,"object":"chat.completion","created":%d,"model":%q,"choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":%s}`,
			id, got.Unix(), model, msg, finish, usage)
		s.logged(seq, got, reply, false)
	}
}

// logged records a request before its last bytes are flushed, so the line
// is in the log by the time the client has its answer.
func (s *server) logged(seq int, got time.Time, reply string, stream bool) {
	done := time.Now()
	s.mu.Lock()
	fmt.Fprintf(s.log, "%d\t%d\t%d\t%s\t%v\t%d\n", seq, got.UnixNano(), done.UnixNano(), reply, stream, done.Sub(got).Nanoseconds())
	s.mu.Unlock()
}
