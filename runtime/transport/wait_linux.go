package transport

import (
	"syscall"
	"unsafe"
)

// waitExited blocks until the process has exited without reaping it
// (waitid with WNOWAIT), so the caller can still signal its group knowing
// the id is not reused. It returns false if that is not possible; the caller
// then just reaps.
func waitExited(pid int) bool {
	const pPID = 1     // P_PID
	var info [128]byte // siginfo_t, unread
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		switch e {
		case 0:
			return true
		case syscall.EINTR:
			continue
		default:
			return false
		}
	}
}
