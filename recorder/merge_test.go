package recorder

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

// loadSource is a recording of one load generator: n tool calls on
// session s1, each taking d, one after another from start, the first
// with a sampling request of its own (to check parent links) and a
// progress event naming it.
func loadSource(created time.Time, n int, d time.Duration, start time.Duration) *Snapshot {
	snap := &Snapshot{Meta: Meta{Title: "echo on demo", Created: created, Target: "demo"}}
	id := SpanID(0)
	add := func(s Span) *Span {
		id += 2 // sparse IDs, as a journal may leave them
		s.ID = id
		s.Status = StatusOK
		snap.Spans = append(snap.Spans, &s)
		return &s
	}
	at := start
	for i := range n {
		s := NewSpan("s1", Outgoing, "tools/call")
		s.Name = "echo"
		s.Received, s.Queued, s.Serving, s.Answered = at, at, at, at+d
		call := add(s)
		if i == 0 {
			c := NewSpan("s1", Incoming, "sampling/createMessage")
			c.Parent = call.ID
			c.Received, c.Queued, c.Serving, c.Answered = at+time.Millisecond, at+time.Millisecond, at+time.Millisecond, at+2*time.Millisecond
			add(c)
			snap.Events = append(snap.Events, Event{At: at + time.Millisecond, Session: "s1", Kind: EventProgress, Span: call.ID})
		}
		at += d
	}
	snap.Now = at + time.Millisecond
	return snap
}

func TestMergeAlignsRenamesAndSums(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 15, 0, 0, 0, time.UTC)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	// a: 120 calls of 10 ms; b, 100 ms later: 79 of 100 ms; c, 50 ms
	// before a: one of 1 s. Together p50 is 10 ms and p90 and p99 100 ms,
	// whatever the percentile's definition (the ranks around them fall
	// inside runs of equal times); no mix of the sources' own percentiles
	// (10, 100 and 1000 ms at every rank) gives that.
	a := loadSource(t0, 120, ms(10), ms(20))
	a.Runs = []Run{{Name: "Run 1", Start: ms(10), End: ms(600), Tool: "echo"}, {Name: "Run 2", Start: ms(300), End: a.Now}}
	b := loadSource(t0.Add(ms(100)), 79, ms(100), ms(5))
	c := loadSource(t0.Add(-ms(50)), 1, ms(1000), ms(0))
	m, err := Merge([]*Snapshot{a, b, c}, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}

	if !m.Meta.Created.Equal(t0.Add(-ms(50))) {
		t.Errorf("merged start %v, want the earliest source's (c) %v", m.Meta.Created, t0.Add(-ms(50)))
	}
	if want := ms(150) + b.Now; m.Now != want {
		t.Errorf("merged Now %v, want b's end %v (b ends last, 150 ms after c started)", m.Now, want)
	}
	if len(m.Meta.Merged) != 3 || !strings.HasPrefix(m.Meta.Title, "merge of 3 recordings") {
		t.Fatalf("Meta says %q with %d sources, want a merge of 3", m.Meta.Title, len(m.Meta.Merged))
	}
	for i, want := range []time.Duration{ms(50), ms(150), 0} {
		if got := m.Meta.Merged[i].Offset; got != want {
			t.Errorf("source %s offset %v, want %v", m.Meta.Merged[i].Name, got, want)
		}
	}

	// Every span is there, renumbered 1…N in order of time, with its
	// session renamed and its times moved by its source's offset.
	if len(m.Spans) != len(a.Spans)+len(b.Spans)+len(c.Spans) {
		t.Fatalf("%d spans, want %d", len(m.Spans), len(a.Spans)+len(b.Spans)+len(c.Spans))
	}
	for i, s := range m.Spans {
		if s.ID != SpanID(i+1) {
			t.Fatalf("span %d has id %d: ids must be 1…N", i, s.ID)
		}
		if i > 0 && s.Received < m.Spans[i-1].Received {
			t.Fatalf("span %d received at %v, before span %d (%v)", s.ID, s.Received, i, m.Spans[i-1].Received)
		}
	}
	sessions := map[string]int{}
	for _, s := range m.Spans {
		sessions[s.Session]++
	}
	if sessions["a:s1"] != len(a.Spans) || sessions["b:s1"] != len(b.Spans) || sessions["c:s1"] != len(c.Spans) || len(sessions) != 3 {
		t.Errorf("sessions %v, want a:s1, b:s1, c:s1 with each source's spans", sessions)
	}
	firstOf := func(session string) *Span {
		for _, s := range m.Spans {
			if s.Session == session {
				return s
			}
		}
		return nil
	}
	if got, want := firstOf("b:s1").Received, b.Spans[0].Received+ms(150); got != want {
		t.Errorf("b's first call at %v of the merge, want %v (its own %v + 150 ms)", got, want, b.Spans[0].Received)
	}
	for _, name := range []string{"a:s1", "b:s1", "c:s1"} {
		var child *Span
		for _, s := range m.Spans {
			if s.Session == name && s.Direction == Incoming {
				child = s
			}
		}
		parent := m.Spans[child.Parent-1]
		if parent.Session != name || parent.Method != "tools/call" || parent.Received > child.Received {
			t.Errorf("%s's sampling request links to span %d (%s %s): want its own source's first call", name, child.Parent, parent.Session, parent.Method)
		}
	}
	if len(m.Events) != 3 {
		t.Fatalf("%d events, want 3", len(m.Events))
	}
	for _, e := range m.Events {
		if s := m.Spans[e.Span-1]; s.Session != e.Session || s.Method != "tools/call" {
			t.Errorf("event of %s names span %d of %s", e.Session, e.Span, s.Session)
		}
	}

	// Counts add up; percentiles are those of all the calls together.
	sum := Summarize(m)
	var total int
	for _, s := range []*Snapshot{a, b, c} {
		total += Summarize(s).ToolCalls.Total
	}
	if sum.ToolCalls.Total != total || sum.ToolCalls.OK != total || sum.ToolCalls.Total != 200 {
		t.Errorf("merged tool calls %+v, want %d (the sum of the sources')", sum.ToolCalls, total)
	}
	if sum.ServerRequests.Total != 3 {
		t.Errorf("merged server requests %d, want 3", sum.ServerRequests.Total)
	}
	if d := sum.ToolCalls.DurationMS; d.P50 != 10 || d.P90 != 100 || d.P99 != 100 || d.Max != 1000 {
		t.Errorf("merged call times %+v, want p50 10, p90 100, p99 100, max 1000 ms", d)
	}

	// Runs: each source's, named after it, holding only its own spans.
	var runNames []string
	for _, r := range m.Runs {
		runNames = append(runNames, r.Name)
	}
	if want := []string{"c: Run 1", "a: Run 1", "b: Run 1", "a: Run 2"}; !slices.Equal(runNames, want) {
		t.Fatalf("runs %q, want %q (in the order they began)", runNames, want)
	}
	segB := m.Segment(m.Runs[2])
	if len(segB.Spans) != len(b.Spans) || Summarize(segB).ToolCalls.Total != 79 {
		t.Errorf("segment of %q has %d spans, want b's %d: runs of other sources overlap it in time but are not in it", m.Runs[2].Name, len(segB.Spans), len(b.Spans))
	}
	if seg := m.Segment(m.Runs[1]); Summarize(seg).ToolCalls.Total != Summarize(a.Segment(a.Runs[0])).ToolCalls.Total {
		t.Errorf("segment %q: %d calls, want a's Run 1's", m.Runs[1].Name, Summarize(seg).ToolCalls.Total)
	}

	// The merge saves and loads as a recording, sources and runs kept.
	var buf bytes.Buffer
	if err := Save(&buf, m); err != nil {
		t.Fatal(err)
	}
	back, err := Load(&buf)
	if err != nil {
		t.Fatalf("a saved merge does not load: %v", err)
	}
	if len(back.Meta.Merged) != 3 || back.Meta.Merged[1].Name != "b" || !slices.Equal(back.Runs[2].Sessions, []string{"b:s1"}) {
		t.Errorf("loaded merge lost its sources or its runs' sessions: %+v %+v", back.Meta.Merged, back.Runs)
	}

	// The sources are not changed.
	if a.Spans[0].Session != "s1" || a.Spans[0].ID != 2 || b.Spans[0].Received != ms(5) {
		t.Error("Merge changed a source's spans")
	}
}

