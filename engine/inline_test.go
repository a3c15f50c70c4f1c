package engine

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// inlinePolicy is the default policy with dispatch d and a fixed latency.
func inlinePolicy(d DispatchMode, latency time.Duration) AnswerPolicy {
	policy := DefaultAnswerPolicy()
	policy.Dispatch = DispatchPolicy{Mode: d}
	policy.Latency = LatencyModel{Dist: Fixed, A: latency}
	return policy
}

func TestParseDispatchInline(t *testing.T) {
	p, err := ParseDispatch("inline")
	if err != nil || p.Mode != Inline {
		t.Fatalf("ParseDispatch(inline) = %+v, %v", p, err)
	}
	if p.String() != "inline" || p.Slots() != 1 {
		t.Errorf("inline: String %q, Slots %d; want inline, 1", p.String(), p.Slots())
	}
	if err := (AnswerPolicy{Dispatch: p}).Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	if _, err := ParseDispatch("inlined"); err == nil || !strings.Contains(err.Error(), "inline") {
		t.Errorf("ParseDispatch(inlined) error %v, want one that names inline", err)
	}
}

// checkPhases fails the test if a span's phases are out of order, the
// stalled time included.
func checkPhases(t *testing.T, sp *recorder.Span) {
	t.Helper()
	if sp.Stalled < 0 || sp.Received > sp.Received+sp.Stalled || sp.Received+sp.Stalled > sp.Queued ||
		sp.Queued > sp.Serving || sp.Serving > sp.Answered {
		t.Errorf("span %d (%s) phases out of order: received %v stalled %v queued %v serving %v answered %v",
			sp.ID, sp.Method, sp.Received, sp.Stalled, sp.Queued, sp.Serving, sp.Answered)
	}
}

// TestInlineFanout checks that under inline a fan-out of 5 sampling
// requests is served one at a time with each request withheld from the
// client until the one before was answered (stalled, not queued), over
// the in-process demo and stdio transports; serial serves them one at a time
// too but hands them to the client at once (queued, not stalled).
func TestInlineFanout(t *testing.T) {
	const latency = 100 * time.Millisecond
	for _, tr := range []struct {
		name   string
		target Target
	}{{"demo", Target{}}, {"stdio", stdioTarget("plain")}} {
		for _, d := range []DispatchMode{Inline, Serial} {
			t.Run(tr.name+"/"+string(d), func(t *testing.T) {
				s := connectTarget(t, tr.target, inlinePolicy(d, latency))
				args := fanoutArgs(5, "sampling")
				if tr.name == "stdio" {
					args = nil
				}
				res := run(t, s, testCalls{Tool: "fanout", Args: args})
				if res.OK != 1 {
					t.Fatalf("run: %+v", res)
				}
				snap := s.Recording().Snapshot()
				spans := spansOf(snap, "sampling/createMessage")
				if len(spans) != 5 {
					t.Fatalf("%d sampling spans, want 5", len(spans))
				}
				if in, _ := recorder.Peaks(recorder.Steps(&recorder.Snapshot{Spans: spans, Now: snap.Now})); in != 1 {
					t.Errorf("peak in flight %d, want 1", in)
				}
				if res.Elapsed < 5*latency*9/10 {
					t.Errorf("elapsed %v, want about 5 × %v", res.Elapsed, latency)
				}
				slices.SortFunc(spans, func(a, b *recorder.Span) int { return int(a.Serving - b.Serving) })
				var stalled, queued int
				for i, sp := range spans {
					checkPhases(t, sp)
					if sp.Stalled > 0 {
						stalled++
					}
					if sp.QueueTime() > latency/10 { // well above scheduling noise, well below a latency: a hand-off slowed by load still leaves most of the wait at the gate
						queued++
					}
					if sp.HandoffTime() > latency/2 {
						t.Errorf("span %d hand-off %v: the stalled time (%v) counted as hand-off", sp.ID, sp.HandoffTime(), sp.Stalled)
					}
					if d == Inline && i > 0 && sp.Received+sp.Stalled < spans[i-1].Answered {
						t.Errorf("span %d was handed to the client at %v, before span %d was answered at %v",
							sp.ID, sp.Received+sp.Stalled, spans[i-1].ID, spans[i-1].Answered)
					}
				}
				sum := recorder.Summarize(snap)
				if sum.Verdict != recorder.VerdictSerialized {
					t.Errorf("verdict %q (%s), want serialized", sum.Verdict, sum.VerdictText)
				}
				switch d {
				case Inline:
					if stalled < 4 || queued != 0 {
						t.Errorf("inline: %d spans stalled, %d queued; want at least 4 stalled, none queued", stalled, queued)
					}
					if sum.StalledMessages < 4 || sum.StalledMS.Max < 300 || !strings.Contains(sum.VerdictText, "read nothing else") {
						t.Errorf("summary: stalled_messages %d, stalled_ms max %.0f, verdict %q; want the stall counted and named",
							sum.StalledMessages, sum.StalledMS.Max, sum.VerdictText)
					}
				case Serial:
					if stalled != 0 || queued < 4 {
						t.Errorf("serial: %d spans stalled, %d queued; want none stalled, at least 4 queued", stalled, queued)
					}
					if sum.StalledMessages != 0 {
						t.Errorf("serial: stalled_messages %d, want 0", sum.StalledMessages)
					}
				}
			})
		}
	}
}

