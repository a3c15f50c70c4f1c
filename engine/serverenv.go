package engine

import (
	"os"
	"strings"
)

// InheritedEnv are the variables of the inspector's own environment a
// stdio server gets unless it is given the whole environment
// ([Target.InheritEnv], --inherit-env): what a program needs to find its
// tools and its home (a Go binary, node and npx run with these), as MCP
// hosts start their servers. Everything else (API keys, tokens, cloud
// credentials the inspector's shell happens to hold) stays out, unless
// passed by name with --env.
var InheritedEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}

// ServerEnv returns the environment to start a stdio server with: the
// inspector's [InheritedEnv] (or all of its environment, when inherit is
// set), then extra ("K=V" each), which overrides. A variable whose value
// is a shell function ("() { …") is not passed on.
func ServerEnv(extra []string, inherit bool) []string {
	var env []string
	if inherit {
		env = os.Environ()
	} else {
		for _, name := range InheritedEnv {
			if v, ok := os.LookupEnv(name); ok && !strings.HasPrefix(v, "()") {
				env = append(env, name+"="+v)
			}
		}
	}
	return append(env, extra...)
}
