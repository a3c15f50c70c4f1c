package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/clientconfig"
)

// configFlags are --server, --config and --input: the server to connect
// to, taken from a client's configuration file (engine/clientconfig).
type configFlags struct {
	fs     *flag.FlagSet
	server *string
	config *string
	inputs repeatedFlag
}

// addConfigFlags defines --server, --config and --input on fs.
func addConfigFlags(fs *flag.FlagSet) *configFlags {
	c := &configFlags{fs: fs,
		server: fs.String("server", "", "connect to the server `NAME` of your Claude Desktop, Claude Code, Cursor or VS Code config (FILE:NAME for that file's; 'inspector servers' lists them)"),
		config: fs.String("config", "", "read the servers of the client config `FILE` alone (with --server NAME, or alone when it has one server)"),
	}
	fs.Var(&c.inputs, "input", "`ID=VALUE` for a VS Code config's ${input:ID} (repeatable; or set INSPECTOR_INPUT_ID, which keeps it out of your shell history)")
	return c
}

// given reports whether the server comes from a config.
func (c *configFlags) given() bool { return *c.server != "" || *c.config != "" }

// flags names the flags given, for "choose one server" messages.
func (c *configFlags) flags() string {
	switch {
	case *c.server != "" && *c.config != "":
		return "--server/--config"
	case *c.server != "":
		return "--server"
	}
	return "--config"
}

// target reads the server the flags name. A server whose name other files
// also give is reported on the flag set's output (stderr), with the way
// to choose another.
func (c *configFlags) target() (engine.Target, error) {
	if len(c.inputs) > 0 && !c.given() {
		return engine.Target{}, errors.New("--input: for a server of a client config, with --server or --config")
	}
	vals := clientconfig.Values{Inputs: map[string]string{}}
	for _, kv := range c.inputs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return engine.Target{}, fmt.Errorf("--input %s: want ID=VALUE, as in --input api-key=VALUE", hideValue(kv, "="))
		}
		vals.Inputs[k] = v
	}
	flagName := c.flags()
	var (
		found  clientconfig.Found
		s      clientconfig.Server
		others []clientconfig.Server
		err    error
	)
	if *c.config != "" {
		found.Files = []clientconfig.File{clientconfig.Load(*c.config)}
		if err := found.Files[0].Err; err != nil {
			return engine.Target{}, failure("--config: "+err.Error(), "") // it says what is wrong with the file
		}
		if *c.server != "" {
			s, others, err = found.Pick(*c.server)
		} else {
			s, err = found.Only()
			if err != nil && !errors.Is(err, clientconfig.ErrNotFound) {
				err = fmt.Errorf("%w: choose one with --server NAME", err)
			}
		}
	} else {
		found = clientconfig.Discover(clientconfig.Here())
		s, others, err = found.Pick(*c.server)
		if errors.Is(err, clientconfig.ErrNotFound) {
			err = fmt.Errorf("%w ('inspector servers' lists the servers and where they were looked for)", err)
		}
	}
	if err != nil {
		err = fmt.Errorf("%s %s: %w", flagName, c.arg(), err)
		if errors.Is(err, clientconfig.ErrNotFound) && len(unreadable(found)) > 0 {
			// Not a bad flag: the server may be in a file that could not be read.
			return engine.Target{}, failure(err.Error(), "fix or remove the file that could not be read, or name the server's file with --config FILE")
		}
		return engine.Target{}, err
	}
	if len(others) > 0 {
		var also []string
		for _, o := range others {
			also = append(also, o.File+" ("+string(o.Format)+")")
		}
		fmt.Fprintf(c.fs.Output(), "inspector: --server %s: using the one in %s (%s), the first in precedence; also in %s: choose with --server FILE:%s or --config FILE\n",
			s.Name, s.File, s.Format, strings.Join(also, ", "), s.Name)
	}
	t, err := s.Target(vals)
	var miss *clientconfig.MissingInputsError
	if errors.As(err, &miss) {
		var how []string
		for _, in := range miss.Inputs {
			how = append(how, fmt.Sprintf("--input %s=VALUE or the environment variable %s", in.ID, clientconfig.InputEnvVar(in.ID)))
		}
		return t, fmt.Errorf("%s %s: %w: give it with %s, or pick the server in the app's Server panel, which asks for it", flagName, c.arg(), err, strings.Join(how, "; and "))
	}
	if err != nil {
		return t, fmt.Errorf("%s %s: %w", flagName, c.arg(), err)
	}
	return t, nil
}

// arg is the server or file asked for, for messages.
func (c *configFlags) arg() string {
	if *c.server != "" {
		return *c.server
	}
	return *c.config
}

// soleTool returns the tool a run without --tool calls on a server other
// than the demo (see pickTool); an error lists the tools when it cannot
// choose.
func soleTool(ctx context.Context, sess *engine.Session, target engine.Target) (string, error) {
	tools, err := sess.ListTools(ctx)
	if err != nil {
		return "", fmt.Errorf("--tool was not given and the tools of %s could not be listed: %v", target, err)
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return pickTool(names, target.String())
}

// pickTool chooses among a server's tools: the one named fanout (the
// demo's default, and what a fan-out test server usually calls its
// tool), else the only one.
func pickTool(names []string, server string) (string, error) {
	if slices.Contains(names, "fanout") {
		return "fanout", nil
	}
	switch len(names) {
	case 1:
		return names[0], nil
	case 0:
		return "", fmt.Errorf("%s offers no tools to call", server)
	}
	return "", fmt.Errorf("--tool: name the tool to call on %s; it offers %s", server, strings.Join(names, ", "))
}

// fillProxy sets the proxy's --stdio, --env and --cwd, or its --upstream,
// from the server --server or --config names, and returns the values the
// recording must not carry beyond the environment's. A config's headers
// are not sent: over HTTP the proxy passes on the client's own.
func (c *configFlags) fillProxy(stdio, upstream, dir *string, env *repeatedFlag) (secrets []string, err error) {
	if !c.given() && len(c.inputs) == 0 {
		return nil, nil
	}
	if *stdio != "" || *upstream != "" {
		return nil, fmt.Errorf("%s and --stdio/--upstream: choose one server", c.flags())
	}
	t, err := c.target()
	if err != nil {
		return nil, err
	}
	switch t.Transport {
	case engine.TransportStdio:
		*stdio = t.Command
		*env = append(append(repeatedFlag{}, t.Env...), (*env)...) // --env after: it wins
		if *dir == "" {
			*dir = t.Dir
		}
	default:
		*upstream = t.URL
	}
	return t.SecretValues, nil
}

// unreadable returns the config files that were found but could not be
// read.
func unreadable(found clientconfig.Found) []clientconfig.File {
	var bad []clientconfig.File
	for _, f := range found.Files {
		if f.Err != nil {
			bad = append(bad, f)
		}
	}
	return bad
}
