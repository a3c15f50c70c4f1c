package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// logLevelFlag defines --log-level on fs: the level of the server's log
// messages to ask for, which the session carries the way its protocol
// era does (see [engine.Session.SetLogLevel]).
func logLevelFlag(fs *flag.FlagSet) *string {
	return fs.String("log-level", "", "ask the server for its log messages at `LEVEL` and above: "+
		strings.Join(recorder.LogLevels, ", ")+" (default "+recorder.DefaultLogLevel+"); sent with logging/setLevel on 2025-11-25, in each request's _meta on 2026-07-28")
}

// addLogLevel sets t's log level from --log-level.
func (f *connectionFlags) addLogLevel(t *engine.Target) error {
	if !flagWasSet(f.fs, "log-level") {
		return nil
	}
	level := strings.ToLower(strings.TrimSpace(*f.logLevel))
	if level == "" {
		return errors.New("--log-level is empty: leave it out for " + recorder.DefaultLogLevel + ", or give one of " + strings.Join(recorder.LogLevels, ", "))
	}
	if recorder.LogLevelRank(level) < 0 {
		return fmt.Errorf("--log-level %q: want one of %s", *f.logLevel, strings.Join(recorder.LogLevels, ", "))
	}
	t.LogLevel = level
	return nil
}
