package agent

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luagent/luagent/runtime/llm"
)

// parts maps a tool result to what the model sees, in order: text blocks
// joined by newlines; images as llm image parts (always passed: a
// provider that cannot take an image in a tool result describes it);
// audio described as "[audio: MIME, N bytes]"; resource links as a line
// with their URI; embedded resources as their text, an image, or a
// description; structuredContent as JSON when there is no text at all.
func parts(r Result) []llm.Part {
	var out []llm.Part
	var text strings.Builder
	hasText := false
	addText := func(s string) {
		if hasText {
			text.WriteByte('\n')
		}
		text.WriteString(s)
		hasText = true
	}
	flush := func() {
		if hasText {
			out = append(out, llm.Text(text.String()))
			text.Reset()
			hasText = false
		}
	}
	sawText := false
	for _, raw := range r.Content {
		var b struct {
			Type        string           `json:"type"`
			Text        string           `json:"text"`
			Data        string           `json:"data"`
			MIMEType    string           `json:"mimeType"`
			URI         string           `json:"uri"`
			Name        string           `json:"name"`
			Description string           `json:"description"`
			Resource    *resourceContent `json:"resource"`
		}
		if json.Unmarshal(raw, &b) != nil {
			addText(string(raw))
			continue
		}
		switch b.Type {
		case "text":
			addText(b.Text)
			sawText = true
		case "image":
			data, err := base64.StdEncoding.DecodeString(b.Data)
			if err != nil {
				addText(fmt.Sprintf("[image: %s, undecodable data]", b.MIMEType))
				continue
			}
			flush()
			out = append(out, llm.Part{Type: "image", MIME: b.MIMEType, Data: data})
		case "audio":
			addText(fmt.Sprintf("[audio: %s, %d bytes]", b.MIMEType, base64.StdEncoding.DecodedLen(len(b.Data))-padding(b.Data)))
		case "resource_link":
			line := "[resource link: " + b.URI
			for _, s := range []string{b.Name, b.MIMEType, b.Description} {
				if s != "" {
					line += ", " + s
				}
			}
			addText(line + "]")
		case "resource":
			if b.Resource == nil {
				continue
			}
			res := b.Resource
			switch {
			case res.Text != nil:
				addText("[resource " + res.URI + "]\n" + *res.Text)
				sawText = true
			case strings.HasPrefix(res.MIMEType, "image/"):
				if data, err := base64.StdEncoding.DecodeString(res.Blob); err == nil {
					flush()
					out = append(out, llm.Part{Type: "image", MIME: res.MIMEType, Data: data})
					continue
				}
				fallthrough
			default:
				addText(fmt.Sprintf("[resource %s: %s, %d bytes]", res.URI, res.MIMEType, base64.StdEncoding.DecodedLen(len(res.Blob))-padding(res.Blob)))
			}
		default:
			addText(string(raw))
		}
	}
	if !sawText && len(r.StructuredContent) > 0 {
		addText(string(r.StructuredContent))
	}
	flush()
	if len(out) == 0 {
		out = append(out, llm.Text("(no output)"))
	}
	return out
}

func padding(b64 string) int {
	return len(b64) - len(strings.TrimRight(b64, "="))
}

// resourceContent is one of a resource's contents (resources/read, or a
// tool result's embedded resource): text or a base64 blob.
type resourceContent struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType"`
	Text     *string `json:"text"`
	Blob     string  `json:"blob"`
}
