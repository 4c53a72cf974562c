package chat

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/privfile"
)

const conversationVersion = 1

// Conversation is a saved chat: the whole conversation the model sees
// (Messages) and each turn's transcript (runtime/agent's, with its tool
// calls, decisions and usage). --resume reads one back.
type Conversation struct {
	Version   int                 `json:"version"`
	Model     string              `json:"model,omitempty"`
	AgentFile string              `json:"agent_file,omitempty"`
	Start     time.Time           `json:"start"`
	Saved     time.Time           `json:"saved"`
	Messages  []ragent.Message    `json:"messages"`
	Turns     []ragent.Transcript `json:"turns"`
}

// SessionsDir is where conversations are saved: home/sessions.
func SessionsDir(home string) string { return filepath.Join(home, "sessions") }

// NewFile names a new conversation's file in dir: its start time and a
// random suffix, so two sessions started in the same second differ.
func NewFile(dir string, now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return filepath.Join(dir, now.UTC().Format("2006-01-02T15-04-05")+"-"+hex.EncodeToString(b[:])+".json")
}

// Snapshot is the conversation as it stands.
func (s *Session) Snapshot() Conversation {
	s.mu.Lock()
	conv := s.conv
	a := s.agent
	s.mu.Unlock()
	conv.Turns = append([]ragent.Transcript{}, conv.Turns...)
	conv.Messages = []ragent.Message{}
	for _, m := range a.Agent().Messages() {
		conv.Messages = append(conv.Messages, ragent.MessageOf(m))
	}
	if conv.Model == "" && a.Agent().Model() != nil {
		conv.Model = a.Agent().Model().Name()
	}
	conv.Saved = time.Now().UTC().Round(time.Second)
	return conv
}

// Empty says whether nothing was said yet (nothing worth saving).
func (s *Session) Empty() bool {
	return len(s.Agent().Agent().Messages()) == 0
}

// File is where the conversation is saved on exit.
func (s *Session) File() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.o.File
}

// SetFile changes where the conversation is saved (/clear starts a new file).
func (s *Session) SetFile(path string) {
	s.mu.Lock()
	s.o.File = path
	s.mu.Unlock()
}

// Save writes the conversation to path as JSON, privately (tool arguments
// and results may hold what the user would not share), atomically.
func (s *Session) Save(path string) error {
	b, err := json.MarshalIndent(s.Snapshot(), "", "  ")
	if err != nil {
		return errs.Wrap(errs.Internal, "chat.save", err)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return errs.Errorf(errs.Invalid, "chat.save", "cannot make the folder for %s: %v", path, privfile.PathErr(err))
		}
	}
	if err := privfile.WriteAtomic(path, append(b, '\n')); err != nil {
		return errs.Errorf(errs.Invalid, "chat.save", "cannot write %s: %v", path, privfile.PathErr(err))
	}
	return nil
}

// Load reads a saved conversation.
func Load(path string) (*Conversation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, errs.Errorf(errs.NotFound, "chat.resume", "no conversation at %s (saved ones are in ~/.luagent/sessions)", path)
		}
		return nil, errs.Errorf(errs.Invalid, "chat.resume", "cannot read %s: %v", path, privfile.PathErr(err))
	}
	var c Conversation
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, errs.Errorf(errs.Invalid, "chat.resume", "%s is not a saved conversation: %v", path, err)
	}
	if c.Version != conversationVersion {
		return nil, errs.Errorf(errs.Invalid, "chat.resume", "%s is a conversation of version %d; this luagent reads version %d", path, c.Version, conversationVersion)
	}
	return &c, nil
}

// Resume continues a saved conversation: the agent gets its messages, and
// the turns already taken stay in what is saved next.
func (s *Session) Resume(c *Conversation) {
	msgs := make([]llm.Message, 0, len(c.Messages))
	for _, m := range c.Messages {
		msgs = append(msgs, m.LLM())
	}
	s.mu.Lock()
	a := s.agent
	s.conv.Turns = append([]ragent.Transcript{}, c.Turns...)
	s.conv.Start = c.Start
	s.mu.Unlock()
	a.Agent().Seed(msgs)
}
