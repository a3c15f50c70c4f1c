package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawServer is a test acting as a misbehaving MCP server: it answers
// initialize as a server would, and otherwise writes whatever JSON-RPC
// lines the test gives it, byte for byte. Every other message the client
// writes arrives on got.
type rawServer struct {
	wmu   sync.Mutex
	w     io.Writer
	ready chan struct{} // closed when the client sent notifications/initialized
	got   chan map[string]json.RawMessage
}

func serveRaw(r io.Reader, w io.Writer) *rawServer {
	rs := &rawServer{w: w, ready: make(chan struct{}), got: make(chan map[string]json.RawMessage, 1024)}
	go func() {
		defer close(rs.got)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			switch string(m["method"]) {
			case `"initialize"`:
				var p struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				json.Unmarshal(m["params"], &p)
				rs.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}}`,
					m["id"], p.ProtocolVersion))
			case `"notifications/initialized"`:
				close(rs.ready)
			default:
				rs.got <- m
			}
		}
	}()
	return rs
}

// send writes one line to the client as it is.
func (rs *rawServer) send(line string) {
	rs.wmu.Lock()
	defer rs.wmu.Unlock()
	io.WriteString(rs.w, line+"\n")
}

// answers waits up to d for n messages from the client that carry an id
// and no method (answers to the server's requests).
func (rs *rawServer) answers(n int, d time.Duration) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	deadline := time.After(d)
	for len(out) < n {
		select {
		case m, ok := <-rs.got:
			if !ok {
				return out
			}
			if _, isReq := m["method"]; !isReq {
				out = append(out, m)
			}
		case <-deadline:
			return out
		}
	}
	return out
}

// connectRaw connects a session with policy to a rawServer over io pipes.
func connectRaw(t *testing.T, policy AnswerPolicy) (*Session, *rawServer) {
	t.Helper()
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	rs := serveRaw(c2sR, s2cW)
	t.Cleanup(func() { c2sR.Close(); s2cW.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := connect(ctx, Target{}, policy, recorder.New(recorder.Meta{Title: t.Name()}), &mcp.IOTransport{Reader: s2cR, Writer: c2sW})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	select {
	case <-rs.ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the client never sent notifications/initialized")
	}
	return s, rs
}

func samplingLine(id, text string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"` +
		text + `"}}],"maxTokens":10}}`
}

func protocolEvents(snap *recorder.Snapshot) []recorder.Event {
	var out []recorder.Event
	for _, e := range snap.Events {
		if e.Kind == recorder.EventProtocol {
			out = append(out, e)
		}
	}
	return out
}

// TestDuplicateRequestIDs checks that five requests sharing the id "dup"
// while the first is still being served are five spans: the first
// served as usual, the four others marked Duplicate and answered at once
// with an Invalid Request error naming the reused id.
func TestDuplicateRequestIDs(t *testing.T) {
	policy := DefaultAnswerPolicy()
	policy.Latency = LatencyModel{Dist: Fixed, A: ms(300)}
	s, rs := connectRaw(t, policy)
	for range 5 {
		rs.send(samplingLine(`"dup"`, "hi"))
	}
	got := rs.answers(5, 10*time.Second)
	if len(got) != 5 {
		t.Fatalf("the server got %d answers to 5 requests: %s", len(got), got)
	}
	var results, refusals int
	for _, a := range got {
		if string(a["id"]) != `"dup"` {
			t.Errorf("answer with id %s, want \"dup\": %s", a["id"], a)
		}
		switch {
		case a["result"] != nil:
			results++
		case bytes.Contains(a["error"], []byte(`-32600`)) && bytes.Contains(a["error"], []byte(`duplicate request id`)):
			refusals++
		default:
			t.Errorf("unexpected answer %s", a)
		}
	}
	if results != 1 || refusals != 4 {
		t.Errorf("%d results and %d duplicate-id errors, want 1 and 4", results, refusals)
	}

	spans := spansOf(s.Recording().Snapshot(), "sampling/createMessage")
	if len(spans) != 5 {
		t.Fatalf("recorded %d sampling spans, want 5 (one per request sent)", len(spans))
	}
	var dups int
	for _, sp := range spans {
		if sp.RequestID != `"dup"` {
			t.Errorf("span %d has request id %s, want \"dup\"", sp.ID, sp.RequestID)
		}
		if sp.Duplicate {
			dups++
			if sp.Status != recorder.StatusError || !strings.Contains(sp.Error, "still pending") {
				t.Errorf("duplicate span %d: status %q, error %q", sp.ID, sp.Status, sp.Error)
			}
			continue
		}
		if sp.Status != recorder.StatusOK {
			t.Errorf("the first request ended %q (%s), want ok", sp.Status, sp.Error)
		}
	}
	if dups != 4 {
		t.Errorf("%d spans marked duplicate, want 4", dups)
	}

	// Once the first is answered the id is free again: a request reusing
	// it then is served (the protocol still forbids it, but nothing
	// collides).
	rs.send(samplingLine(`"dup"`, "again"))
	if a := rs.answers(1, 10*time.Second); len(a) != 1 || a[0]["result"] == nil {
		t.Errorf("request reusing an answered id got %s, want a result", a)
	}
}

