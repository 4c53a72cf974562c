package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/testkit"
)

// costHome is askHome with a configured mock model "priced" whose price
// is price (USD per million tokens).
func costHome(t *testing.T, price map[string]float64) string {
	t.Helper()
	home, _ := askHome(t)
	raw, err := os.ReadFile(filepath.Join(home, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["models"] = map[string]any{"priced": map[string]any{"provider": "mock", "price": price}}
	b, _ := json.Marshal(cfg)
	writeFile(t, home, "config.json", string(b))
	return home
}

type costResult struct {
	Subtype      string  `json:"subtype"`
	IsError      bool    `json:"is_error"`
	Result       string  `json:"result"`
	ErrorKind    string  `json:"error_kind"`
	NumTurns     int     `json:"num_turns"`
	TotalCostUSD float64 `json:"total_cost_usd"`
	CostUnknown  bool    `json:"cost_unknown"`
	ModelUsage   map[string]struct {
		InputTokens  int     `json:"inputTokens"`
		OutputTokens int     `json:"outputTokens"`
		CostUSD      float64 `json:"costUSD"`
	} `json:"modelUsage"`
}

func lastResult(t *testing.T, r result) costResult {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var res costResult
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatalf("last line: %v\nstdout: %s\nstderr: %s", err, r.stdout, r.stderr)
	}
	return res
}

// The configured price reaches stream-json's result: total_cost_usd and
// modelUsage[m].costUSD are the usage the mock reported at that price.
func TestCostStreamJSONConfiguredPrice(t *testing.T) {
	home := costHome(t, map[string]float64{"input": 1000, "output": 2000})
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "--model", "priced", "--output-format", "stream-json", "call echo with message=hi")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	consume(t, r, "--results", "1") // still the documented shapes
	res := lastResult(t, r)
	mu, ok := res.ModelUsage["priced"]
	if !ok || mu.InputTokens == 0 || mu.OutputTokens == 0 {
		t.Fatalf("modelUsage: %+v", res.ModelUsage)
	}
	want := (float64(mu.InputTokens)*1000 + float64(mu.OutputTokens)*2000) / 1e6
	if math.Abs(res.TotalCostUSD-want) > 1e-9 || math.Abs(mu.CostUSD-want) > 1e-9 || res.CostUnknown {
		t.Errorf("total_cost_usd %v, costUSD %v, want %v", res.TotalCostUSD, mu.CostUSD, want)
	}
	// The unpriced mock: the cost is said to be unknown.
	r = luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "--model", "mock", "--output-format", "json", "hello")
	if res := lastResult(t, r); r.code != 0 || !res.CostUnknown || res.TotalCostUSD != 0 {
		t.Errorf("mock: exit %d %+v", r.code, res)
	}
}

// --max-cost stops the run after the response that reaches it: a limit
// error saying how to raise it, error_max_budget_usd in stream-json,
// exit 1, and the session keeps what was done.
func TestCostMaxCost(t *testing.T) {
	// The tool call turn has 1 output token: $1 at this price.
	home := costHome(t, map[string]float64{"output": 1e6})
	for _, flag := range []string{"--max-cost", "--max-budget-usd"} {
		r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "--model", "priced", "--output-format", "stream-json", flag, "0.5", "call echo with message=hi")
		res := lastResult(t, r)
		if r.code != 1 || res.Subtype != "error_max_budget_usd" || !res.IsError || res.ErrorKind != "limit" || res.NumTurns != 1 ||
			!strings.Contains(res.Result, "--max-cost") || res.TotalCostUSD < 0.5 {
			t.Errorf("%s: exit %d, %+v\nstderr: %s", flag, r.code, res, r.stderr)
		}
	}
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "--model", "priced", "--max-cost", "0.5", "call echo with message=hi")
	if r.code != 1 || !strings.Contains(r.stderr, "luagent: limit: ") || !strings.Contains(r.stderr, "the cost bound is reached") {
		t.Errorf("text: exit %d\nstderr: %s", r.code, r.stderr)
	}
	// What was done is kept: the session file has the model's tool call.
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*"))
	kept := false
	for _, f := range files {
		b, _ := os.ReadFile(f)
		kept = kept || strings.Contains(string(b), "srv__echo")
	}
	if !kept {
		t.Errorf("no session kept the run's tool call: %v", files)
	}
	id := strings.TrimSuffix(filepath.Base(files[0]), filepath.Ext(files[0]))
	if r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "sessions", "show", id); !strings.Contains(r.stdout, "cost    $1.00") {
		t.Errorf("sessions show: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	// A model with no known price cannot be bounded.
	r = luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "--model", "mock", "--max-cost", "1", "hello")
	if r.code != 1 || !strings.Contains(r.stderr, "invalid:") || !strings.Contains(r.stderr, "price") {
		t.Errorf("unpriced: exit %d\nstderr: %s", r.code, r.stderr)
	}
	for _, bad := range [][]string{{"--max-cost", "abc"}, {"--max-cost", "0"}, {"--max-turns", "0"}, {"--max-turns", "x"}} {
		r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, append([]string{"ask"}, append(bad, "hi")...)...)
		if r.code != 2 || !strings.Contains(r.stderr, bad[0]) {
			t.Errorf("%v: exit %d\nstderr: %s", bad, r.code, r.stderr)
		}
	}
}

