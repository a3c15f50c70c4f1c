package recorder

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestClassOf checks the class each way of failing gets, and its text.
func TestClassOf(t *testing.T) {
	tests := []struct {
		method string
		status Status
		code   int64
		err    string
		result string
		want   string
	}{
		{"tools/call", StatusOK, 0, "", `{"content":[]}`, ""},
		{"initialize", StatusError, -32700, "parse error", "", "parse error -32700"},
		{"tools/call", StatusError, -32600, "invalid request", "", "invalid request -32600"},
		{"foo/bar", StatusError, -32601, "method not found", "", "method not found -32601"},
		{"tools/call", StatusError, -32602, `unknown tool "x"`, "", "unknown tool -32602"},
		{"tools/call", StatusError, -32602, "invalid arguments: missing properties: text", "", "invalid params -32602"},
		{"prompts/get", StatusError, -32602, "Prompt x not found", "", "invalid params -32602"},
		{"resources/read", StatusError, -32602, "Resource x not found", "", "resource not found -32602"},
		{"resources/read", StatusError, -32002, "Resource not found", "", "resource not found -32002"},
		{"tools/call", StatusError, -32603, "boom", "", "internal error -32603"},
		{"tools/call", StatusError, -32020, "header mismatch", "", "header mismatch -32020"},
		{"tools/call", StatusError, -32021, "missing capability", "", "missing capability -32021"},
		{"server/discover", StatusError, -32022, "unsupported version", "", "unsupported version -32022"},
		{"tools/call", StatusError, -32001, "busy", "", "server error -32001"},
		{"tools/call", StatusError, 0, "it broke", `{"isError":true}`, "tool error"},
		{"tools/call", StatusError, 0, "MCP error -32602: Tool x not found", `{"isError":true}`, "unknown tool -32602"},
		{"tools/call", StatusError, 0, "MCP error -32602: Invalid arguments for tool echo", `{"isError":true}`, "invalid params -32602"},
		{"tools/call", StatusTimeout, 0, "no result within 1s", "", "timeout"},
		{"tools/call", StatusCancelled, 0, "stopped", "", "cancelled"},
		{"tools/call", StatusAborted, 0, "connection lost", "", "aborted"},
		{"tools/call", StatusError, 0, "the SDK refused the result", "", "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.want+" "+tt.err, func(t *testing.T) {
			s := NewSpan("s1", Outgoing, tt.method)
			s.Status, s.ErrorCode, s.Error, s.Received, s.Answered = tt.status, tt.code, tt.err, 0, time.Millisecond
			if tt.result != "" {
				s.Result = []byte(tt.result)
			}
			m := Message{Type: MessageResponse, Span: &s}
			if got := m.ClassText(); got != tt.want {
				t.Errorf("class %q, want %q", got, tt.want)
			}
			if got := m.Failed(); got != (tt.want != "") {
				t.Errorf("Failed() = %v", got)
			}
		})
	}
}