// TestInlineWithholdsProgressAndResult calls the demo's slow tool (with
// progress and logs) while a fan-out's sampling request is being served
// for 500 ms: under inline the slow call's progress notifications, logs
// and result reach the client only after the sampling answer was written
// (stalled); under serial they reach it as they arrive.
func TestInlineWithholdsProgressAndResult(t *testing.T) {
	for _, d := range []DispatchMode{Inline, Serial} {
		t.Run(string(d), func(t *testing.T) {
			s := connectDemo(t, inlinePolicy(d, 500*time.Millisecond))
			fanout := make(chan testResult, 1)
			go func() {
				res, _ := runCalls(context.Background(), s, testCalls{Tool: "fanout", Args: fanoutArgs(1, "sampling")})
				fanout <- res
			}()
			if !waitFor(5*time.Second, func() bool {
				sp := spansOf(s.Recording().Snapshot(), "sampling/createMessage")
				return len(sp) == 1 && sp[0].Serving != recorder.Unset
			}) {
				t.Fatal("the sampling request was never served")
			}
			slow := run(t, s, testCalls{Tool: "slow", Args: json.RawMessage(`{"ms":200,"steps":4}`)})
			select {
			case res := <-fanout:
				if res.OK != 1 {
					t.Fatalf("fanout: %+v", res)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the fanout call never ended")
			}
			snap := s.Recording().Snapshot()
			sampling := spansOf(snap, "sampling/createMessage")[0]
			var call *recorder.Span
			for _, sp := range spansOf(snap, "tools/call") {
				if sp.Name == "slow" {
					call = sp
				}
			}
			if call == nil || slow.OK != 1 {
				t.Fatalf("no ok slow call (%+v)", slow)
			}
			answered := sampling.Answered
			if call.Answered >= answered {
				t.Fatalf("the slow call's result was read at %v, after the sampling answer at %v: the scenario did not overlap", call.Answered, answered)
			}
			var progress, logs int
			for _, e := range snap.Events {
				if e.Kind != recorder.EventProgress && !(e.Kind == recorder.EventLog && strings.Contains(e.Text, "slow")) {
					continue
				}
				if e.Kind == recorder.EventProgress {
					if e.Span != call.ID {
						continue
					}
					progress++
				} else {
					logs++
				}
				seen := e.At + e.Stalled
				t.Logf("%s: %s read at %v, handed to the client at %v", d, e.Method, e.At.Round(time.Millisecond), seen.Round(time.Millisecond))
				switch {
				case e.At >= answered:
					t.Errorf("%s at %v arrived after the sampling answer (%v): the scenario did not overlap", e.Method, e.At, answered)
				case d == Inline && seen < answered:
					t.Errorf("inline: %s read at %v reached the client at %v, before the sampling answer at %v", e.Method, e.At, seen, answered)
				case d == Serial && e.Stalled != 0:
					t.Errorf("serial: %s stalled %v, want 0", e.Method, e.Stalled)
				}
			}
			t.Logf("%s: sampling answered at %v; slow call result read at %v, handed to the client at %v (stalled %v); slow call took %v for the client",
				d, answered.Round(time.Millisecond), call.Answered.Round(time.Millisecond), (call.Answered + call.Stalled).Round(time.Millisecond),
				call.Stalled.Round(time.Millisecond), slow.Elapsed.Round(time.Millisecond))
			if progress != 4 || logs != 4 {
				t.Errorf("%d progress events and %d logs of the slow call, want 4 and 4", progress, logs)
			}
			switch {
			case d == Inline && call.Answered+call.Stalled < answered:
				t.Errorf("inline: the slow call's result read at %v reached the client at %v, before the sampling answer at %v",
					call.Answered, call.Answered+call.Stalled, answered)
			case d == Serial && call.Stalled != 0:
				t.Errorf("serial: the slow call's result stalled %v, want 0", call.Stalled)
			}
			if d == Inline && slow.Elapsed < 400*time.Millisecond {
				t.Errorf("inline: the slow call took %v for the client, want it to wait for the sampling answer", slow.Elapsed)
			}
			if d == Serial && slow.Elapsed > 400*time.Millisecond {
				t.Errorf("serial: the slow call took %v for the client, want about its 200ms", slow.Elapsed)
			}
		})
	}
}

// TestInlineWithholdsCancellation checks that under inline the server's
// notifications/cancelled for the request being served reaches the
// client only after that request was answered, so it is served to the
// end; serial hands it on at once and the request stops.
func TestInlineWithholdsCancellation(t *testing.T) {
	for _, d := range []DispatchMode{Inline, Serial} {
		t.Run(string(d), func(t *testing.T) {
			s := connectServer(t, cancellingServer(), inlinePolicy(d, 600*time.Millisecond))
			run(t, s, testCalls{Tool: "ask", Args: json.RawMessage(`{"ms":150}`)})
			var sp *recorder.Span
			if !waitFor(3*time.Second, func() bool {
				spans := spansOf(s.Recording().Snapshot(), "sampling/createMessage")
				if len(spans) == 1 && !spans[0].Open() {
					sp = spans[0]
					return true
				}
				return false
			}) {
				t.Fatal("the sampling span never ended")
			}
			// Under inline the withheld cancellation is recorded as it is
			// handed on, a moment after the answer was written: wait for it.
			var cancel *recorder.Event
			waitFor(3*time.Second, func() bool {
				for _, e := range s.Recording().Snapshot().Events {
					if e.Kind == recorder.EventCancelled && e.Span == sp.ID {
						cancel = &e
						return true
					}
				}
				return false
			})
			if cancel == nil {
				t.Fatal("no cancelled event pointing at the sampling span")
			}
			switch d {
			case Inline:
				if sp.Status != recorder.StatusOK || sp.ServeTime() < 550*time.Millisecond {
					t.Errorf("inline: span %s after %v serving, want ok after its 600ms latency (the cancel withheld)", sp.Status, sp.ServeTime())
				}
				if cancel.Stalled <= 0 || cancel.At+cancel.Stalled < sp.Answered {
					t.Errorf("inline: cancel read at %v stalled %v, want it handed on after the answer at %v", cancel.At, cancel.Stalled, sp.Answered)
				}
			case Serial:
				if sp.Status != recorder.StatusCancelled || cancel.Stalled != 0 {
					t.Errorf("serial: span %s, cancel stalled %v; want cancelled at once", sp.Status, cancel.Stalled)
				}
			}
		})
	}
}

// TestInlineRefusedOverHTTP checks that inline over HTTP is refused with
// the reason, before anything is connected.
func TestInlineRefusedOverHTTP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := Connect(ctx, Target{Transport: TransportHTTP, URL: "http://127.0.0.1:1/mcp"}, inlinePolicy(Inline, 0), recorder.New(recorder.Meta{}))
	if !errors.Is(err, ErrInlineOverHTTP) {
		t.Fatalf("Connect over http with inline: %v, want ErrInlineOverHTTP", err)
	}
}

// TestInlineConnectionLost checks that a stdio server exiting while one
// request is served under inline and four are withheld ends the session
// at once (not after the 5s latency), and that the four withheld requests
// record that they were withheld until the loss.
func TestInlineConnectionLost(t *testing.T) {
	s := connectTarget(t, stdioTarget("fanout-exit"), inlinePolicy(Inline, 5*time.Second))
	start := time.Now()
	if _, err := runCalls(context.Background(), s, testCalls{Tool: "fanout"}); err == nil {
		t.Fatal("Run succeeded, want the connection lost")
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("Run took %v: the loss waited for the served request's latency", el)
	}
	var withheld int
	for _, sp := range spansOf(s.Recording().Snapshot(), "sampling/createMessage") {
		checkPhases(t, sp)
		if sp.Status != recorder.StatusAborted {
			t.Errorf("span %d %s, want aborted", sp.ID, sp.Status)
		}
		if sp.Stalled >= 200*time.Millisecond {
			withheld++
		}
	}
	if withheld != 4 {
		t.Errorf("%d requests withheld until the loss (300ms after they came), want 4", withheld)
	}
}