func TestMergeOneIsTheRecording(t *testing.T) {
	a := loadSource(time.Now(), 3, time.Millisecond, 0)
	m, err := Merge([]*Snapshot{a}, []string{"a"})
	if err != nil || m != a {
		t.Fatalf("Merge of one recording = %p, %v; want it unchanged", m, err)
	}
}

// Recordings whose clocks do not overlap (the machines' clocks differ,
// or the runs were not at the same time) are merged all the same, with
// the gap between them.
func TestMergeDisjointClocks(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 15, 0, 0, 0, time.UTC)
	a := loadSource(t0.Add(3*time.Hour), 3, time.Millisecond, 0)
	b := loadSource(t0, 3, time.Millisecond, 0)
	m, err := Merge([]*Snapshot{a, b}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Now != 3*time.Hour+a.Now || m.Spans[0].Session != "b:s1" || m.Spans[len(m.Spans)-1].Session != "a:s1" {
		t.Errorf("merged Now %v, first span of %s, last of %s: want 3h+%v, b first, a last", m.Now, m.Spans[0].Session, m.Spans[len(m.Spans)-1].Session, a.Now)
	}
}

func TestMergeNames(t *testing.T) {
	now := time.Now()
	m, err := Merge([]*Snapshot{loadSource(now, 1, time.Millisecond, 0), loadSource(now, 1, time.Millisecond, 0), loadSource(now, 1, time.Millisecond, 0)},
		[]string{"run", "run", ""})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range m.Meta.Merged {
		got = append(got, s.Name)
	}
	if want := []string{"run", "run-2", "source3"}; !slices.Equal(got, want) {
		t.Errorf("source names %q, want %q: two sources must never share a session name", got, want)
	}
}