// TestResponseWithoutID checks that a response with id null (a server's
// parse-error report) or no id at all is recorded as a protocol event and
// the session goes on serving the server's requests.
func TestResponseWithoutID(t *testing.T) {
	s, rs := connectRaw(t, DefaultAnswerPolicy())
	rs.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	rs.send(`{"jsonrpc":"2.0","result":{}}`)
	rs.send(samplingLine(`7`, "still there?"))
	got := rs.answers(1, 10*time.Second)
	if len(got) != 1 || string(got[0]["id"]) != "7" || got[0]["result"] == nil {
		t.Fatalf("after two responses without an id, the request got %s, want its answer", got)
	}
	select {
	case <-s.Done():
		t.Fatalf("the session ended: %v", s.Err())
	default:
	}
	evs := protocolEvents(s.Recording().Snapshot())
	if len(evs) != 2 {
		t.Fatalf("%d protocol events, want 2: %+v", len(evs), evs)
	}
	for _, e := range evs {
		if !strings.Contains(e.Text, "without a usable id") {
			t.Errorf("protocol event %q does not say what was wrong", e.Text)
		}
	}
	// And the session still calls tools.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	go func() {
		for m := range rs.got {
			if string(m["method"]) == `"tools/list"` {
				rs.send(`{"jsonrpc":"2.0","id":` + string(m["id"]) + `,"result":{"tools":[]}}`)
			}
		}
	}()
	if _, err := s.cs.ListTools(ctx, nil); err != nil {
		t.Errorf("tools/list after the bad responses: %v", err)
	}
}

// invalidUTF8Line is a sampling request whose text holds bytes that are
// not UTF-8 (a lone 0xff and a truncated sequence).
var invalidUTF8Line = samplingLine(`8`, "bad \xff bytes \xe2\x82")

