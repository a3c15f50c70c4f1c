package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProxyRecordSurvivesItsClientKillingIt: a client ends its stdio
// server (here the proxy) by closing its stdin, waiting, sending SIGTERM,
// waiting, then SIGKILL: the Go SDK's CommandTransport does so, with
// inspector run's 2 s grace here. Behind the proxy is a server that is
// slow to stop (it ignores SIGTERM and keeps its stdout open for a few
// seconds after its input ended), so the proxy is killed while it still
// waits for its server. Ten clients each call a tool and close; all ten
// --record files must be there, load, and show the call answered.
func TestProxyRecordSurvivesItsClientKillingIt(t *testing.T) {
	const clients = 10
	slowToStop := fmt.Sprintf(`sh -c 'trap "" TERM; %s demo-server; sleep 6'`, inspectorBin)
	dir := t.TempDir()
	for i := range clients {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(dir, fmt.Sprintf("proxy%d.json", i))
			stderr := &lockedBuffer{}
			cmd := exec.Command(inspectorBin, "proxy", "--stdio", slowToStop, "--record", file, "--journal", "off")
			cmd.Stderr = stderr
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "killer", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
			if err != nil {
				t.Fatalf("connecting through the proxy: %v\n%s", err, stderr.String())
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "kept"}})
			if err != nil || res.IsError {
				t.Fatalf("echo through the proxy: %v %+v", err, res)
			}
			start := time.Now()
			cs.Close() // stdin closed, 2 s, SIGTERM, 2 s, SIGKILL
			killed := cmd.ProcessState != nil && !cmd.ProcessState.Success()
			snap, err := recorder.LoadFile(file)
			if err != nil {
				t.Fatalf("the proxy's --record after its client closed it (%v later, killed: %v): %v\nproxy's stderr:\n%s",
					time.Since(start).Round(time.Millisecond), killed, err, stderr.String())
			}
			sum := recorder.Summarize(snap)
			if sum.ToolCalls.Total != 1 || sum.ToolCalls.OK != 1 || snap.Meta.Mode != recorder.ModeProxy {
				t.Errorf("the recording has %d tool calls (%d ok), mode %q; want the one echo call, answered, in a proxy recording",
					sum.ToolCalls.Total, sum.ToolCalls.OK, snap.Meta.Mode)
			}
			if !killed {
				t.Errorf("the proxy ended by itself (%v): the test means its client to kill it while its server is slow to stop", cmd.ProcessState)
			}
		})
	}
}
