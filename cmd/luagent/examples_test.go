package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Every example runs, exits 0 and prints something.
func TestExamples(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.lua")
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := luagent(t, "", nil, "run", f)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if strings.TrimSpace(r.stdout) == "" {
				t.Error("printed nothing")
			}
			noGoStack(t, r.stderr)
		})
	}
}
