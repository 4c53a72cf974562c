package llm_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/luagent/luagent/runtime/llm"
)

func ExampleNew() {
	// A configured model by name, or a spec: "openai:gpt-4.1-mini",
	// "ollama:llama3.2", "anthropic:claude-sonnet-4-5", "mock".
	cfg := llm.Config{
		Lookup: func(string) (string, bool) { return "", false }, // no keys set
		Models: map[string]llm.ModelConfig{"local": {Provider: "ollama", Model: "llama3.2"}},
	}
	m, err := llm.New("local", cfg)
	fmt.Println(m.Name(), err)
	_, err = llm.New("anthropic:claude-sonnet-4-5", cfg)
	fmt.Println(err)
	// Output:
	// local <nil>
	// anthropic:claude-sonnet-4-5: no API key: set ANTHROPIC_API_KEY
}

func ExampleNewMock() {
	m := llm.NewMock("mock")
	req := &llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.Text("add 2 and 3")}}},
		Tools: []llm.Tool{{Name: "add", Description: "Add two numbers",
			Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)}},
	}
	resp, _ := m.Stream(context.Background(), req, nil)
	call := resp.Message.ToolCalls[0]
	fmt.Println(resp.StopReason, call.Name, string(call.Arguments))

	req.Messages = append(req.Messages, resp.Message,
		llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Parts: []llm.Part{llm.Text("2")}})
	resp, _ = m.Stream(context.Background(), req, func(e llm.Event) { fmt.Print(e.Text) })
	fmt.Println()
	fmt.Println(resp.StopReason)
	// Output:
	// tool_calls add {"a":1,"b":1}
	// The tool returned: "2"
	// end
}

func ExampleFunc() {
	m := llm.Func("scripted", func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.Message{Parts: []llm.Part{llm.Text("hello from Go")}}}, nil
	})
	resp, _ := m.Stream(context.Background(), &llm.Request{}, nil)
	fmt.Println(resp.Message.Parts[0].Text, resp.StopReason)
	// Output: hello from Go end
}

func ExampleExampleArguments() {
	fmt.Println(string(llm.ExampleArguments(json.RawMessage(
		`{"type":"object","properties":{"city":{"type":"string"},"units":{"enum":["metric","imperial"]},"days":{"type":"integer","minimum":3}},"required":["city","units","days"]}`))))
	// Output: {"city":"example","days":3,"units":"metric"}
}
