package main

import (
	"flag"
	"fmt"

	"github.com/fanout-inspector/inspector/recorder"
)

// addMaxSpansFlag registers --max-spans on fs (run, gui, proxy) and
// returns a function that reads it once fs is parsed.
func addMaxSpansFlag(fs *flag.FlagSet) func() (int, error) {
	n := fs.Int("max-spans", recorder.DefaultMaxSpans, "keep every span up to about `N`, then a sample of them (statistics stay exact; 0 = keep every span)")
	return func() (int, error) {
		if *n < 0 {
			return 0, fmt.Errorf("--max-spans %d: want 0 (keep every span) or more", *n)
		}
		return *n, nil
	}
}
