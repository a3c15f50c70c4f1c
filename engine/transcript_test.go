package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverSide is a transport decorator on the server's end of a
// connection: it notes every message the server reads and writes, as
// "client request tools/call 3", "server response 3", "client
// notification notifications/initialized".
type serverSide struct {
	mcp.Transport
	mu   sync.Mutex
	seen []string
}

func (t *serverSide) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &serverSideConn{Connection: c, t: t}, nil
}

func (t *serverSide) note(from string, msg jsonrpc.Message) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seen = append(t.seen, wireKeyOf(from, msg))
}

func (t *serverSide) messages() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.seen)
}

type serverSideConn struct {
	mcp.Connection
	t *serverSide
}

func (c *serverSideConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		c.t.note("client", msg)
	}
	return msg, err
}

// Write notes what reached the wire: the SDK refuses a write whose
// context has ended (the acknowledgement of a listen the client
// cancelled first), and the client never sees that message.
func (c *serverSideConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if err == nil {
		c.t.note("server", msg)
	}
	return err
}

// wireKeyOf names a message as seen on the wire.
func wireKeyOf(from string, msg jsonrpc.Message) string {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.IsCall() {
			return from + " notification " + m.Method
		}
		return from + " request " + m.Method + " " + wire.KeyOf(m.ID)
	case *jsonrpc.Response:
		return from + " response " + wire.KeyOf(m.ID)
	}
	return from + " ?"
}

// transcriptKeys names the messages of a transcript as [wireKeyOf] does.
func transcriptKeys(msgs []recorder.Message) []string {
	var out []string
	for i := range msgs {
		m := &msgs[i]
		from := map[recorder.Direction]string{recorder.Outgoing: "client", recorder.Incoming: "server"}[m.Direction]
		switch m.Type {
		case recorder.MessageRequest:
			out = append(out, from+" request "+m.Method()+" "+m.ID())
		case recorder.MessageResponse:
			out = append(out, from+" response "+m.ID())
		case recorder.MessageNotification:
			out = append(out, from+" notification "+m.Method())
		}
	}
	return out
}

// sameMessages fails t unless the server saw exactly the messages the
// transcript holds, in any order.
func sameMessages(t *testing.T, server, transcript []string) {
	t.Helper()
	slices.Sort(server)
	slices.Sort(transcript)
	if slices.Equal(server, transcript) {
		return
	}
	var missing, extra []string
	count := map[string]int{}
	for _, k := range server {
		count[k]++
	}
	for _, k := range transcript {
		count[k]--
	}
	for k, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, k)
		}
		for ; n < 0; n++ {
			extra = append(extra, k)
		}
	}
	t.Errorf("the server saw %d messages, the transcript holds %d\nnot in the transcript: %q\nnot seen by the server: %q",
		len(server), len(transcript), missing, extra)
}

// TestTranscriptHoldsEveryMessage runs a session with the demo server
// on each protocol era, watching the server's end of the connection,
// and checks that the transcript of the recording holds every message
// the server read and wrote, both ways, and no other: requests paired
// with responses, the client's notifications/initialized and roots
// list_changed, the server's progress and logs, a 2026-07-28 call's
// rounds grouped under it, and an unknown tool's error classed as such. The transcript kept up to
// date from snapshots taken while the calls ran ends equal to the one
// built from the final snapshot.
func TestTranscriptHoldsEveryMessage(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			st, ct := mcp.NewInMemoryTransports()
			watch := &serverSide{Transport: st}
			ss, err := demo.NewServer().Connect(ctx, watch, nil)
			if err != nil {
				t.Fatal(err)
			}
			policy := DefaultAnswerPolicy()
			policy.Latency = LatencyModel{Dist: Fixed, A: ms(5)}
			rec := recorder.New(recorder.Meta{Title: t.Name(), Protocol: protocol})
			s, err := connect(ctx, Target{Protocol: protocol}, policy, rec, ct)
			if err != nil {
				t.Fatal(err)
			}
			var live recorder.Transcript
			done := make(chan struct{})
			go func() {
				defer close(done)
				args := `{"n":3}`
				if protocol >= wire.RoundsProtocol {
					args = `{"n":3,"rounds":2}`
				}
				if out := s.CallTool(ctx, ToolCall{Tool: "fanout", Args: []byte(args)}); out.Failure != "" {
					t.Errorf("fanout: %s", out.Failure)
				}
				changed := policy
				changed.Roots = []string{"file:///elsewhere"}
				s.SetAnswerPolicy(changed) // the client tells the server its roots changed
				if out := s.CallTool(ctx, ToolCall{Tool: "no-such-tool"}); out.Failure == "" {
					t.Error("a tool the server lacks was called without an error")
				}
			}()
			for running := true; running; {
				select {
				case <-done:
					running = false
				default:
					live.Update(rec.Snapshot())
				}
			}
			s.Close()
			waited := make(chan struct{})
			go func() { ss.Wait(); close(waited) }()
			select {
			case <-waited:
			case <-time.After(10 * time.Second):
				t.Fatal("the server's session did not end within 10s of the client closing")
			}

			snap := rec.Snapshot()
			msgs := recorder.TranscriptOf(snap)
			sameMessages(t, watch.messages(), transcriptKeys(msgs))
			live.Update(snap)
			if a, b := lines(live.Messages), lines(msgs); !slices.Equal(a, b) {
				t.Errorf("kept up to date live, the transcript reads\n%s\nbuilt from the final snapshot\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
			}

			text := strings.Join(lines(msgs), "\n")
			// the fan-out's log message and progress under its call
			want := []string{"→ notifications/initialized", "→ #1 initialize", "←   notifications/progress", "→ notifications/roots/list_changed",
				"←   notifications/message  info fanout: 3 sampling requests", "[unknown tool -32602]"}
			if protocol >= wire.RoundsProtocol {
				// and the cancellation of the listen, written once it
				// was answered, under the listen
				want = []string{"→ #1 server/discover", "→ tools/call  call of several rounds: fanout", "→   #", "round 2: fanout",
					"input_required: 3 input requests", "←     sampling/createMessage  input request r2-0 of round 2",
					"←   notifications/message  info fanout: 6 sampling requests in 2 rounds", "[unknown tool -32602]",
					"→ #2 subscriptions/listen", "→   notifications/cancelled  the client cancelled its request 2"}
			}
			for _, w := range want {
				if !strings.Contains(text, w) {
					t.Errorf("the transcript has no %q:\n%s", w, text)
				}
			}
			t.Logf("%d messages, %d lines:\n%s", len(transcriptKeys(msgs)), len(msgs), text)
		})
	}
}

func lines(msgs []recorder.Message) []string {
	out := make([]string, len(msgs))
	for i := range msgs {
		out[i] = msgs[i].Line()
	}
	return out
}
