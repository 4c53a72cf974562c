//go:build unix

package host

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The hub's registration must not change what a signal does: delivered to
// a subscriber, and otherwise the default action (the process ends by the
// signal). Each case runs in a child process, which signals itself.
func TestSignalHub(t *testing.T) {
	if mode := os.Getenv("LUAGENT_HUB_CHILD"); mode != "" {
		hubChild(mode)
		return
	}
	for _, c := range []struct {
		mode string
		sig  syscall.Signal // what ends the child; 0: it exits 0
	}{
		{"subscribed-INT", 0},
		{"subscribed-TERM", 0},
		{"nobody-INT", syscall.SIGINT},
		{"nobody-TERM", syscall.SIGTERM},
		{"unsubscribed-TERM", syscall.SIGTERM},
		{"other-signal-TERM", syscall.SIGTERM}, // subscribed to SIGINT only, as the REPL is
	} {
		t.Run(c.mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSignalHub$")
			cmd.Env = append(os.Environ(), "LUAGENT_HUB_CHILD="+c.mode, "GORACE=atexit_sleep_ms=0")
			out, err := cmd.CombinedOutput()
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if c.sig == 0 {
				if err != nil {
					t.Fatalf("child: %v\n%s", err, out)
				}
				return
			}
			if !ws.Signaled() || ws.Signal() != c.sig {
				t.Fatalf("child ended with %v, want killed by %v\n%s", err, c.sig, out)
			}
		})
	}
}

func hubChild(mode string) {
	i := strings.LastIndex(mode, "-")
	sig := syscall.SIGTERM
	if mode[i+1:] == "INT" {
		sig = syscall.SIGINT
	}
	ch := make(chan os.Signal, 1)
	go warmSignals()
	switch mode[:i] {
	case "subscribed":
		defer subscribeSignals(ch, sig)()
	case "unsubscribed":
		subscribeSignals(ch, sig)()
	case "other-signal":
		defer subscribeSignals(ch, syscall.SIGINT)()
	case "nobody":
		warmSignals()
	}
	syscall.Kill(os.Getpid(), sig)
	select {
	case got := <-ch:
		if got != sig {
			os.Exit(4)
		}
	case <-time.After(10 * time.Second):
		os.Exit(3)
	}
}