// --max-turns bounds the model requests: error_max_turns, a limit.
func TestCostMaxTurnsFlag(t *testing.T) {
	home := costHome(t, map[string]float64{"input": 1})
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "--model", "priced", "--output-format", "json", "--max-turns", "1", "call echo with message=hi")
	res := lastResult(t, r)
	if r.code != 1 || res.Subtype != "error_max_turns" || res.ErrorKind != "limit" || res.NumTurns != 1 || !strings.Contains(res.Result, "--max-turns") {
		t.Errorf("exit %d, %+v\nstderr: %s", r.code, res, r.stderr)
	}
}

// chat's /cost: each model's tokens and cost, and the total; --max-cost
// ends a turn with the limit and the chat goes on.
func TestCostChatCommand(t *testing.T) {
	home := costHome(t, map[string]float64{"input": 1000, "output": 2000})
	r := luagent(t, "call echo with message=hi\n/cost\n", []string{"LUAGENT_HOME=" + home}, "chat", "--model", "priced")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	out := r.stdout + r.stderr
	for _, want := range []string{"requests", "cached", "priced", "total: $0."} {
		if !strings.Contains(out, want) {
			t.Errorf("/cost lacks %q:\n%s", want, out)
		}
	}
	r = luagent(t, "hello\n/cost\n", []string{"LUAGENT_HOME=" + home}, "chat", "--model", "mock")
	if !strings.Contains(r.stdout+r.stderr, "total: unknown") {
		t.Errorf("unpriced /cost:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
	home = costHome(t, map[string]float64{"output": 1e6})
	r = luagent(t, "call echo with message=hi\n/cost\n", []string{"LUAGENT_HOME=" + home}, "chat", "--model", "priced", "--max-cost", "0.5")
	if out := r.stdout + r.stderr; !strings.Contains(out, "the cost bound is reached") || !strings.Contains(out, "total: $1") {
		t.Errorf("chat --max-cost: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// The cost fields and the budget subtype pass the Agent SDK's own types.
func TestCostStreamJSONAgentSDKTypes(t *testing.T) {
	dir := filepath.Join(testkit.RepoRoot(t), "scripts", "sdktypes")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(dir, "node_modules", "typescript", "package.json")); serr != nil || err != nil {
		if os.Getenv(testkit.SkipEnv) == "1" {
			t.Skipf("scripts/sdktypes is not installed (%s=1)", testkit.SkipEnv)
		}
		t.Fatalf("scripts/sdktypes is not installed: run `make peers` (or set %s=1 to skip)", testkit.SkipEnv)
	}
	home := costHome(t, map[string]float64{"output": 1e6})
	var files []string
	for i, args := range [][]string{
		{"--output-format", "stream-json", "--model", "priced", "hello"},
		{"--output-format", "stream-json", "--model", "priced", "--max-cost", "0.5", "call echo with message=hi"},
		{"--output-format", "json", "--model", "mock", "hello"},
	} {
		r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, append([]string{"ask"}, args...)...)
		files = append(files, writeFile(t, t.TempDir(), fmt.Sprintf("run%d.jsonl", i), r.stdout))
	}
	if out, err := exec.Command(node, append([]string{filepath.Join(dir, "check.mjs")}, files...)...).CombinedOutput(); err != nil {
		t.Fatalf("the Agent SDK's types refuse the output: %v\n%s", err, out)
	}
}
