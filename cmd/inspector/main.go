// Command inspector is Fanout Inspector: it connects to an MCP server as a
// client, serves the server's sampling, elicitation and roots requests with
// the latency and dispatch policy you choose, calls its tools, and records
// when every request arrived, waited, ran and was answered.
//
// Usage:
//
//	inspector [gui] [flags]      the desktop app (the default)
//	inspector run [flags]        a headless run, for CI and scripts
//	inspector init [flags]       write a starter workload file for run --workload
//	inspector proxy [flags]      stand between your own client and its server, and record both
//	inspector servers            list the servers of your clients' configs (--server NAME)
//	inspector demo-server        the embedded demo server, over stdio or HTTP
//	inspector report FILE        summarize, export, compare or merge recordings
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/fanout-inspector/inspector/cmd/inspector/internal/plainlocale"
)

// Exit codes shared by every subcommand.
const (
	exitOK        = 0
	exitFailure   = 1 // the connection failed or a file could not be read
	exitUsage     = 2 // a bad flag or argument
	exitAssertion = 3 // an --assert expression did not hold
	// exitInterrupted is run's code when SIGINT (Ctrl-C) or SIGTERM stopped
	// it: 128 + SIGINT's number, as a shell reports a Ctrl-C, for both.
	exitInterrupted = 130
)

func main() {
	plainlocale.Restore()
	os.Exit(dispatch(os.Args[1:]))
}

// dispatch runs the subcommand named by args[0] and returns the exit code.
func dispatch(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "run":
			return runCommand(args[1:])
		case "demo-server":
			return demoServerCommand(args[1:])
		case "report":
			return reportCommand(args[1:])
		case "proxy":
			return proxyCommand(args[1:])
		case "servers":
			return serversCommand(args[1:])
		case "init":
			return initCommand(args[1:])
		case "gui":
			return guiCommand(args[1:])
		case "help", "-h", "-help", "--help":
			fmt.Print(usage)
			return exitOK
		case "version", "--version":
			fmt.Println("inspector", version)
			return exitOK
		}
		if !strings.HasPrefix(args[0], "-") {
			fmt.Fprintf(os.Stderr, "inspector: unknown command %q; commands are %s (run 'inspector help')\n", args[0], commands)
			return exitUsage
		}
	}
	return guiCommand(args) // inspector alone, or inspector --flags: the GUI
}

// commands lists the subcommands, for the message about an unknown one.
const commands = "gui, run, init, proxy, servers, demo-server, report, help and version"

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0"

const usage = `Fanout Inspector: see how an MCP client serves a server's fan-out.

Usage:
  inspector [gui] [flags]       open the desktop app (connects to the demo server by default)
  inspector run [flags]         run headless and print a summary
  inspector init [flags] [--out FILE]
                                write a starter workload file (run --workload) from what a server offers
  inspector proxy --stdio 'SERVER CMD' [flags]
                                stand between your own MCP client and its server, and record both
  inspector servers [--config FILE]
                                list the MCP servers of your Claude, Cursor and VS Code configs
  inspector demo-server [--http ADDR]
                                serve the demo server over stdio, or streamable HTTP at ADDR
  inspector report RECORDING [flags]
                                summarize, export, compare or merge (--merge A B C) recordings

Run 'inspector SUBCOMMAND -h' for the flags of each.
`
