package transport

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// On Linux every server gets SIGKILL when luagent dies, however it dies
// (Pdeathsig). The kernel sends it when the *thread* that started the
// child exits, not the process: Go may end a thread a goroutine locked and
// left, and exec runs on whatever thread the calling goroutine has. So all
// servers start from one goroutine that locks its thread for good: the
// thread lives as long as luagent.

func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

var spawner struct {
	once sync.Once
	reqs chan spawnReq
}

type spawnReq struct {
	c   *exec.Cmd
	err chan error
}

// startCmd starts c on the spawner thread, which tells the guard the new
// group before anything else runs on it: the shorter the time between the
// fork and the guard knowing, the less a luagent killed then can leave.
func startCmd(c *exec.Cmd) error {
	startSpawner()
	r := spawnReq{c, make(chan error, 1)}
	spawner.reqs <- r
	return <-r.err
}

func spawnLoop(reqs chan spawnReq) {
	runtime.LockOSThread() // never unlocked: see above
	for r := range reqs {
		err := r.c.Start()
		if err == nil {
			guardWatch(r.c.Process.Pid)
		}
		r.err <- err
	}
}

// startSpawner starts the spawner goroutine once; it runs as long as
// luagent does.
func startSpawner() {
	spawner.once.Do(func() {
		spawner.reqs = make(chan spawnReq)
		go spawnLoop(spawner.reqs)
	})
}
