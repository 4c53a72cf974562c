package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/luagent/luagent/runtime/hub"
)

// Details are what the /mcp manager shows of one server: its state, its
// entry (the command or URL; env and header names only, never their
// values), its tools with their input schemas, prompts and resources.
type Details struct {
	Name      string
	State     hub.State
	Transport string // "stdio", "http", "-" when the catalog has no entry
	// Target is the URL, or the command line with its arguments.
	Target string
	// EnvKeys and HeaderKeys name the entry's env and headers (values are
	// never kept here: they may be secrets).
	EnvKeys, HeaderKeys []string

	Tools     []ToolDetail
	Prompts   []PromptDetail
	Resources []ResourceDetail
	// PromptsErr and ResourcesErr say why a listing failed (nil: it did
	// not, or the server has no such capability).
	PromptsErr, ResourcesErr error
	HasPrompts, HasResources bool
}

// ToolDetail is one tool: what the server says of it and its input
// schema, read into fields.
type ToolDetail struct {
	Name, Title, Description string
	Hints                    []string // read-only, destructive, idempotent, open world
	Schema                   json.RawMessage
	Fields                   []SchemaField
}

// SchemaField is one property of an input schema; nested objects' and
// arrays' properties follow their parent with Depth one more.
type SchemaField struct {
	Name        string
	Depth       int
	Type        string // "string", "integer|null", "array of string", "any"
	Required    bool
	Description string
	Enum        []string // each value as JSON
	Default     string   // as JSON ("" for none)
	Format      string
}

// PromptDetail is one prompt and its arguments.
type PromptDetail struct {
	Name, Title, Description string
	Args                     []PromptArg
}

// PromptArg is one argument of a prompt.
type PromptArg struct {
	Name, Description string
	Required          bool
}

// ResourceDetail is one resource.
type ResourceDetail struct{ URI, Name, MimeType string }

// Details gathers a server's details; prompts and resources are listed
// (ctx bounds those requests) only when the server is ready and offers
// them.
func (s *Servers) Details(ctx context.Context, name string) (Details, error) {
	st, err := s.state(name)
	if err != nil {
		return Details{}, err
	}
	d := Details{Name: name, State: st, Transport: "-"}
	for _, e := range s.Catalog() {
		if e.Name == name {
			d.Transport, d.Target = e.Transport(), e.Shown()
			d.EnvKeys = slices.Sorted(maps.Keys(e.Env))
			d.HeaderKeys = slices.Sorted(maps.Keys(e.Headers))
		}
	}
	if st.Status != hub.Ready {
		return d, nil
	}
	tools, _ := s.h.Tools()
	for _, t := range tools {
		if t.Server != name {
			continue
		}
		td := ToolDetail{Name: t.Def.Name, Title: t.Def.Title, Description: t.Def.Description, Schema: t.Def.InputSchema,
			Fields: SchemaFields(t.Def.InputSchema)}
		if td.Title == "" && t.Def.Annotations != nil {
			td.Title = t.Def.Annotations.Title
		}
		if h := hints(t.Def.Annotations); h != "" {
			td.Hints = strings.Split(h, ", ")
		}
		d.Tools = append(d.Tools, td)
	}
	if st.Info.Capabilities.Prompts != nil {
		d.HasPrompts = true
		items, err := s.h.Prompts(ctx, name)
		d.PromptsErr = err
		for _, it := range items {
			var p struct {
				Name, Title, Description string
				Arguments                []struct {
					Name, Description string
					Required          bool
				}
			}
			json.Unmarshal(it.Raw, &p)
			pd := PromptDetail{Name: p.Name, Title: p.Title, Description: p.Description}
			for _, a := range p.Arguments {
				pd.Args = append(pd.Args, PromptArg{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			d.Prompts = append(d.Prompts, pd)
		}
	}
	if st.Info.Capabilities.Resources != nil {
		d.HasResources = true
		items, err := s.h.Resources(ctx, name)
		d.ResourcesErr = err
		for _, it := range items {
			var r struct{ URI, Name, MimeType string }
			json.Unmarshal(it.Raw, &r)
			d.Resources = append(d.Resources, ResourceDetail(r))
		}
	}
	return d, nil
}

// maxSchemaDepth bounds how deep SchemaFields follows nested objects: a
// schema view, not a validator.
const maxSchemaDepth = 3

// SchemaFields reads an input schema's properties, in the schema's
// order, with their nested objects' and array items' properties after
// each (nil for a schema that is not an object with properties).
func SchemaFields(schema json.RawMessage) []SchemaField {
	var out []SchemaField
	schemaFields(schema, 0, &out)
	return out
}

func schemaFields(schema json.RawMessage, depth int, out *[]SchemaField) {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if depth >= maxSchemaDepth || json.Unmarshal(schema, &s) != nil {
		return
	}
	props, _ := orderedMembers(s.Properties)
	for _, p := range props {
		var ps struct {
			Type        any               `json:"type"`
			Description string            `json:"description"`
			Enum        []json.RawMessage `json:"enum"`
			Default     json.RawMessage   `json:"default"`
			Format      string            `json:"format"`
			Items       json.RawMessage   `json:"items"`
			Properties  json.RawMessage   `json:"properties"`
		}
		json.Unmarshal(p.raw, &ps)
		f := SchemaField{Name: p.name, Depth: depth, Type: typeWord(ps.Type), Required: slices.Contains(s.Required, p.name),
			Description: ps.Description, Default: string(ps.Default), Format: ps.Format}
		for _, e := range ps.Enum {
			f.Enum = append(f.Enum, string(e))
		}
		var items struct {
			Type any `json:"type"`
		}
		if len(ps.Items) > 0 && json.Unmarshal(ps.Items, &items) == nil {
			f.Type += " of " + typeWord(items.Type)
		}
		*out = append(*out, f)
		if len(ps.Properties) > 0 {
			schemaFields(p.raw, depth+1, out)
		} else if len(ps.Items) > 0 {
			schemaFields(ps.Items, depth+1, out)
		}
	}
}

// typeWord is a JSON Schema "type" as a word: "string", "integer|null",
// "any" when absent.
func typeWord(t any) string {
	switch v := t.(type) {
	case string:
		return v
	case []any:
		var w []string
		for _, x := range v {
			w = append(w, fmt.Sprint(x))
		}
		return strings.Join(w, "|")
	}
	return "any"
}
