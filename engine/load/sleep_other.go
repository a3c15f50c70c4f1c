//go:build !linux

package engine

import "time"

// preciseSleep sleeps d; outside Linux with Go's own timer.
func preciseSleep(d time.Duration) { time.Sleep(d) }
