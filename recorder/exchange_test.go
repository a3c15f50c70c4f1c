package recorder

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestExchangeMasksAndBounds(t *testing.T) {
	r := New(Meta{})
	r.AddSecrets("registered-s3cret-42")
	id := r.AddExchange(Exchange{
		Method: "POST", URL: "http://h/mcp?access_token=abc123&x=1", RPC: "tools/call",
		Responded: Unset, Ended: Unset,
		RequestHeaders: []Header{
			{Name: "Authorization", Value: "Bearer t0ken-value-123"},
			{Name: "Cookie", Value: "sid=1"},
			{Name: "X-Api-Key", Value: "k"},
			{Name: "Mcp-Session-Id", Value: "9f1c"},
			{Name: "X-Echo", Value: "has registered-s3cret-42 inside"},
		},
		RequestBody: `{"arg":"registered-s3cret-42"}` + strings.Repeat("x", MaxExchangeBody),
	})
	big := strings.Repeat("d", MaxExchangeEventBytes/2-8) // and its id
	for i := range 5 {
		r.AddExchangeEvent(id, StreamEvent{ID: fmt.Sprint(i), Data: big})
	}
	empty := r.AddExchange(Exchange{Method: "GET", URL: "http://h/mcp", Responded: 1, Ended: Unset})
	for i := range 3 * MaxExchangeEvents {
		r.AddExchangeEvent(empty, StreamEvent{ID: fmt.Sprint(i)}) // no data: bounded by their number
	}
	r.EndExchange(id, ExchangeEnd{At: 5, Body: strings.Repeat("é", MaxExchangeBody), Bytes: 2 * MaxExchangeBody})
	r.EndExchange(id, ExchangeEnd{At: 9, Body: "again"}) // ended already: ignored

	log, _ := r.HTTP()
	x := log.Exchanges[0]
	want := map[string]string{
		"Authorization":  "Bearer " + Redacted,
		"Cookie":         Redacted,
		"X-Api-Key":      Redacted,
		"Mcp-Session-Id": "9f1c",
		"X-Echo":         "has " + Redacted + " inside",
	}
	for _, h := range x.RequestHeaders {
		if h.Value != want[h.Name] || h.Masked != (h.Name != "Mcp-Session-Id") {
			t.Errorf("header %s: %q masked %v, want %q", h.Name, h.Value, h.Masked, want[h.Name])
		}
	}
	if x.URL != "http://h/mcp?access_token="+Redacted+"&x=1" {
		t.Errorf("URL %q", x.URL)
	}
	if strings.Contains(x.RequestBody, "registered-s3cret") || len(x.RequestBody) > MaxExchangeBody {
		t.Errorf("request body (%d bytes) kept the secret or passed the bound", len(x.RequestBody))
	}
	if x.EventCount != 5 || len(x.Events) != 2 {
		t.Errorf("%d events kept of %d, want 2 of 5 (the data bound)", len(x.Events), x.EventCount)
	}
	if e := log.Exchanges[1]; e.EventCount != 3*MaxExchangeEvents || len(e.Events) != MaxExchangeEvents {
		t.Errorf("%d events without data kept of %d, want %d", len(e.Events), e.EventCount, MaxExchangeEvents)
	}
	if len(x.ResponseBody) > MaxExchangeBody || !strings.HasSuffix(x.ResponseBody, "é") || x.ResponseBytes != 2*MaxExchangeBody || x.Ended != 5 {
		t.Errorf("response body %d bytes (ends %q), bytes %d, ended %v", len(x.ResponseBody), x.ResponseBody[len(x.ResponseBody)-2:], x.ResponseBytes, x.Ended)
	}
}

// TestExchangeCap: past MaxExchanges, the first half stays and the latest
// are kept; every exchange is counted, and a file keeps what was kept.
func TestExchangeCap(t *testing.T) {
	r := New(Meta{})
	const n = 3 * MaxExchanges
	for i := range n {
		r.AddExchange(Exchange{Method: "POST", URL: fmt.Sprint("http://h/", i), Responded: 1, Ended: 2})
	}
	snap := r.Snapshot()
	log := snap.HTTP
	if log.Total != n || len(log.Exchanges) > MaxExchanges || len(log.Exchanges) < MaxExchanges/2 {
		t.Fatalf("kept %d of %d", len(log.Exchanges), log.Total)
	}
	if log.Exchanges[0].ID != 1 || log.Exchanges[MaxExchanges/2-1].ID != MaxExchanges/2 || log.Exchanges[len(log.Exchanges)-1].ID != n {
		t.Errorf("kept ids %d…%d…%d: want the first half and the latest", log.Exchanges[0].ID, log.Exchanges[MaxExchanges/2-1].ID, log.Exchanges[len(log.Exchanges)-1].ID)
	}
	var buf bytes.Buffer
	if err := Save(&buf, snap); err != nil {
		t.Fatal(err)
	}
	back, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.HTTP.Total != n || len(back.HTTP.Exchanges) != len(log.Exchanges) || back.HTTP.Dropped() != log.Dropped() {
		t.Errorf("loaded %d of %d, saved %d of %d", len(back.HTTP.Exchanges), back.HTTP.Total, len(log.Exchanges), n)
	}
}

func TestExchangeFileErrors(t *testing.T) {
	head := `{"format":"fanout-inspector-recording","version":2,"meta":{"created":"2026-01-01T00:00:00Z"},"spans":[],"events":[],"http":`
	for _, tc := range []struct{ http, want string }{
		{`{"total":1,"exchanges":[{"id":1,"method":"GET","url":"u","sent":0,"responded":-1,"ended":-1},{"id":2,"method":"GET","url":"u","sent":0,"responded":-1,"ended":-1}]}`, `"http" says 1 exchanges were made but holds 2`},
		{`{"total":2,"exchanges":[{"id":2,"method":"GET","sent":0,"responded":-1,"ended":-1},{"id":1,"method":"GET","sent":0,"responded":-1,"ended":-1}]}`, "has id 1 after id 2"},
		{`{"total":1,"exchanges":[{"id":1,"sent":0,"responded":-1,"ended":-1}]}`, "has no method"},
		{`{"total":1,"exchanges":[{"id":1,"method":"GET","sent":0,"responded":-5,"ended":-1}]}`, `"http.exchanges[0].responded" is -5, a negative time`},
		{`{"total":1,"exchanges":[null]}`, "is null"},
	} {
		_, err := Load(strings.NewReader(head + tc.http + "}"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.http, err, tc.want)
		}
	}
	old, err := Load(strings.NewReader(strings.TrimSuffix(head, `,"http":`) + "}"))
	if err != nil || old.HTTP != nil {
		t.Errorf("a recording without exchanges: %v, %+v", err, old)
	}
}