// TestStatusText checks that a failed answer names the HTTP status of
// the POST that carried its request, from the recording's exchanges,
// and says when 2026-07-28 requires another.
func TestStatusText(t *testing.T) {
	s := NewSpan("s1", Outgoing, "tools/call")
	s.RequestID, s.Status, s.ErrorCode, s.Error = "3", StatusError, -32602, `unknown tool "x"`
	m := Message{Type: MessageResponse, Span: &s}
	post := func(id string, status int) *Exchange {
		return &Exchange{Method: "POST", RPC: "tools/call", Session: "s1", Status: status,
			RequestBody: `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{}}`}
	}
	for _, tt := range []struct {
		name string
		snap *Snapshot
		want string
	}{
		{"stdio", &Snapshot{Meta: Meta{Protocol: "2026-07-28"}}, ""},
		{"as required", &Snapshot{Meta: Meta{Protocol: "2026-07-28"}, HTTP: &HTTPLog{Exchanges: []*Exchange{post("2", 200), post("3", 400)}}}, "HTTP 400"},
		{"not as required", &Snapshot{Meta: Meta{Protocol: "2026-07-28"}, HTTP: &HTTPLog{Exchanges: []*Exchange{post("3", 200)}}}, "HTTP 200, 2026-07-28 requires 400"},
		{"2025-11-25", &Snapshot{Meta: Meta{Protocol: "2025-11-25"}, HTTP: &HTTPLog{Exchanges: []*Exchange{post("3", 200)}}}, "HTTP 200"},
		{"exchange not kept", &Snapshot{Meta: Meta{Protocol: "2026-07-28"}, HTTP: &HTTPLog{Exchanges: []*Exchange{post("4", 400)}}}, ""},
	} {
		if got := m.StatusText(tt.snap); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// growing records n tool calls of one span each on rec, one every time.Millisecond,
// handing a snapshot to f after each.
func growing(rec *Recording, n int, f func(*Snapshot)) {
	for i := 0; i < n; i++ {
		sp := NewSpan("s1", Outgoing, "tools/call")
		sp.RequestID, sp.Name = fmt.Sprint(i+1), "echo"
		sp.Received, sp.Queued, sp.Serving = time.Duration(i)*time.Millisecond, time.Duration(i)*time.Millisecond, time.Duration(i)*time.Millisecond
		id := rec.Begin(sp)
		if i%3 != 0 { // some stay open over a snapshot
			rec.End(id, time.Duration(i)*time.Millisecond+time.Millisecond/2, Outcome{Status: StatusOK, Result: []byte(`{"content":[]}`)})
		}
		f(rec.Snapshot())
		if i%3 == 0 {
			rec.End(id, time.Duration(i)*time.Millisecond+2*time.Millisecond, Outcome{Status: StatusError, Code: -32602, Error: `unknown tool "echo"`})
		}
	}
	f(rec.Snapshot())
}

// TestTranscriptUpdate checks that a transcript kept up to date snapshot
// after snapshot, answers arriving late and the spans thinned by a cap on
// them, ends equal to one built from the last snapshot alone.
func TestTranscriptUpdate(t *testing.T) {
	for _, cap := range []int{0, 64} {
		t.Run(fmt.Sprintf("max spans %d", cap), func(t *testing.T) {
			rec := New(Meta{})
			rec.SetMaxSpans(cap)
			var live Transcript
			var last *Snapshot
			growing(rec, 300, func(s *Snapshot) { live.Update(s); last = s })
			want := TranscriptOf(last)
			if a, b := linesOf(live.Messages), linesOf(want); !slices.Equal(a, b) {
				t.Errorf("kept up to date: %d lines, built at once: %d\n%s\n---\n%s", len(a), len(b),
					strings.Join(a[max(0, len(a)-5):], "\n"), strings.Join(b[max(0, len(b)-5):], "\n"))
			}
			if cap == 0 && len(want) != 600 {
				t.Errorf("%d lines for 300 calls, want a request and a response each", len(want))
			}
		})
	}
}

func linesOf(msgs []Message) []string {
	out := make([]string, len(msgs))
	for i := range msgs {
		out[i] = msgs[i].Line()
	}
	return out
}

// BenchmarkTranscriptUpdate measures a refresh of a live transcript of a
// load test that has made 100,000 calls, 100 new since the last refresh.
func BenchmarkTranscriptUpdate(b *testing.B) {
	rec := New(Meta{})
	var live Transcript
	n := 0
	add := func(k int) {
		for i := 0; i < k; i++ {
			sp := NewSpan("s1", Outgoing, "tools/call")
			at := time.Duration(n) * time.Microsecond
			sp.RequestID, sp.Name, sp.Received, sp.Queued, sp.Serving = fmt.Sprint(n+1), "echo", at, at, at
			id := rec.Begin(sp)
			rec.End(id, at+time.Microsecond, Outcome{Status: StatusOK})
			n++
		}
	}
	add(100_000)
	live.Update(rec.Snapshot())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		add(100)
		snap := rec.Snapshot()
		b.StartTimer()
		live.Update(snap)
	}
}

// TestTranscriptUpdateIsBounded checks that a refresh of the transcript
// of a load test of 100,000 calls looks again only at what changed: the
// lines of 100 calls made since the last refresh are added at the end,
// and the lines before them stay as they were.
func TestTranscriptUpdateIsBounded(t *testing.T) {
	rec := New(Meta{})
	var live Transcript
	add := func(from, n int) {
		for i := from; i < from+n; i++ {
			at := time.Duration(i) * time.Microsecond
			sp := NewSpan("s1", Outgoing, "tools/call")
			sp.RequestID, sp.Name, sp.Received, sp.Queued, sp.Serving = fmt.Sprint(i+1), "echo", at, at, at
			rec.End(rec.Begin(sp), at+time.Microsecond/2, Outcome{Status: StatusOK})
		}
	}
	add(0, 100_000)
	if first := live.Update(rec.Snapshot()); first != 0 || len(live.Messages) != 200_000 {
		t.Fatalf("first update: index %d, %d lines; want 0 and 200,000", first, len(live.Messages))
	}
	firstSpan := live.Messages[0].Span
	add(100_000, 100)
	if first := live.Update(rec.Snapshot()); first != 200_000 || len(live.Messages) != 200_200 {
		t.Errorf("refresh after 100 calls: changed from %d, %d lines; want from 200,000 of 200,200", first, len(live.Messages))
	}
	if live.Messages[0].Span != firstSpan {
		t.Error("the first line changed")
	}
	if first := live.Update(rec.Snapshot()); first != len(live.Messages) {
		t.Errorf("a refresh with nothing new changed lines from %d", first)
	}
}

// TestTranscriptCallSeenBeforeItsRounds checks that a tool call whose
// first round is recorded after a refresh becomes a call line, and that
// the refresh says that line changed.
func TestTranscriptCallSeenBeforeItsRounds(t *testing.T) {
	rec := New(Meta{})
	var live Transcript
	call := NewSpan("s1", Outgoing, "tools/call")
	call.RequestID, call.Name, call.Received, call.Queued, call.Serving = "3", "fanout", time.Millisecond, time.Millisecond, time.Millisecond
	id := rec.Begin(call)
	live.Update(rec.Snapshot())
	if len(live.Messages) != 1 || live.Messages[0].Type != MessageRequest {
		t.Fatalf("before its rounds: %v", linesOf(live.Messages))
	}
	round := call
	round.Kind, round.Parent, round.Round = KindRound, id, 1
	rec.Begin(round)
	if first := live.Update(rec.Snapshot()); first != 0 {
		t.Errorf("the refresh says lines changed from %d, want 0 (the call's line)", first)
	}
	if got := linesOf(live.Messages); len(got) != 2 || live.Messages[0].Type != MessageCall || !strings.Contains(got[1], "round 1: fanout") {
		t.Errorf("after its first round:\n%s", strings.Join(got, "\n"))
	}
}

// TestTranscriptRequestGetsItsID checks that a request recorded before
// its JSON-RPC id was known (as it was being sent) reads with the id once
// the span has it, in a transcript kept up to date as in one built at
// once: the live Protocol tab showed "→ tools/call" where the finished
// transcript showed "→ #4 tools/call".
func TestTranscriptRequestGetsItsID(t *testing.T) {
	rec, live, id := callBegunUnsent("no-such-tool")
	if got := live.Messages[0].Line(); strings.Contains(got, "#4") {
		t.Fatalf("before it has an id the line reads %q", got)
	}
	rec.Update(id, func(s *Span) { s.RequestID = "4" })
	live.Update(rec.Snapshot())
	rec.End(id, 2*time.Millisecond, Outcome{Status: StatusOK})
	live.Update(rec.Snapshot())
	want := linesOf(TranscriptOf(rec.Snapshot()))
	if got := linesOf(live.Messages); !slices.Equal(got, want) {
		t.Errorf("kept up to date:\n%s\nbuilt at once:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(live.Messages[0].Line(), "#4 tools/call") {
		t.Errorf("the request line reads %q, want its id", live.Messages[0].Line())
	}
}

// callBegunUnsent begins a tools/call of tool at 1 ms, not yet sent (no
// id), and a transcript kept up to date that has seen it.
func callBegunUnsent(tool string) (*Recording, *Transcript, SpanID) {
	rec, live := New(Meta{}), &Transcript{}
	sp := NewSpan("s1", Outgoing, "tools/call")
	sp.Name, sp.Received, sp.Queued, sp.Serving = tool, time.Millisecond, time.Millisecond, time.Millisecond
	id := rec.Begin(sp)
	live.Update(rec.Snapshot())
	return rec, live, id
}

// TestTranscriptRequestMovesToWhenSent: a call begun before another
// request and written to the wire after it (its span gets its id and its
// send time together) moves, in a transcript kept up to date, to where a
// transcript made afresh has it. CI caught the live Protocol view showing
// the begin time, a millisecond early.
func TestTranscriptRequestMovesToWhenSent(t *testing.T) {
	rec, live, id := callBegunUnsent("slow-to-send")
	second := NewSpan("s1", Outgoing, "ping")
	second.RequestID, second.Received, second.Queued, second.Serving = "5", 3*time.Millisecond/2, 3*time.Millisecond/2, 3*time.Millisecond/2
	rec.Begin(second)
	live.Update(rec.Snapshot())
	rec.Update(id, func(s *Span) {
		s.RequestID = "4"
		s.Received, s.Queued, s.Serving = 2*time.Millisecond, 2*time.Millisecond, 2*time.Millisecond
	})
	from := live.Update(rec.Snapshot())
	want := linesOf(TranscriptOf(rec.Snapshot()))
	if got := linesOf(live.Messages); !slices.Equal(got, want) {
		t.Errorf("kept up to date:\n%s\nbuilt at once:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if from != 0 {
		t.Errorf("Update says the lines from %d on changed, want 0: the first line moved", from)
	}
}
