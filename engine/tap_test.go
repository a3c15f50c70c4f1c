package engine

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// holdingObserver is a wire observer that hands every message on and
// says the reader awaits each server request's answer (dispatch inline).
type holdingObserver struct{ withheld atomic.Int32 }

func (o *holdingObserver) messageRead(msg jsonrpc.Message, _ wireSource) readVerdict {
	return readVerdict{deliver: msg, seen: func(w bool) {
		if w {
			o.withheld.Add(1)
		}
	}}
}
func (*holdingObserver) unreadable(error, []byte) bool                   { return false }
func (*holdingObserver) readFailed(error)                                {}
func (*holdingObserver) writing(context.Context, jsonrpc.Message)        {}
func (*holdingObserver) written(context.Context, jsonrpc.Message, error) {}
func (*holdingObserver) closed(error)                                    {}
func (*holdingObserver) httpFailed(error)                                {}
func (*holdingObserver) awaitsAnswer(*jsonrpc.Request) bool              { return true }
func (*holdingObserver) mayHold() bool                                   { return true }

// TestTapHoldsAndPushesBack checks the tap under inline over the SDK's
// in-memory transport: while the reader awaits a request's answer it
// hands nothing on, holds what arrives up to its byte limit and then
// stops reading, so that the server's writes block (back-pressure); once
// the answer is written everything held is handed on, marked withheld,
// and the server can write again.
func TestTapHoldsAndPushesBack(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	obs := &holdingObserver{}
	tapped := &tappedTransport{inner: ct, obs: obs, limit: 2000}
	client, err := tapped.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()

	req := &jsonrpc.Request{ID: mustID(1), Method: "ping"}
	if err := server.Write(ctx, req); err != nil {
		t.Fatal(err)
	}
	got, err := client.Read(ctx)
	if err != nil || got.(*jsonrpc.Request).Method != "ping" {
		t.Fatalf("Read = %v, %v; want the ping", got, err)
	}

	const sent = 200 // about 130 bytes each: far past the 2000-byte limit
	var written atomic.Int32
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for i := range sent {
			n := &jsonrpc.Request{Method: "notifications/progress", Params: []byte(`{"progressToken":"t","progress":` + itoa(i) + `,"message":"a step of some length to fill the queue"}`)}
			if server.Write(ctx, n) != nil {
				return
			}
			written.Add(1)
		}
	}()

	readCtx, readCancel := context.WithTimeout(ctx, 300*time.Millisecond)
	if msg, err := client.Read(readCtx); err == nil {
		t.Fatalf("Read handed on %v while the reader awaited the ping's answer", msg)
	}
	readCancel()
	if n := written.Load(); n >= sent/2 {
		t.Fatalf("the server wrote %d of %d messages while the client held them: no back-pressure", n, sent)
	}

	if err := client.Write(ctx, &jsonrpc.Response{ID: mustID(1), Result: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	for i := range sent {
		if _, err := client.Read(ctx); err != nil {
			t.Fatalf("Read %d after the answer: %v", i, err)
		}
	}
	// The last Write may return after its message was read: wait for the
	// writer to finish counting before checking the count.
	select {
	case <-writerDone:
	case <-ctx.Done():
	}
	if written.Load() != sent {
		t.Errorf("the server wrote %d of %d messages", written.Load(), sent)
	}
	if w := obs.withheld.Load(); w < 5 || w >= sent {
		t.Errorf("%d messages reported withheld, want the ones held while the ping was served (some, not all %d)", w, sent)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func mustID(n int64) jsonrpc.ID {
	id, _ := jsonrpc.MakeID(float64(n)) // a number is always a valid id
	return id
}
