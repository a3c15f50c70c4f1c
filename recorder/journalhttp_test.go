package recorder

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// addExchanges adds to r a POST answered with a body, and an event
// stream (a GET) with n events that stays open, both sent with a bearer
// token; it returns the stream's ID.
func addExchanges(r *Recording, token string, n int) ExchangeID {
	auth := []Header{{Name: "Authorization", Value: "Bearer " + token}, {Name: "Mcp-Session-Id", Value: "s1"}}
	post := r.AddExchange(Exchange{
		Session: "s1", Method: "POST", URL: "http://h/mcp", RPC: "tools/call",
		Sent: 10, Responded: 20, Ended: Unset, Status: 200,
		RequestHeaders: auth, RequestBody: `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
	})
	r.EndExchange(post, ExchangeEnd{At: 30, Body: `{"jsonrpc":"2.0","id":1,"result":{}}`, Bytes: 36})
	get := r.AddExchange(Exchange{
		Session: "s1", Method: "GET", URL: "http://h/mcp", Sent: 40, Responded: 50, Ended: Unset, Status: 200,
		RequestHeaders: auth,
	})
	for i := range n {
		r.AddExchangeEvent(get, StreamEvent{At: 60 + time.Duration(i), ID: fmt.Sprint(i), Data: "event " + fmt.Sprint(i)})
	}
	return get
}

// TestJournalKeepsExchanges: a journal holds the recording's HTTP
// exchanges as the recording stores them (the token masked, nowhere in
// the file), and the journal read back, or followed, has the same ones:
// an open stream with its events, and its end once it ended.
func TestJournalKeepsExchanges(t *testing.T) {
	const token = "tok-9d8e7f-journal"
	path := filepath.Join(t.TempDir(), "run.jsonl")
	rec := New(Meta{Title: "http"})
	addExchanges(rec, token, 1) // before the journal opens: written at once
	j, err := OpenJournal(path, rec)
	if err != nil {
		t.Fatal(err)
	}
	stream := addExchanges(rec, token, 3)

	tail, err := OpenTail(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tail.Close()
	snap := pollUntil(t, tail, "the four exchanges", func(s *Snapshot) bool { return s.HTTP != nil && len(s.HTTP.Exchanges) == 4 })
	if x := snap.HTTP.Exchanges[3]; !x.Open() || len(x.Events) != 3 || x.Status != 200 {
		t.Errorf("followed, the open stream has %d events, status %d, open %v; want 3, 200, open", len(x.Events), x.Status, x.Open())
	}
	rec.EndExchange(stream, ExchangeEnd{At: 99})
	pollUntil(t, tail, "the stream's end", func(s *Snapshot) bool { return !s.HTTP.Exchanges[3].Open() })

	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	want, _ := rec.HTTP()
	got, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.HTTP, want) {
		t.Errorf("read back, the journal's exchanges differ from the recording's:\n got %+v\nwant %+v", got.HTTP, want)
	}
	if h := got.HTTP.Exchanges[0].RequestHeaders[0]; h.Value != "Bearer "+Redacted || !h.Masked {
		t.Errorf("the Authorization header reads back as %q (masked %v)", h.Value, h.Masked)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), token) {
		t.Error("the bearer token is in the journal file")
	}
	if n := strings.Count(string(data), `{"exchange":`); n < 4 || n > 8 {
		t.Errorf("%d exchange lines for 4 exchanges: want each written when added and at most once more when it changed", n)
	}
}

// TestJournalExchangesTornAndDamaged: an exchange line torn by a kill is
// skipped like any torn last line; a damaged one before the end, or one
// with no id, is an error that says which line.
func TestJournalExchangesTornAndDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	rec := New(Meta{Title: "torn"})
	j, err := OpenJournal(path, rec)
	if err != nil {
		t.Fatal(err)
	}
	addExchanges(rec, "t", 2)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	last := lines[len(lines)-2] // the last exchange's line, before the end mark
	if !strings.HasPrefix(last, `{"exchange":`) {
		t.Fatalf("the line before the end mark is not an exchange: %s", last)
	}
	body := strings.Join(lines[:len(lines)-2], "")
	for _, cut := range []int{1, 12, len(last) / 2, len(last) - 2} {
		snap, err := Load(strings.NewReader(body + last[:cut]))
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		if snap.HTTP == nil || len(snap.HTTP.Exchanges) != 1 || snap.HTTP.Exchanges[0].Method != "POST" {
			t.Errorf("cut %d: the journal torn in its last exchange reads as %+v, want the POST before it", cut, snap.HTTP)
		}
	}
	for name, tc := range map[string]struct{ journal, want string }{
		"torn in the middle": {body + last[:len(last)/2] + "\n" + lines[len(lines)-1], "the journal is damaged at line"},
		"no id":              {body + `{"exchange":{"method":"GET","sent":0}}` + "\n", "exchange id 0"},
		"no method":          {body + `{"exchange":{"id":3,"sent":0}}` + "\n", "has no method"},
	} {
		if _, err := Load(strings.NewReader(tc.journal)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one that says %q", name, err, tc.want)
		}
	}
}

// TestJournalExchangesBounded: a journal of more exchanges than a
// recording keeps reads back as the recording kept them, all of them
// counted; one that holds more (written over a long run, the recording
// dropping some after they were written) reads back as the first half
// and the latest.
func TestJournalExchangesBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	rec := New(Meta{Title: "many"})
	j, err := OpenJournal(path, rec)
	if err != nil {
		t.Fatal(err)
	}
	const n = 3*MaxExchanges + 7
	for i := range n {
		id := rec.AddExchange(Exchange{Method: "POST", URL: "http://h/mcp", Sent: time.Duration(i), Responded: Unset, Ended: Unset})
		rec.EndExchange(id, ExchangeEnd{At: time.Duration(i + 1)})
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	snap, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := rec.HTTP(); !reflect.DeepEqual(snap.HTTP, want) || snap.HTTP.Total != n {
		t.Errorf("read back: %d of %d exchanges, want the recording's %d of %d", len(snap.HTTP.Exchanges), snap.HTTP.Total, len(want.Exchanges), want.Total)
	}

	var b strings.Builder
	b.WriteString(`{"format":"fanout-inspector-journal","version":2,"meta":{"title":"long"}}` + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"exchange":{"id":%d,"method":"POST","url":"http://h/mcp","sent":%d,"responded":-1,"ended":%d}}`+"\n", i, i, i+1)
	}
	snap, err = Load(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	log := snap.HTTP
	if log.Total != n || len(log.Exchanges) != MaxExchanges {
		t.Fatalf("read back: %d of %d exchanges, want %d of %d", len(log.Exchanges), log.Total, MaxExchanges, n)
	}
	if first, next, last := log.Exchanges[MaxExchanges/2-1].ID, log.Exchanges[MaxExchanges/2].ID, log.Exchanges[len(log.Exchanges)-1].ID; first != MaxExchanges/2 || next != n-MaxExchanges/2+1 || last != n {
		t.Errorf("kept 1 to %d, then %d to %d; want the first %d and the latest %d, up to %d", first, next, last, MaxExchanges/2, MaxExchanges/2, n)
	}
}

// TestMergeKeepsExchanges: a merge keeps each source's exchanges, its
// times on the merged clock and its sessions renamed; together they stay
// within MaxExchanges, each source with its share.
func TestMergeKeepsExchanges(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	source := func(title string, at time.Time, n int) *Snapshot {
		r := New(Meta{Title: title})
		for i := range n {
			r.AddExchange(Exchange{Session: "s1", Method: "POST", URL: "http://h/" + title, Sent: time.Duration(i) * time.Millisecond, Responded: Unset, Ended: Unset})
		}
		s := r.Snapshot()
		s.Meta.Created = at
		return s
	}
	a, b := source("a", start, 3), source("b", start.Add(time.Second), 2)
	m, err := Merge([]*Snapshot{a, b}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if m.HTTP == nil || m.HTTP.Total != 5 || len(m.HTTP.Exchanges) != 5 {
		t.Fatalf("merged: %+v, want the 5 exchanges of both", m.HTTP)
	}
	var fromB []*Exchange
	for i, x := range m.HTTP.Exchanges {
		if x.ID != ExchangeID(i+1) {
			t.Errorf("exchange %d has id %d", i, x.ID)
		}
		if x.URL == "http://h/b" {
			fromB = append(fromB, x)
		}
	}
	if len(fromB) != 2 || fromB[0].Session != "b:s1" || fromB[0].Sent != time.Second || fromB[1].Sent != time.Second+time.Millisecond {
		t.Errorf("b's exchanges in the merge: %+v, want 2 in session b:s1 from 1s", fromB)
	}
	if a.HTTP.Exchanges[0].Session != "s1" {
		t.Error("the merge changed a source's exchange")
	}
	if m.Meta.Merged[0].HTTP != 3 || m.Meta.Merged[1].HTTP != 2 {
		t.Errorf("sources count %d and %d exchanges, want 3 and 2", m.Meta.Merged[0].HTTP, m.Meta.Merged[1].HTTP)
	}

	// Past the cap: a small source keeps all of its, the big ones share
	// the rest, and the merged recording saves and loads.
	big1, big2, small := source("x", start, MaxExchanges), source("y", start, MaxExchanges), source("z", start, 10)
	m, err = Merge([]*Snapshot{big1, big2, small}, []string{"x", "y", "z"})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, x := range m.HTTP.Exchanges {
		count[x.URL]++
	}
	if len(m.HTTP.Exchanges) != MaxExchanges || m.HTTP.Total != 2*MaxExchanges+10 || count["http://h/z"] != 10 || count["http://h/x"] != (MaxExchanges-10)/2 {
		t.Errorf("merged past the cap: %d kept of %d, by source %v", len(m.HTTP.Exchanges), m.HTTP.Total, count)
	}
	path := filepath.Join(t.TempDir(), "merged.json")
	if err := SaveFile(path, m); err != nil {
		t.Fatal(err)
	}
	back, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.HTTP, m.HTTP) {
		t.Error("the merged recording's exchanges changed when saved and loaded")
	}
}
