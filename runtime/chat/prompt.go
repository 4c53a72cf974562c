package chat

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
)

// FetchPrompt gets a server's prompt with its arguments and returns its
// messages as the model will see them. A server not in the catalog or not
// ready, a prompt the server does not list, or a failed request is an
// error, and nothing is to be sent.
func (s *Session) FetchPrompt(ctx context.Context, server, name string, args map[string]string) ([]llm.Message, error) {
	h := s.Hub()
	if h == nil {
		return nil, errs.New(errs.NotFound, "chat", "this agent has no MCP servers: /mcp prompt needs one")
	}
	if st, err := s.state(server); err != nil {
		return nil, err
	} else if st.Status == hub.Connecting {
		return nil, errs.Errorf(errs.Closed, "chat", "server %q is still connecting: try again when /mcp shows it ready", server)
	}
	items, err := h.Prompts(ctx, server)
	if err != nil {
		return nil, err
	}
	var have []string
	for _, it := range items {
		var p struct {
			Name string `json:"name"`
		}
		json.Unmarshal(it.Raw, &p)
		have = append(have, p.Name)
	}
	slices.Sort(have)
	if !slices.Contains(have, name) {
		list := "it lists none"
		if len(have) > 0 {
			list = "its prompts: " + strings.Join(have, ", ")
		}
		return nil, errs.Errorf(errs.NotFound, "chat", "server %q has no prompt %q (%s)", server, name, list)
	}
	raw, err := h.Prompt(ctx, server, name, args)
	if err != nil {
		return nil, err
	}
	msgs, err := PromptMessages(raw)
	if err != nil {
		return nil, errs.Errorf(errs.Protocol, "chat", "server %q answered prompt %q with %v", server, name, err)
	}
	if len(msgs) == 0 {
		return nil, errs.Errorf(errs.Protocol, "chat", "server %q's prompt %q has no messages: nothing to send", server, name)
	}
	return msgs, nil
}

// PromptMessages reads a prompts/get result: text, image and embedded
// resource content (a resource's text, or a note of its URI and type);
// audio and links become a note of what was left out.
func PromptMessages(raw json.RawMessage) ([]llm.Message, error) {
	var res struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, errs.Errorf(errs.Protocol, "chat", "a result that is not a prompt: %v", err)
	}
	var out []llm.Message
	for _, m := range res.Messages {
		role := llm.RoleUser
		if m.Role == llm.RoleAssistant {
			role = llm.RoleAssistant
		}
		var blocks []json.RawMessage
		if len(m.Content) > 0 && m.Content[0] == '[' {
			json.Unmarshal(m.Content, &blocks)
		} else {
			blocks = []json.RawMessage{m.Content}
		}
		msg := llm.Message{Role: role}
		for _, b := range blocks {
			if p, ok := partOf(b); ok {
				msg.Parts = append(msg.Parts, p)
			}
		}
		out = append(out, msg)
	}
	return out, nil
}

func partOf(b json.RawMessage) (llm.Part, bool) {
	var c struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MIMEType string `json:"mimeType"`
		URI      string `json:"uri"`
		Resource struct {
			URI      string `json:"uri"`
			Text     string `json:"text"`
			MIMEType string `json:"mimeType"`
		} `json:"resource"`
	}
	if json.Unmarshal(b, &c) != nil {
		return llm.Part{}, false
	}
	switch c.Type {
	case "text":
		return llm.Text(c.Text), true
	case "image":
		if data, err := base64.StdEncoding.DecodeString(c.Data); err == nil {
			return llm.Part{Type: "image", MIME: c.MIMEType, Data: data}, true
		}
	case "resource":
		if c.Resource.Text != "" {
			return llm.Text(c.Resource.Text), true
		}
		return llm.Text("[resource " + c.Resource.URI + " (" + c.Resource.MIMEType + ")]"), true
	case "resource_link":
		return llm.Text("[resource link " + c.URI + "]"), true
	}
	return llm.Text("[" + c.Type + " content left out]"), true
}

// Submit sends messages as the next turn: all but the last join the
// conversation as they are, and the last one's text is the turn's prompt
// (so the turn ends as a person's would, whoever the prompt made speak
// last).
func (s *Session) Submit(ctx context.Context, msgs []llm.Message) (string, error) {
	if len(msgs) == 0 {
		return "", errs.New(errs.Invalid, "chat", "nothing to send")
	}
	last := msgs[len(msgs)-1]
	if len(msgs) > 1 {
		s.Agent().Agent().Append(msgs[:len(msgs)-1]...)
	}
	var b strings.Builder
	for _, p := range last.Parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return s.Turn(ctx, b.String())
}

// LastUserText is the text of a sampling request's last user message (what
// an edit replaces).
func LastUserText(params json.RawMessage) string {
	msgs, err := PromptMessages(params)
	if err != nil {
		return ""
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			var b strings.Builder
			for _, p := range msgs[i].Parts {
				b.WriteString(p.Text)
			}
			return b.String()
		}
	}
	return ""
}

// EditSampling returns a sampling request's params with its last user
// message's content replaced by text; the rest is kept as it came.
func EditSampling(params json.RawMessage, text string) (json.RawMessage, error) {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, errs.Errorf(errs.Invalid, "chat", "a sampling request that is not an object: %v", err)
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(p["messages"], &msgs); err != nil {
		return nil, errs.Errorf(errs.Invalid, "chat", "a sampling request without messages: %v", err)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		var role string
		json.Unmarshal(msgs[i]["role"], &role)
		if role == llm.RoleUser {
			msgs[i]["content"], _ = json.Marshal(map[string]string{"type": "text", "text": text})
			p["messages"], _ = json.Marshal(msgs)
			return json.Marshal(p)
		}
	}
	return nil, errs.New(errs.Invalid, "chat", "the sampling request has no user message to edit")
}
