package recorder

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// linkFixture records calls tools/call of one session over HTTP, ids
// from first on, each POSTed with its id and answered on the POST's
// event stream; the last is left open.
func linkFixture(rec *Recording, first, calls int, at time.Duration) {
	for i := first; i < first+calls; i++ {
		now := at + time.Duration(i)*time.Millisecond
		sp := NewSpan("s1", Outgoing, "tools/call")
		sp.RequestID, sp.Name, sp.Received, sp.Queued, sp.Serving = fmt.Sprint(i), "echo", now, now, now
		id := rec.Begin(sp)
		x := rec.AddExchange(Exchange{Session: "s1", Method: "POST", RPC: "tools/call", Sent: now, Responded: now, Ended: Unset, Status: 200,
			RequestBody: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo"}}`, i)})
		if i != first+calls-1 { // the last stays open
			rec.AddExchangeEvent(x, StreamEvent{At: now + time.Millisecond/2, Data: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i)})
			rec.End(id, now+time.Millisecond/2, Outcome{Status: StatusOK})
			rec.EndExchange(x, ExchangeEnd{At: now + time.Millisecond/2})
		}
	}
}

// TestExchangeLinksOfIDsUsedAgain: a connection made again reuses the
// ids of the first; each exchange is linked with the request of its own
// time, both ways.
func TestExchangeLinksOfIDsUsedAgain(t *testing.T) {
	rec := New(Meta{Title: t.Name()})
	linkFixture(rec, 1, 3, 0)
	linkFixture(rec, 1, 3, time.Second) // connected again: ids from 1 again
	snap := rec.Snapshot()
	var l ExchangeLinks
	l.Update(snap, snap.HTTP)
	for _, x := range snap.HTTP.Exchanges {
		s := snap.SpanByID(l.Span(x.ID))
		if s == nil || s.Received != x.Sent || !strings.Contains(x.RequestBody, `"id":`+s.RequestID+",") {
			t.Errorf("exchange %d sent at %v is linked with %+v", x.ID, x.Sent, s)
			continue
		}
		if back := l.Exchange(s.ID); back != x.ID {
			t.Errorf("span %d is linked with exchange %d, want %d", s.ID, back, x.ID)
		}
	}
}

// TestExchangeLinksOfBodies: the messages an exchange carried are read
// from a body cut at MaxExchangeBody, a batch, string ids with escapes,
// and a posted answer to a server's request; a notification and a
// body that is not JSON-RPC carry none.
func TestExchangeLinksOfBodies(t *testing.T) {
	long := strings.Repeat("x", MaxExchangeBody)
	for _, tt := range []struct {
		name, body string
		want       []string // "direction id method"
	}{
		{"cut", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"text":"` + long + `"}}}`, []string{"outgoing 7 tools/call"}},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"a\u00e9\"b","method":"tools/list"}]`,
			[]string{"outgoing 1 ping", `outgoing "aé\"b" tools/list`}},
		{"answer", `{"jsonrpc":"2.0","id":0,"result":{"model":"m"}}`, []string{"incoming 0 "}},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil},
		{"not JSON-RPC", `hello`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := New(Meta{Title: t.Name()})
			rec.AddExchange(Exchange{Method: "POST", RequestBody: tt.body, Responded: Unset, Ended: Unset})
			var l ExchangeLinks
			l.Update(rec.Snapshot(), rec.exchanges.log())
			var got []string
			for _, m := range l.seen[1].messages {
				got = append(got, fmt.Sprintf("%s %s %s", m.key.dir, m.key.id, m.method))
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("carried %q, want %q", got, tt.want)
			}
		})
	}
}

// TestExchangeLinksKeptUpToDate: links updated with each snapshot of a
// growing recording, through exchanges dropped past MaxExchanges, link
// as ones made at once from the last.
func TestExchangeLinksKeptUpToDate(t *testing.T) {
	rec := New(Meta{Title: t.Name()})
	var live ExchangeLinks
	for round := range 12 {
		linkFixture(rec, 1, 100, time.Duration(round)*time.Second) // each round a new connection
		snap := rec.Snapshot()
		live.Update(snap, snap.HTTP)
	}
	snap := rec.Snapshot()
	if snap.HTTP.Dropped() == 0 {
		t.Fatal("no exchange was dropped: the test does not test that")
	}
	var fresh ExchangeLinks
	fresh.Update(snap, snap.HTTP)
	linked := 0
	for _, s := range snap.Spans {
		if got, want := live.Exchange(s.ID), fresh.Exchange(s.ID); got != want {
			t.Fatalf("span %d: kept up to date %d, made at once %d", s.ID, got, want)
		} else if want != 0 {
			linked++
		}
	}
	for _, x := range snap.HTTP.Exchanges {
		if got, want := live.Span(x.ID), fresh.Span(x.ID); got != want || got == 0 {
			t.Fatalf("exchange %d: kept up to date %d, made at once %d", x.ID, got, want)
		}
	}
	if linked != len(snap.HTTP.Exchanges) {
		t.Errorf("%d spans linked, want one per exchange kept (%d)", linked, len(snap.HTTP.Exchanges))
	}
}

// BenchmarkExchangeLinks measures what a click costs on a recording of
// 100,000 calls with its 1,000 exchanges kept, while it grows: the
// update with 100 new calls, then a look-up each way.
func BenchmarkExchangeLinks(b *testing.B) {
	rec := New(Meta{Title: b.Name()})
	linkFixture(rec, 1, 100_000, 0)
	snap := rec.Snapshot()
	var l ExchangeLinks
	start := time.Now()
	l.Update(snap, snap.HTTP)
	first := time.Since(start)
	last := snap.Spans[len(snap.Spans)-1].ID
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		linkFixture(rec, 100_001+100*i, 100, time.Duration(200+i)*time.Second)
		snap := rec.Snapshot()
		b.StartTimer()
		l.Update(snap, snap.HTTP)
		if x := l.Exchange(snap.Spans[len(snap.Spans)-2].ID); x == 0 || l.Span(x) == 0 {
			b.Fatal("the last calls are not linked")
		}
		_ = l.Exchange(last)
	}
	b.ReportMetric(float64(first.Microseconds()), "µs-first")
}

// FuzzExchangeBodies: whatever a body or an event holds, reading it for
// the messages it carried gives ids as spans keep them, and never
// panics.
func FuzzExchangeBodies(f *testing.F) {
	for _, seed := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[{"id":"a","result":{}}]`, `{"id":`, `{"method":"x","id":1.5e3,"params":{"a":[`, `[`, `{"error":`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		eachMessage(body, func(id, method string, answer bool) {
			if id == "" || answer && method != "" {
				t.Errorf("%q gave id %q, method %q, answer %v", body, id, method, answer)
			}
		})
	})
}
