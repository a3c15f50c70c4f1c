package app

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/fanout-inspector/inspector/engine"

	"github.com/fanout-inspector/inspector/recorder"
)

// proxyRequest is a server request as the proxy records it: received and
// passed on at once (Queued = Received), Serving never known.
func proxyRequest(rec *recorder.Recording, parent recorder.SpanID) recorder.SpanID {
	s := recorder.NewSpan("proxy", recorder.Incoming, "sampling/createMessage")
	s.Parent, s.Received = parent, rec.Now()
	s.Queued = s.Received
	s.Params = json.RawMessage(`{"maxTokens":1}`)
	return rec.Begin(s)
}

// TestTimelineFollowsAGrowingJournal follows a journal that a live
// recorder.Journal writes, as inspector proxy does in another process:
// started before the file exists, it waits, then draws the spans as they
// are appended, one answer after the other, and stops when the journal
// ends; the proxy recording is drawn with the client's work estimated,
// named so in the legend and the details, and summarized about the client.
func TestTimelineFollowsAGrowingJournal(t *testing.T) {
	test.NewTempApp(t)
	tv, _ := showTimeline(t, fyne.NewSize(1280, 720))
	ch := make(chan func(), 1)
	tv.runOnMain = func(f func()) { ch <- f }
	tv.followEvery = 10 * time.Millisecond
	path := filepath.Join(t.TempDir(), "proxy.jsonl")

	var states []followState
	tv.followJournal(path, func(st followState) { states = append(states, st) })
	pump(t, ch, func() bool { return len(states) > 0 })
	if !states[0].waiting {
		t.Fatalf("following a file that does not exist yet: first state %+v, want waiting", states[0])
	}

	rec := recorder.New(recorder.Meta{Title: "proxy: client", Mode: recorder.ModeProxy})
	j, err := recorder.OpenJournal(path, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	call := recorder.NewSpan("proxy", recorder.Outgoing, "tools/call")
	call.Name, call.Received = "fanout", rec.Now()
	callID := rec.Begin(call)
	var reqs []recorder.SpanID
	for range 3 {
		reqs = append(reqs, proxyRequest(rec, callID))
	}
	pump(t, ch, func() bool { return len(tv.Rows()) == 4 })
	if got := ids(tv.Rows()); got != "1 >2 >3 >4" {
		t.Errorf("rows of the followed journal = %q", got)
	}

	// the client answers one at a time: each answer reaches the view
	for i, id := range reqs {
		time.Sleep(60 * time.Millisecond)
		rec.Update(id, func(s *recorder.Span) {
			s.Answered, s.Status, s.Result = rec.Now(), recorder.StatusOK, json.RawMessage(`{"ok":true}`)
		})
		pump(t, ch, func() bool { return endedSpans(tv.snapshot()) == i+1 })
		if !strings.HasPrefix(strings.SplitN(tv.statsText(), "\n", 2)[1], provisionalPrefix) {
			t.Errorf("mid-run, the followed journal's verdict does not say it is so far:\n%s", tv.statsText())
		}
	}
	rec.Update(callID, func(s *recorder.Span) { s.Answered, s.Status = rec.Now(), recorder.StatusOK })
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	pump(t, ch, func() bool { return len(states) > 0 && states[len(states)-1].ended })
	if strings.Contains(tv.statsText(), provisionalPrefix) {
		t.Errorf("the journal ended, and its verdict still says so far:\n%s", tv.statsText())
	}

	if seen := tv.FollowSeen(); !slices.Equal(seen, []int{0, 1, 2, 3, 4}) {
		t.Errorf("ended spans seen as the journal grew = %v, want 0 1 2 3 4 (one frame per answer)", seen)
	}
	for _, st := range states[1 : len(states)-1] {
		if st != (followState{}) {
			t.Errorf("states between waiting and ended: %+v, want following", states)
		}
	}

	// drawn with the work estimated; saved as recorded
	raw := tv.snapshot()
	if raw.Spans[1].Serving != recorder.Unset {
		t.Errorf("the recording kept for saving has an estimated Serving %v: it must be as recorded", raw.Spans[1].Serving)
	}
	if drawn := tv.Rows()[1].Span; drawn.Serving == recorder.Unset || drawn.Serving <= drawn.Received {
		t.Errorf("the Gantt draws a proxied request with Serving %v (received %v): want the estimated work inside the wait", drawn.Serving, drawn.Received)
	}
	legend := strings.Join(tv.legendText(), " | ")
	for _, want := range []string{legendProxyQueued, legendProxyServing} {
		if !strings.Contains(legend, want) {
			t.Errorf("legend of a proxy recording lacks %q:\n%s", want, legend)
		}
	}
	if sum := tv.Summary(); !sum.Estimated || !strings.Contains(sum.VerdictText, "your client") {
		t.Errorf("stats of a proxy recording: estimated %v, verdict %q; want the proxy summary", sum.Estimated, sum.VerdictText)
	}
	tv.Gantt().OnSelect(tv.Rows()[1].Span)
	details := tv.Details().Text()
	for _, want := range []string{"waiting at the client", "estimated work", "black box"} {
		if !strings.Contains(details, want) {
			t.Errorf("details of a proxied request lack %q:\n%s", want, details)
		}
	}
	if strings.Contains(details, "queued ") {
		t.Errorf("details of a proxied request show a queued instant the proxy never measured:\n%s", details)
	}

	// another recording: the legend speaks of the inspector's own again
	tv.SetSnapshot(fixedSnapshot())
	if legend := strings.Join(tv.legendText(), " | "); strings.Contains(legend, legendProxyQueued) {
		t.Errorf("legend of the inspector's own recording: %s", legend)
	}
}

// TestTimelineFollowDamagedJournal: a journal that turns out damaged, or
// shrinks while followed, stops the follow with an error that names the
// file, and what was read stays shown.
func TestTimelineFollowDamagedJournal(t *testing.T) {
	rec := recorder.New(recorder.Meta{Title: "proxy", Mode: recorder.ModeProxy})
	call := recorder.NewSpan("proxy", recorder.Outgoing, "tools/call")
	call.Name, call.Received = "fanout", rec.Now()
	proxyRequest(rec, rec.Begin(call))
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	j, err := recorder.OpenJournal(good, rec)
	if err != nil {
		t.Fatal(err)
	}
	// Both spans written, the journal still open: poll the file.
	var data []byte
	for deadline := time.Now().Add(10 * time.Second); bytes.Count(data, []byte(`{"span":`)) < 2; time.Sleep(recorder.JournalFlushInterval / 4) {
		if data, err = os.ReadFile(good); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the journal holds no two spans 10 s after it opened:\n%s", data)
		}
	}
	j.Close()

	for _, tc := range []struct {
		name   string
		damage func(path string) error
		want   string
	}{
		{"damaged", func(path string) error {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteString("{\"span\": garbage}\n")
			return err
		}, "damaged"},
		{"shrunk", func(path string) error { return os.Truncate(path, 10) }, "shrank"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			test.NewTempApp(t)
			tv, _ := showTimeline(t, fyne.NewSize(1280, 720))
			ch := make(chan func(), 1)
			tv.runOnMain = func(f func()) { ch <- f }
			tv.followEvery = 10 * time.Millisecond
			path := filepath.Join(t.TempDir(), "j.jsonl")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			var last followState
			tv.followJournal(path, func(st followState) { last = st })
			pump(t, ch, func() bool { return len(tv.Rows()) == 2 })
			if err := tc.damage(path); err != nil {
				t.Fatal(err)
			}
			pump(t, ch, func() bool { return last.err != nil })
			if msg := last.err.Error(); !strings.Contains(msg, tc.want) || !strings.Contains(msg, path) {
				t.Errorf("error = %q, want it to say %q and name the file", msg, tc.want)
			}
			if len(tv.Rows()) != 2 {
				t.Errorf("after the error the view shows %d rows, want the 2 read", len(tv.Rows()))
			}
		})
	}
}

