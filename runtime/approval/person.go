package approval

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
)

// Choice is a person's answer to an approval question.
type Choice int

// The choices.
const (
	Refuse       Choice = iota // deny this call
	AllowOnce                  // this call
	AllowSession               // this tool, until the session ends
	// AllowAlways is this tool from now on: the session remembers it as
	// AllowSession, and the chat saves a permission rule (Answer.Where).
	AllowAlways
)

// Where an AllowAlways answer's rule is saved (Answer.Where).
const (
	SaveDefault = ""     // the project's file in a project or repository, else the user's
	SaveUser    = "user" // the user's config.json
)

// Answer is a person's answer: a choice and, for a denial, the reason the
// model is told.
type Answer struct {
	Choice Choice
	Reason string
	// Edit asks to edit a sampling request before it runs (the answer
	// "e"); Edited is the request as edited, which runs instead.
	Edit   bool
	Edited json.RawMessage
	// Where is where an AllowAlways answer's rule goes: SaveDefault or
	// SaveUser.
	Where string
}

// ParseAnswer reads an answer typed at an approval question: y (yes,
// once), a (always: a rule saved in the project's file, or the user's
// outside a project), u (always, the rule saved in the user's file), s
// (this tool for the session), n (no) with an optional reason after it
// ("n not that file"), e (edit a sampling request, then run it once).
// Anything else is not an answer.
func ParseAnswer(line string) (Answer, bool) {
	word, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(word) {
	case "y", "yes":
		return Answer{Choice: AllowOnce}, rest == ""
	case "a", "always":
		return Answer{Choice: AllowAlways}, rest == ""
	case "u", "user":
		return Answer{Choice: AllowAlways, Where: SaveUser}, rest == ""
	case "s", "session":
		return Answer{Choice: AllowSession}, rest == ""
	case "n", "no":
		return Answer{Choice: Refuse, Reason: rest}, true
	case "e", "edit":
		return Answer{Choice: AllowOnce, Edit: true}, rest == ""
	}
	return Answer{}, false
}

// Person is a person answering an agent's questions for one session: tools
// allowed for the session pass unasked, the rest go to Question, and the
// answer becomes a decision with its reason.
type Person struct {
	question func(ctx context.Context, c Call) Answer
	mu       sync.Mutex
	allowed  map[string]bool
}

// NewPerson returns a person asked through question (a UI's).
func NewPerson(question func(ctx context.Context, c Call) Answer) *Person {
	return &Person{question: question, allowed: map[string]bool{}}
}

// toolKey names what "allow for the session" allows: a server's tool, a
// local tool, or a server's sampling requests.
func toolKey(c Call) string {
	switch {
	case c.Kind == KindSampling:
		return "sampling:" + c.Server
	case c.Server != "":
		return c.Server + "\x00" + c.Tool
	}
	return c.Name
}

// Decide asks (unless the tool is allowed for the session) and returns
// the decision, its reason, and the answer as given (an edited sampling
// request is the caller's to keep). ctx ending while asked is a denial.
func (p *Person) Decide(ctx context.Context, c Call) (Decision, string, Answer) {
	key := toolKey(c)
	p.mu.Lock()
	ok := p.allowed[key]
	p.mu.Unlock()
	if ok {
		return Allow, "allowed for this session", Answer{Choice: AllowSession}
	}
	ap := p.question(ctx, c)
	if ctx.Err() != nil {
		return Deny, "the turn was cancelled", ap
	}
	switch ap.Choice {
	case AllowOnce:
		return Allow, "allowed by the user", ap
	case AllowSession, AllowAlways:
		p.mu.Lock()
		p.allowed[key] = true
		p.mu.Unlock()
		if ap.Choice == AllowAlways && c.Kind != KindSampling {
			return Allow, "allowed by the user from now on", ap
		}
		return Allow, "allowed by the user for this session", ap
	}
	if ap.Reason != "" {
		return Deny, "denied by the user: " + ap.Reason, ap
	}
	return Deny, "denied by the user", ap
}
