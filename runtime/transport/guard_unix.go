//go:build unix

package transport

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
)

// The guard ends the process groups luagent leaves behind when it dies
// without ending them itself (SIGKILL, a crash). The parent-death signal
// reaches only a server's own process; what the server started (npx's
// node, a shell's children) is in its process group, and the guard kills
// that group.
//
// The guard is the luagent binary started again with argv[0] guardArg0,
// in a process group of its own (a Ctrl-C at the terminal does not reach
// it). Its stdin is a pipe only luagent holds the other end of: luagent
// writes "+PGID" when a server starts and "-PGID" before it reaps one.
// When luagent ends, however it ends, the kernel closes that pipe; the
// guard reads EOF, sends SIGKILL to every group still listed, and exits.
//
// What it cannot reach: a process that left its group (setsid, setpgid:
// a daemon double-forking away) and a guard that was itself killed.

const guardArg0 = "luagent-process-guard"

var guard struct {
	sync.Mutex
	exe     string   // the program to run as guard ("": none)
	w       *os.File // the guard's stdin (nil: not started, or gone)
	started bool
}

// EnableGuard has the processes Start starts from now on watched by a
// guard: exe, a program whose main calls RunGuardIfAsked first (luagent
// itself), started on the first Start.
func EnableGuard(exe string) {
	guard.Lock()
	guard.exe = exe
	guard.Unlock()
}

// RunGuardIfAsked runs the guard and exits when this process was started
// as one; otherwise it returns at once. Call it first thing in main.
func RunGuardIfAsked() {
	if len(os.Args) != 1 || os.Args[0] != guardArg0 {
		return
	}
	// Its job is to outlive luagent by a moment: the signals that end a
	// session (a terminal's hangup, a Ctrl-C, a polite kill) do not stop it.
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT)
	runGuard(os.Stdin)
	os.Exit(0)
}

// runGuard keeps the groups r lists until r ends, then kills them.
func runGuard(r io.Reader) {
	groups := map[int]bool{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 {
			continue
		}
		pg, err := strconv.Atoi(line[1:])
		if err != nil || pg <= 1 {
			continue
		}
		switch line[0] {
		case '+':
			groups[pg] = true
		case '-':
			delete(groups, pg)
		}
	}
	for pg := range groups {
		syscall.Kill(-pg, syscall.SIGKILL)
	}
}

// guardReady starts the guard if it is not running yet. Start calls it
// before the fork, not after: a guard still starting when luagent is
// killed would miss the server that made luagent start it.
func guardReady() {
	guard.Lock()
	defer guard.Unlock()
	if !guard.started && guard.exe != "" {
		guard.started = true
		guard.w = startGuard(guard.exe)
	}
}

// guardWatch tells the guard about the new process group pg.
func guardWatch(pg int) {
	guard.Lock()
	defer guard.Unlock()
	guardSend('+', pg)
}

// guardForget tells the guard pg is reaped: its id may be reused.
func guardForget(pg int) {
	guard.Lock()
	defer guard.Unlock()
	guardSend('-', pg)
}

func guardSend(op byte, pg int) {
	if guard.w == nil {
		return
	}
	if _, err := fmt.Fprintf(guard.w, "%c%d\n", op, pg); err != nil {
		// The guard is gone: the other layers remain.
		guard.w.Close()
		guard.w = nil
	}
}

// startGuard starts exe as the guard and returns its stdin, or nil when
// it cannot be started (the other layers remain).
func startGuard(exe string) *os.File {
	r, w, err := os.Pipe() // close-on-exec: no server inherits the write end
	if err != nil {
		return nil
	}
	defer r.Close()
	c := &exec.Cmd{Path: exe, Args: []string{guardArg0}, Env: []string{}, Stdin: r,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	if err := c.Start(); err != nil {
		w.Close()
		return nil
	}
	// Never waited for: it outlives luagent, and init reaps it.
	c.Process.Release()
	return w
}
