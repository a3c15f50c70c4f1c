//go:build nogui

package main

import (
	"fmt"
	"os"
)

// guiCommand, in a binary built with -tags nogui (headless: no Fyne, no
// cgo, for load generators in containers), says that there is no window
// and what the binary can do instead.
func guiCommand(args []string) int {
	fmt.Fprintln(os.Stderr, "inspector: this binary was built without the desktop app (-tags nogui): use inspector run, report, proxy or demo-server; see inspector run -h")
	return exitUsage
}
