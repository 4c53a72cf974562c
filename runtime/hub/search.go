package hub

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/luagent/luagent/runtime/mcp"
)

// SearchOptions narrow a Search.
type SearchOptions struct {
	Server string // only this server's tools ("" for all)
	Limit  int    // at most this many results (0: 10)
}

// Search ranks the catalog's tools against query with BM25 (k1 = 1.2,
// b = 0.75) over their names, titles, descriptions, argument names and
// their server's name ("github issue" finds github's issue tools), the
// tool's name weighing most. Words are split at non-letters and at
// snake_case and camelCase boundaries, lowercased, a plural s dropped:
// "readFile" finds read_file, "files" finds "file". The index is kept per
// server and rebuilt only for the server whose tools changed. Ties go to
// the smaller qualified name; an empty query lists tools by name. partial
// is as in Tools.
func (h *Hub) Search(query string, o SearchOptions) (results []Tool, partial bool) {
	if o.Limit <= 0 {
		o.Limit = 10
	}
	terms := tokenize(query)
	h.mu.Lock()
	defer h.mu.Unlock()
	partial = h.partialLocked()
	var shards []*server
	for _, name := range h.order {
		if s := h.servers[name]; (o.Server == "" || o.Server == name) && len(s.tools) > 0 {
			shards = append(shards, s)
		}
	}
	type hit struct {
		s     *server
		i     int
		score float64
	}
	// hits keeps the best o.Limit so far, best first: one insertion per
	// candidate that beats the last, instead of sorting every match.
	hits := make([]hit, 0, o.Limit)
	better := func(a, b hit) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		return a.s.qnames[a.i] < b.s.qnames[b.i]
	}
	offer := func(c hit) {
		if len(hits) == o.Limit && !better(c, hits[len(hits)-1]) {
			return
		}
		if len(hits) < o.Limit {
			hits = append(hits, c)
		}
		j := len(hits) - 1
		for ; j > 0 && better(c, hits[j-1]); j-- {
			hits[j] = hits[j-1]
		}
		hits[j] = c
	}
	if len(terms) == 0 {
		for _, s := range shards {
			for i := range s.tools {
				offer(hit{s, i, 0})
			}
		}
	} else {
		// Collection statistics across the shards searched.
		var n, total float64
		for _, s := range shards {
			n += float64(len(s.index.lens))
			total += s.index.total
		}
		avg := total / math.Max(n, 1)
		const k1, b = 1.2, 0.75
		for _, s := range shards {
			scores := make([]float64, len(s.index.lens))
			matched := false
			for _, t := range terms {
				ps := s.index.postings[t]
				if len(ps) == 0 {
					continue
				}
				var df float64
				for _, o := range shards {
					df += float64(len(o.index.postings[t]))
				}
				idf := math.Log(1 + (n-df+0.5)/(df+0.5))
				for _, p := range ps {
					tf := float64(p.tf)
					norm := k1 * (1 - b + b*float64(s.index.lens[p.doc])/avg)
					scores[p.doc] += idf * tf * (k1 + 1) / (tf + norm)
					matched = true
				}
			}
			if !matched {
				continue
			}
			for i, sc := range scores {
				if sc > 0 {
					offer(hit{s, i, sc})
				}
			}
		}
	}
	results = make([]Tool, len(hits))
	for k, x := range hits {
		results[k] = x.s.tool(x.i)
		x.s.handed[x.s.tools[x.i].Name] = x.s.hashes[x.i]
	}
	return results, partial
}

// shard is one server's inverted index.
type shard struct {
	postings map[string][]posting
	lens     []float32 // weighted length per tool
	total    float64
}

type posting struct {
	doc int32
	tf  float32 // weighted term frequency
}

// Field weights: a word of the name counts three times one of the
// description.
const (
	weightName  = 3
	weightTitle = 2
	weightArg   = 1.5
	weightDesc  = 1
	// weightServer: the server's name is a word of each of its tools,
	// as one of the description.
	weightServer = 1
)

func newShard(server string, tools []mcp.Tool) *shard {
	sh := &shard{postings: map[string][]posting{}, lens: make([]float32, len(tools))}
	tf := map[string]float32{}
	for i, t := range tools {
		clear(tf)
		var l float32
		add := func(text string, w float32) {
			for _, term := range tokenize(text) {
				tf[term] += w
				l += w
			}
		}
		add(t.Name, weightName)
		add(t.Title, weightTitle)
		if t.Annotations != nil && t.Annotations.Title != t.Title {
			add(t.Annotations.Title, weightTitle)
		}
		add(t.Description, weightDesc)
		add(server, weightServer)
		for _, a := range argNames(t.InputSchema) {
			add(a, weightArg)
		}
		sh.lens[i] = l
		sh.total += float64(l)
		for term, f := range tf {
			sh.postings[term] = append(sh.postings[term], posting{int32(i), f})
		}
	}
	return sh
}

// argNames are the top-level property names of an input schema.
func argNames(schema json.RawMessage) []string {
	if len(schema) == 0 {
		return nil
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// tokenize splits text into lowercased words at non-letters/digits and
// at camelCase boundaries (HTTPServer: http, server), dropping a plural s.
func tokenize(text string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, normalize(text[start:end]))
		}
		start = -1
	}
	var prev rune
	for i, r := range text {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			prev = r
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			rest := text[i+utf8.RuneLen(r):]
			next, n := utf8.DecodeRuneInString(rest)
			after, _ := utf8.DecodeRuneInString(rest[n:])
			plural := next == 's' && !unicode.IsLower(after) // URLs: one word
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && unicode.IsLower(next) && !plural) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
		prev = r
	}
	flush(len(text))
	return out
}

func normalize(w string) string {
	w = strings.ToLower(w)
	if len(w) > 3 && w[len(w)-1] == 's' && w[len(w)-2] != 's' {
		w = w[:len(w)-1]
	}
	return w
}
