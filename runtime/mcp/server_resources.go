package mcp

import (
	"encoding/json"
	"regexp"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
)

// Resource is one entry of resources/list. Raw, when set, is the entry as
// is (the registry reads uri and mimeType from it).
type Resource struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Raw         json.RawMessage `json:"-"`
}

// ResourceTemplate is one entry of resources/templates/list: {var} in
// URITemplate matches one path segment of a URI read. Raw as for Resource.
type ResourceTemplate struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Raw         json.RawMessage `json:"-"`
}

// ResourceHandler serves resources/read of a resource or template; it
// answers with read.Return, as a ToolHandler does.
type ResourceHandler func(read *ResourceRead)

// ResourceRead is one resources/read of a registered resource, or of a URI
// a template matches.
type ResourceRead struct {
	*Request
	URI  string
	Vars map[string]string // a template's variables, as matched in URI
	mime string
}

// ReadResourceResult is what resources/read answers. Raw, when set, is the
// whole result, sent as is.
type ReadResourceResult struct {
	Contents []ResourceContents `json:"contents"`
	Raw      json.RawMessage    `json:"-"`
}

// ResourceContents is one item of a read: Text, or Blob when it is set
// (sent in base64). An empty URI is the URI read, an empty MIMEType the
// resource's own.
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
	Meta     json.RawMessage
}

// MarshalJSON sends text, or blob when there is one.
func (c ResourceContents) MarshalJSON() ([]byte, error) {
	w := struct {
		URI      string          `json:"uri"`
		MIMEType string          `json:"mimeType,omitempty"`
		Text     *string         `json:"text,omitempty"`
		Blob     []byte          `json:"blob,omitempty"`
		Meta     json.RawMessage `json:"_meta,omitempty"`
	}{URI: c.URI, MIMEType: c.MIMEType, Blob: c.Blob, Meta: c.Meta}
	if c.Blob == nil {
		w.Text = &c.Text
	}
	return json.Marshal(w)
}

type serverResource struct {
	def     json.RawMessage
	mime    string
	handler ResourceHandler
}

type serverTemplate struct {
	serverResource
	pattern *regexp.Regexp
	vars    []string
}

// rawFields reads what the registry needs of a Raw definition.
func rawFields(raw json.RawMessage, v any) error {
	if raw == nil {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return errs.Errorf(errs.Invalid, "", "the definition is not a JSON object: %v", err)
	}
	return nil
}

// AddResource registers r, read by h, or replaces the resource of that
// URI where it stands in the list. Errors are of kind Invalid.
func (s *Server) AddResource(r Resource, h ResourceHandler) error {
	if s.reg == nil {
		return errCustomHandler
	}
	if err := rawFields(r.Raw, &r); err != nil {
		return err
	}
	if r.URI == "" || h == nil {
		return errs.New(errs.Invalid, "", "a resource needs a uri and a handler")
	}
	if r.Name == "" && r.Raw == nil {
		r.Name = r.URI
	}
	def, err := definition(r.Raw, r)
	if err != nil {
		return err
	}
	return add(s, "resources", resourceEntries, "", r.URI, &serverResource{def: def, mime: r.MIMEType, handler: h})
}

// RemoveResources removes the resources of those URIs and says how many
// there were.
func (s *Server) RemoveResources(uris ...string) int {
	return remove(s, "resources", resourceEntries, "", uris)
}

// templateVar compiles on first use, not at every start.
var templateVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([A-Za-z0-9_]+)\}`) })

// AddResourceTemplate registers t, read by h for every URI it matches, or
// replaces the template of that uriTemplate where it stands in the list
// (and drops its completions: set them again). {var} matches one path
// segment; other RFC 6570 operators are not expanded and match literally.
// Errors are of kind Invalid.
func (s *Server) AddResourceTemplate(t ResourceTemplate, h ResourceHandler) error {
	if s.reg == nil {
		return errCustomHandler
	}
	if err := rawFields(t.Raw, &t); err != nil {
		return err
	}
	if t.URITemplate == "" || h == nil {
		return errs.New(errs.Invalid, "", "a resource template needs a uriTemplate and a handler")
	}
	if t.Name == "" && t.Raw == nil {
		t.Name = t.URITemplate
	}
	def, err := definition(t.Raw, t)
	if err != nil {
		return err
	}
	st := &serverTemplate{serverResource: serverResource{def: def, mime: t.MIMEType, handler: h}}
	pat, last := "^", 0
	for _, loc := range templateVar().FindAllStringSubmatchIndex(t.URITemplate, -1) {
		pat += regexp.QuoteMeta(t.URITemplate[last:loc[0]]) + `([^/?#]+)`
		st.vars = append(st.vars, t.URITemplate[loc[2]:loc[3]])
		last = loc[1]
	}
	st.pattern = regexp.MustCompile(pat + regexp.QuoteMeta(t.URITemplate[last:]) + "$")
	return add(s, "resources", templateEntries, "ref/resource", t.URITemplate, st)
}

// RemoveResourceTemplates removes the templates of those uriTemplates (and
// their completions) and says how many there were.
func (s *Server) RemoveResourceTemplates(uriTemplates ...string) int {
	return remove(s, "resources", templateEntries, "ref/resource", uriTemplates)
}

// Return answers the read once: with res, or not found (-32602 modern,
// -32002 legacy) when res is nil or err is of kind NotFound; any other err
// fails the request with its message.
func (rd *ResourceRead) Return(res *ReadResourceResult, err error) {
	switch {
	case errs.Is(err, errs.NotFound) || err == nil && res == nil:
		rd.NotFound(rd.URI)
	case err != nil:
		rd.Fail(err)
	case res.Raw != nil:
		rd.Reply(res.Raw)
	default:
		out := ReadResourceResult{Contents: make([]ResourceContents, len(res.Contents))}
		for i, c := range res.Contents {
			if c.URI == "" {
				c.URI = rd.URI
			}
			if c.MIMEType == "" {
				c.MIMEType = rd.mime
			}
			out.Contents[i] = c
		}
		b, err := json.Marshal(out)
		if err != nil {
			rd.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the resource cannot be sent: " + err.Error()})
			return
		}
		rd.Reply(b)
	}
}

func (reg *registry) readResource(r *Request) {
	uri := r.StringParam("uri")
	read := &ResourceRead{Request: r, URI: uri}
	reg.mu.RLock()
	var h ResourceHandler
	if res := reg.resources.get(uri); res != nil {
		h, read.mime = res.handler, res.mime
	} else {
		reg.templates.each(func(t *serverTemplate) bool {
			m := t.pattern.FindStringSubmatch(uri)
			if m == nil {
				return true
			}
			h, read.mime = t.handler, t.mime
			read.Vars = make(map[string]string, len(t.vars))
			for i, v := range t.vars {
				read.Vars[v] = m[i+1]
			}
			return false
		})
	}
	reg.mu.RUnlock()
	if h == nil {
		r.NotFound(uri)
		return
	}
	h(read)
}
