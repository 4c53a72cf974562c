package mcp_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// A Go tool that runs as a task: the client gets a task at once and
// follows it to the result (tasks/get, or tasks/result on 2025-11-25);
// the Go client does that itself, reporting the task's status.
func ExampleServer_task() {
	srv := mcp.NewServer(mcp.ServerOptions{Info: mcp.Implementation{Name: "jobs", Version: "1.0.0"}})
	defer srv.Close()
	mcp.AddToolFunc(srv, mcp.Tool{Name: "report", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskOptional}},
		func(ctx context.Context, in struct{ Pages int }) (*mcp.CallToolResult, error) {
			if call, ok := mcp.ToolCallOf(ctx); ok && call.IsTask() {
				return mcp.TextResult(fmt.Sprintf("%d pages, as a task", in.Pages)), nil
			}
			return mcp.TextResult("at once"), nil
		})
	h := httpserver.NewHandler(srv, httpserver.Options{})
	defer h.Close()
	web := httptest.NewServer(h)
	defer web.Close()

	ctx := context.Background()
	for _, era := range []string{"modern", "legacy"} {
		c, err := mcp.Connect(ctx, mcp.Options{URL: web.URL, Protocol: era})
		if err != nil {
			fmt.Println(err)
			return
		}
		var statuses []string
		res, err := c.CallTool(ctx, "report", []byte(`{"Pages":3}`), mcp.CallOptions{Task: true, Progress: func(p mcp.Progress) {
			if p.Status != "" && (len(statuses) == 0 || statuses[len(statuses)-1] != p.Status) {
				statuses = append(statuses, p.Status)
			}
		}})
		c.Close()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(era, res.Text(), "|", strings.Join(statuses, " -> "))
	}
	// Output:
	// modern 3 pages, as a task | working -> completed
	// legacy 3 pages, as a task | working -> completed
}