// TestInvalidUTF8IsRecordedValid checks that a request whose params are
// not valid UTF-8 is served, noted as a protocol event, and saved as a
// recording that is valid UTF-8 JSON and loads back.
func TestInvalidUTF8IsRecordedValid(t *testing.T) {
	s, rs := connectRaw(t, DefaultAnswerPolicy())
	rs.send(invalidUTF8Line)
	rs.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"log \xfe\"}}")
	if a := rs.answers(1, 10*time.Second); len(a) != 1 || a[0]["result"] == nil {
		t.Fatalf("the request got %s, want an answer", a)
	}
	if !waitFor(5*time.Second, func() bool { return len(protocolEvents(s.Recording().Snapshot())) == 2 }) {
		t.Fatalf("protocol events %+v, want one for the request and one for the notification; all events %+v, err %v", protocolEvents(s.Recording().Snapshot()), s.Recording().Snapshot().Events, s.Err())
	}
	snap := s.Recording().Snapshot()
	checkSavesValid(t, snap)
	ev := protocolEvents(snap)[0]
	if !strings.Contains(ev.Text, "invalid UTF-8") || !strings.Contains(ev.Text, "3 invalid byte") || ev.Span == 0 {
		t.Errorf("protocol event %+v does not name the request and the replaced bytes", ev)
	}
	sp := spansOf(snap, "sampling/createMessage")[0]
	if !strings.Contains(string(sp.Params), "bad \uFFFD bytes \uFFFD") {
		t.Errorf("params recorded as %s, want the invalid bytes replaced by U+FFFD", sp.Params)
	}
}

// checkSavesValid saves snap and checks that the file is valid UTF-8 JSON
// that loads back with the same spans.
func checkSavesValid(t *testing.T, snap *recorder.Snapshot) {
	t.Helper()
	var buf bytes.Buffer
	if err := recorder.Save(&buf, snap); err != nil {
		t.Fatalf("Save: %v", err)
	}
	data := buf.Bytes()
	if !utf8.Valid(data) {
		i := bytes.IndexFunc(data, func(r rune) bool { return r == utf8.RuneError })
		t.Errorf("the saved recording is not valid UTF-8 (near byte %d)", i)
	}
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if !json.Valid(line) && !json.Valid(data) {
			t.Errorf("line %d of the saved recording is not valid JSON: %.200s", i+1, line)
		}
	}
	back, err := recorder.Load(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(back.Spans) != len(snap.Spans) || len(back.Events) != len(snap.Events) {
		t.Errorf("loaded %d spans and %d events, saved %d and %d", len(back.Spans), len(back.Events), len(snap.Spans), len(snap.Events))
	}
}

// serveHostile is the test binary's hostile stdio server (mode
// "hostile"): after initialize it sends two responses without an id, a
// request id reused while pending, and a request with invalid UTF-8, then
// waits for its stdin to close.
func serveHostile() {
	rs := serveRaw(os.Stdin, os.Stdout)
	<-rs.ready
	rs.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	rs.send(`{"jsonrpc":"2.0","result":{}}`)
	rs.send(samplingLine(`"dup"`, "first"))
	rs.send(samplingLine(`"dup"`, "second"))
	rs.send(invalidUTF8Line)
	for range rs.got {
	}
}

// TestResponseToUnknownID checks that an answer from the server to an id
// the client never sent is recorded as a protocol event, in the words the
// proxy uses (package internal/wire), and the session goes on.
func TestResponseToUnknownID(t *testing.T) {
	s, rs := connectRaw(t, DefaultAnswerPolicy())
	rs.send(`{"jsonrpc":"2.0","id":424242,"result":{}}`)
	rs.send(samplingLine(`8`, "still there?"))
	if got := rs.answers(1, 10*time.Second); len(got) != 1 || string(got[0]["id"]) != "8" || got[0]["result"] == nil {
		t.Fatalf("after an answer to an unknown id, the request got %s, want its answer", got)
	}
	evs := protocolEvents(s.Recording().Snapshot())
	if len(evs) != 1 || evs[0].Text != "the server answered id 424242, which no pending request has" {
		t.Fatalf("protocol events %+v, want one saying id 424242 matches no pending request", evs)
	}
}

