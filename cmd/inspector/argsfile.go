package main

import (
	"fmt"
	"io"
	"os"

	"github.com/fanout-inspector/inspector/engine"
)

// maxArgsFile is the most read of an --args @FILE: the arguments are one
// message to the server, which takes no more than its largest message.
const maxArgsFile = engine.DefaultMaxMessageSize

// readArgsFile reads an --args @FILE, at most maxArgsFile bytes of it: a
// device or pipe that never ends (/dev/zero) must not fill the memory.
func readArgsFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxArgsFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxArgsFile {
		return nil, fmt.Errorf("more than %d MiB: tool arguments are one message, at most that size", maxArgsFile>>20)
	}
	return data, nil
}
