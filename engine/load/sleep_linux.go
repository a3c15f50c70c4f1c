package load

import (
	"syscall"
	"time"
)

// preciseSleep sleeps d (at most a few milliseconds) in nanosleep, which
// the kernel ends within its timer slack (50 µs by default) rather than
// on the next millisecond as Go's timers may. It blocks its thread, not
// the program: the runtime runs other goroutines meanwhile.
func preciseSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil) // EINTR: the caller checks the time and sleeps again
}
