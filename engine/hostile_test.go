//go:build unix

package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Hostile servers: each test bounds the time the inspector takes to
// give up and the memory it allocates doing so. (The inspector binary's
// peak RSS under the same servers is checked in cmd/inspector.)

// allocatedBy returns how many bytes f allocated on the heap in all.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// endless writes prefix, then filler forever, until the client goes.
func endless(w http.ResponseWriter, r *http.Request, contentType, prefix string) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, prefix)
	chunk := []byte(strings.Repeat("a", 64<<10))
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// connectHostile connects to target and returns the error, how long it
// took and how much it allocated.
func connectHostile(t *testing.T, ctx context.Context, target Target) (error, time.Duration, uint64) {
	t.Helper()
	var err error
	start := time.Now()
	alloc := allocatedBy(func() {
		var s *Session
		s, err = Connect(ctx, target, DefaultAnswerPolicy(), recorder.New(recorder.Meta{Title: t.Name()}))
		if err == nil {
			s.Close()
		}
	})
	return err, time.Since(start), alloc
}

// TestHostileHTTPInitialize answers initialize with a message that never
// ends, as one JSON body or one server-sent event, or with many short
// data lines that never end the event: connecting must fail soon, with
// the limit named, having read little more than the limit.
func TestHostileHTTPInitialize(t *testing.T) {
	const limit = 1 << 20
	tests := []struct {
		name    string
		handler http.HandlerFunc
		what    string
	}{
		{"endless JSON body", func(w http.ResponseWriter, r *http.Request) {
			endless(w, r, "application/json", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","instructions":"`)
		}, "HTTP response"},
		{"announced JSON body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(3<<30))
			endless(w, r, "application/json", `{"jsonrpc":"2.0","id":1,"result":{"instructions":"`)
		}, "HTTP response"},
		{"endless SSE event", func(w http.ResponseWriter, r *http.Request) {
			endless(w, r, "text/event-stream", `data: {"jsonrpc":"2.0","id":1,"result":{"instructions":"`)
		}, "server-sent event"},
		{"endless SSE event of short lines", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			line := []byte(strings.Repeat("data: aaaaaaaa\n", 4096))
			for r.Context().Err() == nil {
				if _, err := w.Write(line); err != nil {
					return
				}
			}
		}, "server-sent event"},
	}
	tests = append(tests, struct {
		name    string
		handler http.HandlerFunc
		what    string
	}{"legacy SSE: endless endpoint event", func(w http.ResponseWriter, r *http.Request) {
		endless(w, r, "text/event-stream", "event: endpoint\ndata: /")
	}, "server-sent event"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			t.Cleanup(srv.Close)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			kind := TransportHTTP
			if strings.HasPrefix(tt.name, "legacy SSE") {
				kind = TransportSSE
			}
			err, took, alloc := connectHostile(t, ctx, Target{Transport: kind, URL: srv.URL, Limits: Limits{MaxMessageSize: limit}})
			var tooLarge *MessageTooLargeError
			if !errors.As(err, &tooLarge) {
				t.Fatalf("Connect: %v, want a MessageTooLargeError", err)
			}
			msg := err.Error()
			for _, want := range []string{"the server's " + tt.what, "1 MiB message limit (--max-message-size)"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			if took > 5*time.Second {
				t.Errorf("giving up took %v, want under 5s", took)
			}
			if alloc > 40*limit {
				t.Errorf("connecting allocated %s, want under %s (40× the limit)", FormatSize(int64(alloc)), FormatSize(40*limit))
			}
		})
	}
}

// TestHostileHTTPAfterConnect: a server that answers a tool call with a
// body over the limit ends the session, and Err says why.
func TestHostileHTTPAfterConnect(t *testing.T) {
	big := strings.Repeat("x", 2<<20)
	server := func(*http.Request) *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
		mcp.AddTool(srv, &mcp.Tool{Name: "big"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}}}, nil, nil
		})
		return srv
	}
	for _, jsonResponse := range []bool{true, false} {
		t.Run(fmt.Sprintf("json=%v", jsonResponse), func(t *testing.T) {
			h := mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			s := connectTarget(t, Target{Transport: TransportHTTP, URL: srv.URL, Limits: Limits{MaxMessageSize: 1 << 20}}, DefaultAnswerPolicy())
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "big"})
			if err == nil {
				t.Fatal("a 2 MiB answer passed a 1 MiB limit")
			}
			select {
			case <-s.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("the session went on after the server broke the message limit")
			}
			var tooLarge *MessageTooLargeError
			if !errors.As(s.Err(), &tooLarge) || !strings.Contains(s.Err().Error(), "1 MiB message limit") {
				t.Errorf("Err() = %v, want the message limit named", s.Err())
			}
		})
	}
}