// TestHostileStdioServer runs the hostile server as a subprocess: the
// session survives it and records everything it sent.
func TestHostileStdioServer(t *testing.T) {
	policy := DefaultAnswerPolicy()
	policy.Latency = LatencyModel{Dist: Fixed, A: ms(200)}
	s := connectTarget(t, stdioTarget("hostile"), policy)
	done := func() bool {
		n := 0
		for _, sp := range spansOf(s.Recording().Snapshot(), "sampling/createMessage") {
			if !sp.Open() {
				n++
			}
		}
		return n == 3
	}
	if !waitFor(10*time.Second, done) {
		t.Fatalf("sampling spans %+v, want 3 ended", spansOf(s.Recording().Snapshot(), "sampling/createMessage"))
	}
	select {
	case <-s.Done():
		t.Fatalf("the session ended: %v", s.Err())
	default:
	}
	snap := s.Recording().Snapshot()
	var ok, dup int
	for _, sp := range spansOf(snap, "sampling/createMessage") {
		switch {
		case sp.Duplicate && sp.Status == recorder.StatusError:
			dup++
		case !sp.Duplicate && sp.Status == recorder.StatusOK:
			ok++
		}
	}
	if ok != 2 || dup != 1 {
		t.Errorf("%d served and %d duplicate spans, want 2 and 1", ok, dup)
	}
	if n := len(protocolEvents(snap)); n != 3 {
		t.Errorf("%d protocol events, want 3 (two responses without an id, one invalid UTF-8): %+v", n, protocolEvents(snap))
	}
	checkSavesValid(t, snap)
}

// rawHTTPServer is a misbehaving streamable HTTP server: it answers
// initialize and tools/list, accepts everything else the client posts
// (answers arrive on got), and writes the lines sent on push, raw, as
// events of the client's GET stream. Closing a GET stream (endStream)
// makes the client reconnect to a new one.
type rawHTTPServer struct {
	push      chan string
	got       chan map[string]json.RawMessage
	endStream chan struct{}
	streams   chan struct{} // one value per GET stream opened
}

