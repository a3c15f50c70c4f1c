package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// wireFile names each JSON-RPC message of a file holding one a line
// (what a stdio server read, or wrote), as "client request tools/call
// 3", "server response 3", "client notification notifications/initialized".
func wireFile(t *testing.T, path, from string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: %q is not a JSON-RPC message: %v", path, line, err)
		}
		switch {
		case m.Method != "" && m.ID == nil:
			out = append(out, from+" notification "+m.Method)
		case m.Method != "":
			out = append(out, from+" request "+m.Method+" "+string(m.ID))
		default:
			out = append(out, from+" response "+string(m.ID))
		}
	}
	return out
}

// TestEverythingTranscript runs a session with the TypeScript reference
// server over stdio, with what the server reads and writes copied to
// files on the way (tee), and checks that the Protocol view's model, the
// transcript of the recording, holds every message of the session and
// no other: the handshake, tool calls whose server sends sampling,
// roots and progress to the client, and failures, each classed: a tool
// the server lacks, a prompt it lacks, a resource it cannot find.
func TestEverythingTranscript(t *testing.T) {
	needEverything(t)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl")
	target := engine.Target{Transport: engine.TransportStdio,
		Command: fmt.Sprintf("sh -c 'tee %s | node %s stdio | tee %s'", in, shellQuote(everythingEntry), out)}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rec := recorder.New(recorder.Meta{Title: t.Name()})
	s, err := engine.Connect(ctx, target, engine.DefaultAnswerPolicy(), rec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r      engine.Request
		failed bool
	}{
		{engine.Request{Method: engine.MethodCallTool, Name: "echo", Args: []byte(`{"message":"hello"}`)}, false},
		{engine.Request{Method: engine.MethodCallTool, Name: "trigger-sampling-request", Args: []byte(`{"prompt":"hi","maxTokens":10}`)}, false},
		{engine.Request{Method: engine.MethodCallTool, Name: "get-roots-list", Args: []byte(`{}`)}, false},
		{engine.Request{Method: engine.MethodCallTool, Name: "trigger-long-running-operation", Args: []byte(`{"duration":0.2,"steps":2}`)}, false},
		{engine.Request{Method: engine.MethodCallTool, Name: "no-such-tool"}, true},
		{engine.Request{Method: engine.MethodGetPrompt, Name: "no-such-prompt"}, true},
		{engine.Request{Method: engine.MethodReadResource, Name: "demo://resource/static/document/no-such-file.md"}, true},
	} {
		if out := s.Send(ctx, c.r); (out.Failure != "") != c.failed {
			t.Errorf("%s %s: failure %q", c.r.Method, c.r.Name, out.Failure)
		}
	}
	s.Close()

	msgs := recorder.TranscriptOf(rec.Snapshot())
	var got []string
	for i := range msgs {
		m := &msgs[i]
		from := map[recorder.Direction]string{recorder.Outgoing: "client", recorder.Incoming: "server"}[m.Direction]
		switch m.Type {
		case recorder.MessageRequest:
			got = append(got, from+" request "+m.Method()+" "+m.ID())
		case recorder.MessageResponse:
			got = append(got, from+" response "+m.ID())
		case recorder.MessageNotification:
			got = append(got, from+" notification "+m.Method())
		}
	}
	want := append(wireFile(t, in, "client"), wireFile(t, out, "server")...)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the server read and wrote %d messages:\n%s\nthe transcript holds %d:\n%s",
			len(want), strings.Join(want, "\n"), len(got), strings.Join(got, "\n"))
	}

	var text strings.Builder
	for i := range msgs {
		text.WriteString(msgs[i].Line() + "\n")
	}
	for _, w := range []string{
		"→ notifications/initialized",
		"←   #", // a server request during a call, indented under it
		"sampling/createMessage", "roots/list", "notifications/progress",
		"no-such-tool", "[unknown tool -32602]",
		"prompts/get answered", "[invalid params -32602]", "[resource not found -32602]",
	} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("the transcript has no %q:\n%s", w, text.String())
		}
	}
	t.Logf("%d messages, %d lines:\n%s", len(got), len(msgs), text.String())
}