// TestHostileStdioLine: a stdio server writing a line longer than the
// limit (the SDK alone refuses only past 16 MiB) fails the connecting
// with the limit named.
func TestHostileStdioLine(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := `sh -c 'printf "{\"a\":\""; head -c 3000000 /dev/zero | tr "\0" a; echo; sleep 10'`
	err, took, _ := connectHostile(t, ctx, Target{Transport: TransportStdio, Command: cmd, Limits: Limits{MaxMessageSize: 1 << 20}})
	var tooLarge *MessageTooLargeError
	if !errors.As(err, &tooLarge) {
		t.Fatalf("Connect: %v, want a MessageTooLargeError", err)
	}
	if want := "the server's stdio message was larger than the 1 MiB message limit (--max-message-size)"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if took > 5*time.Second {
		t.Errorf("giving up took %v, want under 5s (the server is stopped, not waited for)", took)
	}
}

// TestSilentServer: a server that never answers initialize fails the
// connecting within the connect timeout, saying what it waited for.
func TestSilentServer(t *testing.T) {
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // then the server notices the client going
		<-r.Context().Done()
	}))
	t.Cleanup(silent.Close)
	tests := []struct {
		name   string
		target Target
		want   string
	}{
		{"stdio never speaks", Target{Transport: TransportStdio, Command: "sleep 1000"}, `no answer to initialize from the stdio server "sleep 1000" within 500ms (--connect-timeout)`},
		{"stdio reads, never answers (sh)", Target{Transport: TransportStdio, Command: `sh -c 'cat > /dev/null'`}, "within 500ms (--connect-timeout)"},
		{"http", Target{Transport: TransportHTTP, URL: silent.URL}, "no answer to initialize from the http server at " + silent.URL + " within 500ms (--connect-timeout)"},
		{"sse", Target{Transport: TransportSSE, URL: silent.URL}, "no answer to initialize from the sse server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.target.Limits.ConnectTimeout = 500 * time.Millisecond
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err, took, _ := connectHostile(t, ctx, tt.target)
			var timeout *ConnectTimeoutError
			if !errors.As(err, &timeout) {
				t.Fatalf("Connect: %v, want a ConnectTimeoutError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if took > 3*time.Second {
				t.Errorf("giving up took %v, want about the 500ms timeout (under 3s)", took)
			}
		})
	}
}

// TestInterruptedConnect: cancelling the context while the server has
// not answered says so, and blames neither the server nor its exit.
func TestInterruptedConnect(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	err, took, _ := connectHostile(t, ctx, Target{Transport: TransportStdio, Command: "sleep 1000"})
	if !errors.Is(err, ErrConnectInterrupted) {
		t.Fatalf("Connect: %v, want ErrConnectInterrupted", err)
	}
	for _, blame := range []string{"exited", "file already closed", "context canceled"} {
		if strings.Contains(err.Error(), blame) {
			t.Errorf("error %q blames the server (%q)", err, blame)
		}
	}
	if took > 3*time.Second {
		t.Errorf("giving up took %v, want under 3s", took)
	}
}

