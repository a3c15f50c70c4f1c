package main

import (
	"fmt"

	"github.com/fanout-inspector/inspector/engine"
)

// maxArgsFile is the most read of an --args @FILE: the arguments are one
// message to the server, which takes no more than its largest message.
const maxArgsFile = engine.DefaultMaxMessageSize

// readArgsFile reads an --args @FILE, at most maxArgsFile bytes of it: a
// device or pipe that never ends (/dev/zero) must not fill the memory.
func readArgsFile(path string) ([]byte, error) {
	return readBounded(path, maxArgsFile, fmt.Sprintf("more than %d MiB: tool arguments are one message, at most that size", maxArgsFile>>20))
}
