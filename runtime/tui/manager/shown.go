package manager

import (
	"slices"

	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/visible"
)

// What the manager shows of a server is made visible as it comes in
// (runtime/visible): the server's names, titles, descriptions, schema
// words, instructions and stderr cannot drive the terminal, and only the
// manager's own styling writes escapes. Errors show through chat.OneLine,
// which does the same.

func shownState(st hub.State) hub.State {
	st.Name = visible.Line(st.Name)
	si := &st.Info.ServerInfo
	si.Name, si.Version, si.Title, si.Description, si.WebsiteURL = visible.Line(si.Name), visible.Line(si.Version),
		visible.Line(si.Title), visible.Line(si.Description), visible.Line(si.WebsiteURL)
	st.Info.ProtocolVersion = visible.Line(st.Info.ProtocolVersion)
	st.Info.Instructions = visible.Text(st.Info.Instructions)
	st.Stderr = lines(st.Stderr)
	return st
}

func shownStates(states []hub.State) []hub.State {
	out := make([]hub.State, len(states))
	for i, st := range states {
		out[i] = shownState(st)
	}
	return out
}

func shownDetails(d chat.Details) chat.Details {
	d.Name, d.Target, d.Transport = visible.Line(d.Name), visible.Line(d.Target), visible.Line(d.Transport)
	d.State = shownState(d.State)
	d.EnvKeys, d.HeaderKeys = lines(d.EnvKeys), lines(d.HeaderKeys)
	d.Tools = slices.Clone(d.Tools)
	for i := range d.Tools {
		t := &d.Tools[i]
		t.Name, t.Title, t.Description = visible.Line(t.Name), visible.Line(t.Title), visible.Text(t.Description)
		t.Fields = slices.Clone(t.Fields)
		for j := range t.Fields {
			f := &t.Fields[j]
			f.Name, f.Type, f.Description, f.Default, f.Format = visible.Line(f.Name), visible.Line(f.Type),
				visible.Text(f.Description), visible.Line(f.Default), visible.Line(f.Format)
			f.Enum = lines(f.Enum)
		}
	}
	d.Prompts = slices.Clone(d.Prompts)
	for i := range d.Prompts {
		p := &d.Prompts[i]
		p.Name, p.Title, p.Description = visible.Line(p.Name), visible.Line(p.Title), visible.Text(p.Description)
		p.Args = slices.Clone(p.Args)
		for j := range p.Args {
			p.Args[j].Name, p.Args[j].Description = visible.Line(p.Args[j].Name), visible.Text(p.Args[j].Description)
		}
	}
	d.Resources = slices.Clone(d.Resources)
	for i := range d.Resources {
		r := &d.Resources[i]
		r.URI, r.Name, r.MimeType = visible.Line(r.URI), visible.Line(r.Name), visible.Line(r.MimeType)
	}
	return d
}

func lines(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = visible.Line(s)
	}
	return out
}