func serveRawHTTP(t *testing.T) (*rawHTTPServer, string) {
	rs := &rawHTTPServer{push: make(chan string, 64), got: make(chan map[string]json.RawMessage, 64),
		endStream: make(chan struct{}, 1), streams: make(chan struct{}, 8)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, "retry: 10\n\n") // reconnect at once
			w.(http.Flusher).Flush()
			rs.streams <- struct{}{}
			for n := 1; ; n++ {
				select {
				case line := <-rs.push:
					fmt.Fprintf(w, "id: %d\ndata: %s\n\n", n, line)
					w.(http.Flusher).Flush()
				case <-rs.endStream:
					return
				case <-r.Context().Done():
					return
				}
			}
		case http.MethodPost:
			body, _ := io.ReadAll(r.Body)
			var m map[string]json.RawMessage
			json.Unmarshal(body, &m)
			w.Header().Set("Mcp-Session-Id", "raw-1")
			switch string(m["method"]) {
			case `"initialize"`:
				var p struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				json.Unmarshal(m["params"], &p)
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}}`,
					m["id"], p.ProtocolVersion)
			case `"tools/list"`:
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, m["id"])
			default:
				if _, isReq := m["method"]; !isReq {
					rs.got <- m
				}
				w.WriteHeader(http.StatusAccepted)
			}
		default:
			w.WriteHeader(http.StatusOK)
		}
	}))
	t.Cleanup(srv.Close)
	return rs, srv.URL
}

func (rs *rawHTTPServer) answers(n int, d time.Duration) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	deadline := time.After(d)
	for len(out) < n {
		select {
		case m := <-rs.got:
			out = append(out, m)
		case <-deadline:
			return out
		}
	}
	return out
}

// TestHostileHTTPServer checks the same misbehaviours over streamable
// HTTP, where the tap sits in the HTTP client: a response without an id
// is recorded and skipped, a duplicate id is recorded as its own span
// and refused by the tap with an Invalid Request error carrying its id,
// posted as the client posts (as over stdio: the SDK never sees it), and
// a request replayed on a new stream after a reconnect is neither served
// twice nor called a duplicate.
func TestHostileHTTPServer(t *testing.T) {
	rs, url := serveRawHTTP(t)
	policy := DefaultAnswerPolicy()
	policy.Latency = LatencyModel{Dist: Fixed, A: ms(600)}
	s := connectTarget(t, Target{Transport: TransportHTTP, URL: url}, policy)
	select {
	case <-rs.streams:
	case <-time.After(10 * time.Second):
		t.Fatal("the client never opened its event stream")
	}
	rs.push <- `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`
	rs.push <- samplingLine(`"dup"`, "first")
	rs.push <- samplingLine(`"dup"`, "second") // same id, other params: a duplicate
	rs.push <- samplingLine(`"re"`, "replayed")
	if !waitFor(5*time.Second, func() bool { return len(spansOf(s.Recording().Snapshot(), "sampling/createMessage")) == 3 }) {
		t.Fatalf("spans %+v, want 3 read before the stream ends", spansOf(s.Recording().Snapshot(), "sampling/createMessage"))
	}
	rs.endStream <- struct{}{}
	select {
	case <-rs.streams:
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not reconnect its event stream")
	}
	rs.push <- samplingLine(`"re"`, "replayed") // the same request again, after the reconnect

	got := rs.answers(3, 10*time.Second)
	var ids []string
	refusals := 0
	for _, a := range got {
		switch {
		case a["result"] != nil:
			ids = append(ids, string(a["id"]))
		case string(a["id"]) == `"dup"` && bytes.Contains(a["error"], []byte(`-32600`)):
			refusals++
		}
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{`"dup"`, `"re"`}) || refusals != 1 {
		t.Fatalf("the server got results for %v and %d refusals, want \"dup\" and \"re\" once each and the duplicate refused with its id: %s", ids, refusals, got)
	}
	if more := rs.answers(1, time.Second); len(more) != 0 {
		t.Errorf("a request was answered again: %s", more)
	}
	select {
	case <-s.Done():
		t.Fatalf("the session ended: %v", s.Err())
	default:
	}
	snap := s.Recording().Snapshot()
	spans := spansOf(snap, "sampling/createMessage")
	var ok, dup int
	for _, sp := range spans {
		switch {
		case sp.Duplicate && sp.RequestID == `"dup"` && strings.Contains(sp.Error, "still pending"):
			dup++
		case !sp.Duplicate && sp.Status == recorder.StatusOK:
			ok++
		default:
			t.Errorf("span %+v", sp)
		}
	}
	if ok != 2 || dup != 1 || len(spans) != 3 {
		t.Errorf("%d spans: %d served, %d duplicate; want 3: 2 and 1 (the replay is not a span)", len(spans), ok, dup)
	}
	evs := protocolEvents(snap)
	if len(evs) != 1 || !strings.Contains(string(evs[0].Data), "Parse error") {
		t.Errorf("protocol events %+v, want one carrying the id-less response", evs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.cs.ListTools(ctx, nil); err != nil {
		t.Errorf("tools/list after the bad messages: %v", err)
	}
}

// TestProtocolEventsAreBounded checks that a server sending responses
// without an id without end cannot grow the recording without end: the
// first wire.MaxProtocolEvents are recorded, then one event says the rest
// were not.
func TestProtocolEventsAreBounded(t *testing.T) {
	s, rs := connectRaw(t, DefaultAnswerPolicy())
	for range wire.MaxProtocolEvents + 500 {
		rs.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	}
	rs.send(samplingLine(`9`, "after the flood"))
	if a := rs.answers(1, 10*time.Second); len(a) != 1 || a[0]["result"] == nil {
		t.Fatalf("the request after the flood got %s, want an answer", a)
	}
	evs := protocolEvents(s.Recording().Snapshot())
	if len(evs) != wire.MaxProtocolEvents+1 {
		t.Fatalf("%d protocol events, want %d", len(evs), wire.MaxProtocolEvents+1)
	}
	if last := evs[len(evs)-1].Text; !strings.Contains(last, "only the first 1000 are recorded") {
		t.Errorf("last protocol event %q does not say the rest were dropped", last)
	}
}
