package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The overhead benchmarks time request/response round trips on loopback
// directly and through the proxy, one of each in turn so that both see
// the same machine, and report the 50th, 90th and 99th percentiles of
// both and what the proxy added (proxied minus direct, per round trip: a
// request and its answer, two messages crossing the proxy).
//
//	go test ./engine/proxy -run '^$' -bench Overhead -benchtime 5000x

// report adds the percentiles of direct and proxied to b's metrics.
func report(b *testing.B, direct, proxied []time.Duration) {
	pct := percentile
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	for _, p := range []struct {
		name string
		q    float64
	}{{"p50", 0.50}, {"p90", 0.90}, {"p99", 0.99}} {
		d, x := pct(direct, p.q), pct(proxied, p.q)
		b.ReportMetric(us(d), p.name+"-direct-µs")
		b.ReportMetric(us(x), p.name+"-proxied-µs")
		b.ReportMetric(us(x-d), p.name+"-added-µs")
	}
}

// percentile is the qth quantile (0–1) of d.
func percentile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// echoPeer answers each newline-delimited request read from r with a
// response carrying its id, written to w: a trivial server.
func echoPeer(r io.Reader, w io.Writer) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(sc.Bytes(), &m)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"hello"}]}}`+"\n", m.ID)
	}
}

// stdioPath is a client's end of a newline-delimited connection: it
// writes a request and reads the answer.
type stdioPath struct {
	w  io.Writer
	sc *bufio.Scanner
}

func (p stdioPath) roundTrip(b *testing.B, id int) time.Duration {
	start := time.Now()
	fmt.Fprintf(p.w, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`+"\n", id)
	if !p.sc.Scan() {
		b.Fatal("the peer closed the connection")
	}
	return time.Since(start)
}

// BenchmarkOverheadStdio: the stdio proxy's pumps (the code between a
// client's pipes and its server's) against the same pipes joined
// directly, to an echo peer.
func BenchmarkOverheadStdio(b *testing.B) {
	// Direct: client → peer → client.
	toPeer, peerIn := io.Pipe()
	peerOut, fromPeer := io.Pipe()
	go echoPeer(toPeer, fromPeer)
	direct := stdioPath{w: peerIn, sc: bufio.NewScanner(peerOut)}

	// Proxied: client → pump → peer → pump → client.
	rec := recorder.New(recorder.Meta{})
	book := NewBook(rec)
	cR, cW := io.Pipe() // client writes
	sR, sW := io.Pipe() // to the server
	oR, oW := io.Pipe() // the server writes
	rR, rW := io.Pipe() // back to the client
	keeper := newBookkeeper(book, engine.DefaultMaxMessageSize)
	go pump(cR, sW, FromClient, keeper, rec)
	go echoPeer(sR, oW)
	go pump(oR, rW, FromServer, keeper, rec)
	proxied := stdioPath{w: cW, sc: bufio.NewScanner(rR)}
	defer func() { peerIn.Close(); cW.Close(); oW.Close() }()

	for i := range 100 { // warm up
		direct.roundTrip(b, i)
		proxied.roundTrip(b, i)
	}
	d, x := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		d = append(d, direct.roundTrip(b, 1000+i))
		x = append(x, proxied.roundTrip(b, 1000+i))
	}
	b.StopTimer()
	report(b, d, x)
}

// BenchmarkOverheadHTTP: echo tool calls from the Go SDK client to the
// demo server over streamable HTTP, through the HTTP proxy against
// directly. The floor of any HTTP proxy is a second loopback hop: the
// same calls through the standard library's httputil.ReverseProxy,
// which reads nothing, give p50-added-reverseproxy-µs and
// p99-added-reverseproxy-µs.
func BenchmarkOverheadHTTP(b *testing.B) {
	up := httptest.NewServer(demo.NewHTTPHandler())
	defer up.Close()
	rec := recorder.New(recorder.Meta{})
	p, err := NewHTTP(up.URL+"/mcp", rec, engine.Limits{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	front := httptest.NewServer(p)
	defer front.Close()
	upURL, err := url.Parse(up.URL)
	if err != nil {
		b.Fatal(err)
	}
	floor := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(upURL) },
		FlushInterval: -1, // event streams as they come
		ErrorLog:      log.New(io.Discard, "", 0),
	})
	defer floor.Close()
	ctx := context.Background()
	connect := func(url string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{}},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	direct, proxied, bare := connect(up.URL+"/mcp"), connect(front.URL+"/mcp"), connect(floor.URL+"/mcp")
	defer direct.Close()
	defer proxied.Close()
	defer bare.Close()
	call := func(cs *mcp.ClientSession) time.Duration {
		start := time.Now()
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for range 100 { // warm up
		call(direct)
		call(proxied)
		call(bare)
	}
	d, x, f := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// The order turns each round trip: a call made while the one
		// before is still finishing its response pays for it, and each
		// path should pay alike.
		paths := [3]func(){
			func() { d = append(d, call(direct)) },
			func() { x = append(x, call(proxied)) },
			func() { f = append(f, call(bare)) },
		}
		for k := range 3 {
			paths[(i+k)%3]()
		}
	}
	b.StopTimer()
	report(b, d, x)
	for _, p := range []struct {
		name string
		q    float64
	}{{"p50", 0.50}, {"p99", 0.99}} {
		b.ReportMetric(float64(percentile(f, p.q)-percentile(d, p.q))/float64(time.Microsecond), p.name+"-added-reverseproxy-µs")
	}
}
