package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/skills"
)

// Skills of the servers that declare the skills extension: listed when
// the server connects (skills/list only: no skill file is read until a
// skill is loaded) and listed again when its client reconnects.

// Skill is one skill a ready server publishes.
type Skill struct {
	// Name is the qualified name (SERVER__NAME), what LoadSkill takes.
	Name   string
	Server string
	// Skill is the skill's own name; Description its front matter's.
	Skill       string
	Description string
	Entry       skills.Entry
}

// serverSkills is one server's listing (under Hub.mu).
type serverSkills struct {
	remote   *skills.Remote
	entries  []skills.Entry
	problems []skills.Problem
	err      error // skills/list failed
}

// EventSkills is the Event a server's skills being listed again (after
// its client reconnected) sends; a (re)start lists them before Ready.
const EventSkills = "skills"

// relistTimeout bounds listing the skills again after a reconnect.
const relistTimeout = 30 * time.Second

// skillsExtension is what the hub's clients declare: they speak the
// skills extension (through runtime/skills).
func skillsExtension() map[string]json.RawMessage {
	return map[string]json.RawMessage{skills.Extension: nil}
}

// listSkills lists a server's skills if it declares the extension (nil if
// it does not). A failed listing leaves the server usable, without skills.
func (h *Hub) listSkills(ctx context.Context, name string, c *mcp.Client) *serverSkills {
	if c.Info().Capabilities.Extensions[skills.Extension] == nil {
		return nil
	}
	sk := &serverSkills{remote: skills.NewRemote(name, c)}
	sk.entries, sk.problems, sk.err = sk.remote.List(ctx)
	if h.opts.Logf != nil {
		if sk.err != nil {
			h.opts.Logf("hub: %s: skills/list failed: %v", name, sk.err)
		}
		for _, p := range sk.problems {
			h.opts.Logf("hub: %s: skill %s", name, p)
		}
	}
	return sk
}

// relistSkills lists a reconnected server's skills again: what it serves
// may have changed, so skills load afresh.
func (h *Hub) relistSkills(s *server, gen int, c *mcp.Client) {
	ctx, cancel := context.WithTimeout(h.ctx, relistTimeout)
	defer cancel()
	sk := h.listSkills(ctx, s.cfg.Name, c)
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.gen == gen && s.client == c && !h.closed {
		s.skills = sk
		h.emitLocked(Event{Kind: EventSkills, State: s.snapshot()})
	}
}

// Skills returns the ready servers' skills, in catalog order.
func (h *Hub) Skills() []Skill {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Skill
	for _, name := range h.order {
		s := h.servers[name]
		if s.state.Status != Ready || s.client == nil || s.skills == nil {
			continue
		}
		count := map[string]int{}
		for _, e := range s.skills.entries {
			count[e.Name]++
		}
		for _, e := range s.skills.entries {
			out = append(out, Skill{Name: skillName(name, e, count[e.Name] > 1), Server: name, Skill: e.Name, Description: e.Description, Entry: e})
		}
	}
	return out
}

// skillName is SERVER__NAME when that is a valid tool-style name and the
// server has one skill of that name; otherwise the name is cut to fit and
// ends in a hash of the server and the skill's URI.
func skillName(server string, e skills.Entry, shared bool) string {
	if n := server + "__" + e.Name; ValidName(n) && !shared {
		return n
	}
	sum := sha256.Sum256([]byte(server + "\x00" + e.URI))
	suffix := "_" + hex.EncodeToString(sum[:])[:8]
	base := sanitize(server + "__" + e.Name)
	return base[:min(len(base), MaxName-len(suffix))] + suffix
}

// skill finds a skill by qualified name, with its server's listing.
func (h *Hub) skill(name string) (Skill, *skills.Remote, error) {
	for _, sk := range h.Skills() {
		if sk.Name == name {
			h.mu.Lock()
			defer h.mu.Unlock()
			if s := h.servers[sk.Server]; s != nil && s.skills != nil {
				return sk, s.skills.remote, nil
			}
			break
		}
	}
	return Skill{}, nil, errs.Errorf(errs.NotFound, "hub", "no skill %q among the ready servers' skills", name)
}

// LoadSkill loads a server's skill: its SKILL.md, read now and verified
// against the listing (size, digest, front matter). An errs.Integrity
// error means the server's content failed the check and was not used.
func (h *Hub) LoadSkill(ctx context.Context, name string) (*skills.Loaded, error) {
	sk, r, err := h.skill(name)
	if err != nil {
		return nil, err
	}
	l, err := r.Load(ctx, sk.Entry)
	if l != nil {
		l.Name = sk.Name
	}
	return l, err
}

// ReadSkillFile reads a file of a loaded skill (by its path relative to
// the skill's folder, or its URI), verified like LoadSkill.
func (h *Hub) ReadSkillFile(ctx context.Context, name, path string) (*skills.File, error) {
	sk, r, err := h.skill(name)
	if err != nil {
		return nil, err
	}
	return r.ReadFile(ctx, sk.Entry, path)
}

// SkillSource is the hub's skills as a skills.Source, for an agent.
func (h *Hub) SkillSource() skills.Source { return hubSkills{h} }

type hubSkills struct{ h *Hub }

func (hs hubSkills) List() []skills.Info {
	all := hs.h.Skills()
	out := make([]skills.Info, len(all))
	for i, sk := range all {
		out[i] = skills.Info{Name: sk.Name, Description: sk.Description, Skill: sk.Skill, Server: sk.Server,
			Origin: fmt.Sprintf("%s (server %q)", sk.Entry.URI, sk.Server)}
	}
	return out
}

func (hs hubSkills) Load(ctx context.Context, name string) (*skills.Loaded, error) {
	return hs.h.LoadSkill(ctx, name)
}

func (hs hubSkills) ReadFile(ctx context.Context, name, path string) (*skills.File, error) {
	return hs.h.ReadSkillFile(ctx, name, path)
}
