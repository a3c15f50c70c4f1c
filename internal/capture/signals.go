package capture

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Signals returns a context that ends on SIGINT (Ctrl-C), SIGTERM or
// SIGHUP (the terminal closed), so that a face ends its run and
// [Capture.Close] saves what was recorded instead of the process dying
// with it; stop restores the signals' default.
func Signals() (ctx context.Context, stop context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}
