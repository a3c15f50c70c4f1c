// Package plainlocale keeps Fyne from logging "Error parsing user locale C"
// on machines whose locale is C.UTF-8 (the default of many Debian images and
// containers). Fyne reads the locale while its packages initialize, before
// main runs, and cannot parse "C.UTF-8"; plain "C" it reads as English.
//
// Importing this package (it must be imported by package main, and its
// import path sorts before Fyne's dependencies, so Go initializes it first)
// rewrites a C.UTF-8 or POSIX.* locale variable to "C" for the time of
// package initialization. [Restore] puts the original value back, so that
// child processes (a stdio MCP server) see the environment the user set.
package plainlocale

import (
	"os"
	"strings"
)

var saved struct {
	name, value string
}

func init() {
	// The variable that decides, in the order locale lookups read them.
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := os.Getenv(name)
		if v == "" {
			continue
		}
		if strings.HasPrefix(v, "C.") || strings.HasPrefix(v, "POSIX.") {
			saved.name, saved.value = name, v
			os.Setenv(name, "C")
		}
		return
	}
}

// Restore puts back the locale variable init rewrote, if any.
func Restore() {
	if saved.name != "" {
		os.Setenv(saved.name, saved.value)
		saved.name = ""
	}
}
