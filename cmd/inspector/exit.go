package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// exitError is why a subcommand stops before its work is done: the exit
// code it ends with, a one-line message of what happened and, when the
// message does not say it already, a hint of what to do. A subcommand's
// main returns one, and [exitWith] prints it; nobody reads its text to
// decide anything.
type exitError struct {
	code int
	msg  string // "" when something else (the flag package) has said it
	hint string // what to do, "" when msg says it
	// help points the person to the subcommand's flags (-h), after msg:
	// a bad flag or argument.
	help bool
}

func (e *exitError) Error() string {
	if e.hint == "" {
		return e.msg
	}
	return e.msg + "; " + e.hint
}

// usageError is a bad flag or argument (exit 2), with a pointer to the
// subcommand's flags.
func usageError(format string, a ...any) *exitError {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, a...), help: true}
}

// exitErrorf is an exit with code and a message, without a hint.
func exitErrorf(code int, format string, a ...any) *exitError {
	return &exitError{code: code, msg: fmt.Sprintf(format, a...)}
}

// failure is something that went wrong beyond the command line (exit 1):
// a server that could not be reached or was lost, a file that could not
// be read or written.
func failure(msg, hint string) *exitError {
	return &exitError{code: exitFailure, msg: msg, hint: hint}
}

// flagsParsed is fs.Parse's error as an exit: nil once parsed, exit 0 for
// -h (the usage is printed), exit 2 for a bad flag (the flag package said
// which).
func flagsParsed(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		return &exitError{code: exitOK}
	}
	return &exitError{code: exitUsage}
}

// asUsage returns err as it is when it is an [exitError], and as a usage
// error otherwise: what the flags' parsers return says which flag is bad.
func asUsage(err error) error {
	var e *exitError
	if errors.As(err, &e) {
		return err
	}
	return usageError("%v", err)
}

// exitWith prints err for the subcommand cmd on stderr, as "inspector
// CMD: message; hint" (and where to find the flags, for a usage error),
// and returns the exit code: err's when it is an [exitError], exit 1 for
// any other error, 0 for nil. clean takes secrets out of the line.
func exitWith(stderr io.Writer, cmd string, err error, clean func(string) string) int {
	if err == nil {
		return exitOK
	}
	var e *exitError
	if !errors.As(err, &e) {
		e = failure(err.Error(), "")
	}
	if e.msg != "" {
		line := e.Error()
		if clean != nil {
			line = clean(line)
		}
		fmt.Fprintf(stderr, "inspector %s: %s\n", cmd, line)
	}
	if e.help {
		fmt.Fprintf(stderr, "Run 'inspector %s -h' for the flags.\n", cmd)
	}
	return e.code
}
