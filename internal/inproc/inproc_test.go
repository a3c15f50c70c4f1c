package inproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func id(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	i, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

func connect(t *testing.T) (a, b mcp.Connection) {
	t.Helper()
	ta, tb := Pair()
	a, err := ta.Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	b, err = tb.Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

// Every kind of message the SDK writes arrives as the SDK's own decoder
// would read it off a byte stream; one it cannot read (a request with
// an empty method and no id encodes as neither) is refused here too.
func TestMessagesArriveAsTheSDKDecodesThem(t *testing.T) {
	msgs := []jsonrpc.Message{
		&jsonrpc.Request{ID: id(t, float64(7)), Method: "tools/call", Params: []byte(`{"name":"echo","arguments":{"text":"x"}}`)},
		&jsonrpc.Request{ID: id(t, "s-1"), Method: "sampling/createMessage", Params: []byte(`{"messages":[]}`)},
		&jsonrpc.Request{ID: id(t, float64(1<<40)), Method: "ping"},
		&jsonrpc.Request{Method: "notifications/progress", Params: []byte(`{"progressToken":"t","progress":1}`)},
		&jsonrpc.Request{Method: ""},
		&jsonrpc.Response{ID: id(t, float64(7)), Result: []byte(`{"content":[{"type":"text","text":"x"}]}`)},
		&jsonrpc.Response{ID: id(t, "s-1"), Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad", Data: []byte(`{"why":"no"}`)}},
		&jsonrpc.Response{ID: id(t, float64(3)), Error: fmt.Errorf("handler: %w", &jsonrpc.Error{Code: -32001, Message: "inner"})},
		&jsonrpc.Response{ID: id(t, float64(4)), Error: errors.New("plain")},
	}
	a, b := connect(t)
	for _, m := range msgs {
		data, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		want, sdkErr := jsonrpc.DecodeMessage(data)
		if err := a.Write(t.Context(), m); err != nil {
			t.Fatalf("Write(%s): %v", data, err)
		}
		got, err := b.Read(t.Context())
		if sdkErr != nil {
			if err == nil {
				t.Errorf("%s arrived as %#v; the SDK refuses it: %v", data, got, sdkErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Read after writing %s: %v", data, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s arrived as %#v, the SDK reads %#v", data, got, want)
		}
	}
}

// Closing one end: its reads end at once, the other end still reads
// what was written before the close and then the end, and no one can
// write any more.
func TestCloseEndsBothSidesAndLosesNothing(t *testing.T) {
	a, b := connect(t)
	for i := range 3 {
		if err := a.Write(t.Context(), &jsonrpc.Request{Method: fmt.Sprint("m", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Read(t.Context()); err != io.EOF {
		t.Errorf("reading the closed end: %v, want EOF", err)
	}
	for i := range 3 {
		m, err := b.Read(t.Context())
		if err != nil {
			t.Fatalf("message %d written before the close: %v", i, err)
		}
		if got := m.(*jsonrpc.Request).Method; got != fmt.Sprint("m", i) {
			t.Errorf("message %d is %q", i, got)
		}
	}
	if _, err := b.Read(t.Context()); err != io.EOF {
		t.Errorf("reading past the peer's close: %v, want EOF", err)
	}
	for name, c := range map[string]mcp.Connection{"closed end": a, "other end": b} {
		if err := c.Write(t.Context(), &jsonrpc.Request{Method: "late"}); err != io.ErrClosedPipe {
			t.Errorf("writing on the %s: %v, want %v", name, err, io.ErrClosedPipe)
		}
	}
	if err := b.Close(); err != nil {
		t.Errorf("closing the second end: %v", err)
	}
}

// A reader waits until its context ends; a writer whose reader does not
// read waits, once the queue is full, until its context ends or the
// other end closes.
func TestWaitsAreBounded(t *testing.T) {
	a, b := connect(t)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := b.Read(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Read with nothing written: %v, want the deadline", err)
	}
	for i := range queued {
		if err := a.Write(t.Context(), &jsonrpc.Request{Method: "fill"}); err != nil {
			t.Fatalf("write %d of %d: %v", i+1, queued, err)
		}
	}
	ctx, cancel = context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := a.Write(ctx, &jsonrpc.Request{Method: "over"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Write past a full queue: %v, want the deadline", err)
	}
	blocked := make(chan error, 1)
	go func() { blocked <- a.Write(t.Context(), &jsonrpc.Request{Method: "over"}) }()
	b.Close()
	select {
	case err := <-blocked:
		if err != io.ErrClosedPipe {
			t.Errorf("a write blocked when the reader closed: %v, want %v", err, io.ErrClosedPipe)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write blocked on a full queue did not end when the reader closed")
	}
}

// An SDK client and server over the pair: many calls at once each get
// their own answer, and closing the client ends the server's session.
func TestSDKPeersOverThePair(t *testing.T) {
	type args struct {
		N int `json:"n"`
	}
	type out struct {
		Twice int `json:"twice"`
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "double"}, func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, out, error) {
		return nil, out{Twice: 2 * in.N}, nil
	})
	st, ct := Pair()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for n := range 200 {
		wg.Go(func() {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "double", Arguments: map[string]any{"n": n}})
			if err != nil {
				t.Errorf("call %d: %v", n, err)
				return
			}
			got, ok := res.StructuredContent.(map[string]any)
			if !ok || got["twice"] != float64(2*n) {
				t.Errorf("call %d answered %v", n, res.StructuredContent)
			}
		})
	}
	wg.Wait()
	if err := cs.Close(); err != nil {
		t.Errorf("closing the client: %v", err)
	}
	waited := make(chan error, 1)
	go func() { waited <- ss.Wait() }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("the server's session did not end when the client closed")
	}
}