// TestStatsOfAProxyRecordingAreTheProxySummary: the stats bar's summary of
// a proxy recording is recorder.Summarize's proxy summary (about the
// client, estimated), not the inspector-as-client one, which reads the
// proxy's unmeasured Serving as all waiting.
func TestStatsOfAProxyRecordingAreTheProxySummary(t *testing.T) {
	rec := recorder.New(recorder.Meta{Mode: recorder.ModeProxy})
	for range 3 {
		id := proxyRequest(rec, 0)
		rec.Update(id, func(s *recorder.Span) { s.Answered, s.Status = s.Received+300*ms, recorder.StatusOK })
	}
	snap := rec.Snapshot()
	sum := summarize(snap, recorder.Steps(snap))
	if !sum.Estimated || sum.PeakInFlight != 3 {
		t.Errorf("summary of 3 requests answered together: estimated %v, peak in flight %d; want the proxy summary's estimate, 3", sum.Estimated, sum.PeakInFlight)
	}
}

func TestDetailsOfAFulfilment(t *testing.T) {
	test.NewTempApp(t)
	d := newDetails()
	d.setProxy(true)
	s := recorder.NewSpan("proxy", recorder.Incoming, "input_required")
	s.ID, s.InputRequests, s.Received, s.Queued, s.Answered, s.Status = 7, 5, 100*ms, 100*ms, 600*ms, recorder.StatusOK
	d.setSpan(&s, nil)
	text := d.Text()
	for _, want := range []string{"5 input requests fulfilled inside the client; their concurrency cannot be seen on the wire", "500 ms"} {
		if !strings.Contains(text, want) {
			t.Errorf("details of a fulfilment lack %q:\n%s", want, text)
		}
	}
}

// TestFollowingTurnsRunOff: a window following a journal with no
// connection of its own says the Workload panel does not apply and turns
// Run off; connecting turns it back on.
func TestFollowingTurnsRunOff(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.followFile(filepath.Join(t.TempDir(), "later.jsonl"))
	if !m.workload.runButton.Disabled() || m.workload.problem.Text != followNoRun || !m.workload.problem.Visible() {
		t.Errorf("following without a connection: Run disabled %v, note %q; want Run off and the note", m.workload.runButton.Disabled(), m.workload.problem.Text)
	}
	if !strings.Contains(m.timeline.statsText(), "No tool call in the journal yet") {
		t.Errorf("before the journal has anything the stats say %q", m.timeline.statsText())
	}
	m.connect(engine.Target{})
	loop.waitFor(t, "the connection", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	if m.workload.runButton.Disabled() || m.workload.problem.Visible() {
		t.Errorf("connected: Run disabled %v, note %q shown %v; want Run back on", m.workload.runButton.Disabled(), m.workload.problem.Text, m.workload.problem.Visible())
	}
}