func TestMergeRefuses(t *testing.T) {
	now := time.Now()
	ok := loadSource(now, 1, time.Millisecond, 0)
	noStart := loadSource(time.Time{}, 1, time.Millisecond, 0)
	proxy := loadSource(now, 1, time.Millisecond, 0)
	proxy.Meta.Mode = ModeProxy
	for _, c := range []struct {
		name  string
		snaps []*Snapshot
		names []string
		want  string
	}{
		{"none", nil, nil, "no recordings"},
		{"names", []*Snapshot{ok, ok}, []string{"a"}, "2 recordings but 1 names"},
		{"no start", []*Snapshot{ok, noStart}, []string{"a", "b"}, "b has no start time"},
		{"proxy", []*Snapshot{ok, proxy}, []string{"a", "b"}, "inspector proxy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Merge(c.snaps, c.names)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Merge: %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// openLoopSource is a recording of an open-loop generator: n calls of d
// intended every 100 ms from 100 ms on, the last sent late by late, the
// first failed with JSON-RPC error -32603, and one dropped arrival.
func openLoopSource(created time.Time, n int, d, late time.Duration) *Snapshot {
	snap := &Snapshot{Meta: Meta{Title: "echo on demo", Created: created, Target: "demo"}}
	ms := time.Millisecond
	for i := range n {
		s := NewSpan("s1", Outgoing, "tools/call")
		s.ID = SpanID(i + 1)
		s.Name = "echo"
		s.Intended = time.Duration(i+1) * 100 * ms
		sent := s.Intended
		if i == n-1 {
			sent += late
		}
		s.Received, s.Queued, s.Serving, s.Answered = sent, sent, sent, sent+d
		s.Status = StatusOK
		if i == 0 {
			s.Status, s.Error, s.ErrorCode = StatusError, "internal error", -32603
		}
		snap.Spans = append(snap.Spans, &s)
	}
	snap.Events = []Event{{At: 150 * ms, Session: "s1", Kind: EventDropped, Text: "dropped"}}
	snap.Now = time.Duration(n+1)*100*ms + late + d
	return snap
}

// A merge keeps what the load test recorded: each call's intended start
// moved with its source (so the merged call times and late starts are the
// sources'), JSON-RPC error codes, dropped arrivals; and the series a
// saved merge carries is that of the merged spans.
func TestMergeKeepsOpenLoopFields(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 15, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	a := openLoopSource(t0, 5, 10*ms, 20*ms)
	b := openLoopSource(t0.Add(2*time.Second), 5, 10*ms, 40*ms)
	m, err := Merge([]*Snapshot{a, b}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Spans {
		if s.Intended <= 0 || s.Received < s.Intended || s.Received-s.Intended > 40*ms {
			t.Fatalf("span %d of %s: intended %v, sent %v: the intended start did not move with its source", s.ID, s.Session, s.Intended, s.Received)
		}
	}
	sa, sb, sum := Summarize(a), Summarize(b), Summarize(m)
	if sum.LateStarts != sa.LateStarts+sb.LateStarts || sum.LateStarts != 2 {
		t.Errorf("merged late_starts %d, want %d + %d = 2", sum.LateStarts, sa.LateStarts, sb.LateStarts)
	}
	if sum.Dropped != 2 {
		t.Errorf("merged dropped %d, want 2 (one per source)", sum.Dropped)
	}
	if sum.Sessions != 2 {
		t.Errorf("merged sessions %d, want 2", sum.Sessions)
	}
	// b's late call took 10 ms to serve and was sent 40 ms late: 50 ms.
	if sum.CallMS.Max != 50 || sum.ToolCalls.DurationMS.Max != 50 {
		t.Errorf("merged call time max %v (call_ms) and %v (duration_ms), want 50 ms: the late start's 40 ms and its 10 ms", sum.CallMS.Max, sum.ToolCalls.DurationMS.Max)
	}
	if len(sum.Errors) != 1 || sum.Errors[0] != (ErrorKind{Kind: "jsonrpc", Code: -32603, Count: 2}) {
		t.Errorf("merged errors %+v, want 2 of jsonrpc -32603", sum.Errors)
	}

	var buf bytes.Buffer
	if err := Save(&buf, m); err != nil {
		t.Fatal(err)
	}
	saved := buf.String()
	back, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	series := Series(back)
	if !slices.Equal(series, Series(m)) {
		t.Fatalf("a loaded merge's series differs from the merged spans':\n%+v\n%+v", series, Series(m))
	}
	finished, late := 0, 0
	for _, st := range series {
		finished += st.Finished
		if st.P99MS == 50 {
			late++
		}
	}
	if finished != 10 || late != 1 {
		t.Errorf("series: %d calls finished, %d seconds with the 50 ms call; want 10 and 1: %+v", finished, late, series)
	}
	if !strings.Contains(saved, `"series":[`) {
		t.Error("the saved merge has no series block")
	}
}