// newStderrSession is just enough of a session for stderrLines.
func newStderrSession() *Session {
	return &Session{rec: recorder.New(recorder.Meta{}), name: "s1", hooks: hooks{notices: newNoticeQueue(256)}}
}

func stderrEvents(s *Session) []string {
	var lines []string
	for _, e := range s.rec.Snapshot().Events {
		if e.Kind == recorder.EventStderr {
			lines = append(lines, e.Text)
		}
	}
	return lines
}

// TestStderrFlood: of a flood of stderr lines the first and last halves
// of the limit are recorded, with one event counting them all.
func TestStderrFlood(t *testing.T) {
	s := newStderrSession()
	w := newStderrLines(s, 10)
	var alloc uint64
	alloc = allocatedBy(func() {
		for i := range 200_000 {
			fmt.Fprintf(w, "line %d\n", i)
		}
	})
	if got := stderrEvents(s); len(got) != 5 || got[0] != "line 0" || got[4] != "line 4" {
		t.Fatalf("before the end: %q, want lines 0 to 4", got)
	}
	w.flush()
	got := stderrEvents(s)
	want := []string{"line 0", "line 1", "line 2", "line 3", "line 4",
		"stderr: 200,000 lines (2.2 MiB), first 5 and last 5 kept (--max-stderr-lines 10); the 199,990 in between were counted, not recorded",
		"line 199995", "line 199996", "line 199997", "line 199998", "line 199999"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stderr events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if alloc > 100<<20 {
		t.Errorf("200,000 lines allocated %s", FormatSize(int64(alloc)))
	}
	fmt.Fprintln(w, "after the end")
	if n := len(stderrEvents(s)); n != len(want) {
		t.Errorf("a line after the end was recorded: %d events", n)
	}
}

// TestStderrLongLines: a line longer than MaxStderrLineLength is cut and
// marked, with or without a newline ever coming; short lines around it
// are kept whole.
func TestStderrLongLines(t *testing.T) {
	s := newStderrSession()
	w := newStderrLines(s, 100)
	w.Write([]byte("before\n"))
	chunk := []byte(strings.Repeat("z", 64<<10))
	alloc := allocatedBy(func() {
		for range 1600 { // 100 MiB, no newline
			w.Write(chunk)
		}
	})
	w.Write([]byte("end of the long line\nafter\nno newline"))
	w.flush()
	got := stderrEvents(s)
	if len(got) != 4 || got[0] != "before" || got[2] != "after" || got[3] != "no newline" {
		t.Fatalf("events %.80q", got)
	}
	if want := strings.Repeat("z", MaxStderrLineLength) + " … [line cut at 4 KiB]"; got[1] != want {
		t.Errorf("long line recorded as %.60q… (%d bytes), want it cut at 4 KiB and marked", got[1], len(got[1]))
	}
	if alloc > 10<<20 {
		t.Errorf("a 100 MiB line allocated %s", FormatSize(int64(alloc)))
	}
}

// TestStderrCutInsideCharacter: a long line is cut between characters,
// so that what is recorded stays valid UTF-8.
func TestStderrCutInsideCharacter(t *testing.T) {
	s := newStderrSession()
	w := newStderrLines(s, 100)
	w.Write([]byte("a" + strings.Repeat("é", MaxStderrLineLength) + "\n"))
	got := stderrEvents(s)
	if len(got) != 1 || !utf8.ValidString(got[0]) || !strings.HasSuffix(got[0], "é … [line cut at 4 KiB]") {
		t.Errorf("recorded %.40q…%q", got, got[0][max(0, len(got[0])-40):])
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"16MiB": 16 << 20, "4 MiB": 4 << 20, "16MB": 16_000_000, "1048576": 1 << 20, "2k": 2048, "1.5GiB": 3 << 29, "512b": 512} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "MiB", "16 parsecs", "-1", "0", "1e3"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
	for n, want := range map[int64]string{512: "512 B", 16 << 20: "16 MiB", 3 << 29: "1.5 GiB", 4 << 10: "4 KiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
