// Package inproc connects an MCP client and server in one process, as
// the SDK's in-memory transports do, at a fraction of their cost per
// message.
//
// The SDK's pair is a byte pipe: each end runs a reader goroutine, and
// each message read is decoded three times (once as a batch that is not
// there, once as a message, once more for its method), each decode
// taking a fresh 32 KiB buffer. At the load tests' rate of thousands of
// calls a second that buffer churn is a large share of the process's
// work. Here each message still crosses as the bytes the SDK would
// write ([jsonrpc.EncodeMessage]), so neither end shares memory with the
// other, and is decoded once with encoding/json.
//
// The pair carries no batches: neither the client engine nor the demo
// server sends them.
package inproc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// queued is how many messages one direction holds that its reader has
// not read; past it, writing waits, as on a pipe.
const queued = 64

// Pair returns two transports connected to each other: connect a server
// to one, then a client to the other. Closing either end's connection
// ends both: its own reads end with [io.EOF] at once; the other end
// reads what was written before the close, then [io.EOF]; writes on
// either fail with [io.ErrClosedPipe].
func Pair() (mcp.Transport, mcp.Transport) {
	a, b := &closer{ch: make(chan struct{})}, &closer{ch: make(chan struct{})}
	ab, ba := make(chan []byte, queued), make(chan []byte, queued)
	return &end{conn{in: ba, out: ab, mine: a, peer: b}}, &end{conn{in: ab, out: ba, mine: b, peer: a}}
}

// closer is one end's closing, seen by both ends.
type closer struct {
	once sync.Once
	ch   chan struct{}
}

func (c *closer) close() { c.once.Do(func() { close(c.ch) }) }

// end is one side's transport; it connects once.
type end struct{ c conn }

func (e *end) Connect(context.Context) (mcp.Connection, error) { return &e.c, nil }

// conn is one side's connection.
type conn struct {
	in         <-chan []byte
	out        chan<- []byte
	mine, peer *closer
}

func (c *conn) SessionID() string { return "" }

func (c *conn) Close() error {
	c.mine.close()
	return nil
}

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("marshaling message: %v", err)
	}
	select {
	case <-c.mine.ch:
		return io.ErrClosedPipe
	case <-c.peer.ch:
		return io.ErrClosedPipe
	default:
	}
	select {
	case c.out <- data:
		return nil
	case <-c.mine.ch:
		return io.ErrClosedPipe
	case <-c.peer.ch:
		return io.ErrClosedPipe
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.mine.ch:
		return nil, io.EOF
	default:
	}
	select {
	case data := <-c.in:
		return decode(data)
	case <-c.mine.ch:
		return nil, io.EOF
	case <-c.peer.ch:
		// What the other end wrote before it closed is still read.
		select {
		case data := <-c.in:
			return decode(data)
		default:
			return nil, io.EOF
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// message is a JSON-RPC message as [jsonrpc.EncodeMessage] writes it.
type message struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *jsonrpc.Error  `json:"error"`
}

var errNoID = errors.New("a response without an id")

// decode reads one message the other end encoded: a request (a
// notification when it has no id) or a response.
func decode(data []byte) (jsonrpc.Message, error) {
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	if m.Version != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected \"2.0\"", m.Version)
	}
	id, err := decodeID(m.ID)
	if err != nil {
		return nil, err
	}
	if m.Method != nil {
		return &jsonrpc.Request{ID: id, Method: *m.Method, Params: m.Params}, nil
	}
	if !id.IsValid() {
		return nil, errNoID
	}
	resp := &jsonrpc.Response{ID: id, Result: m.Result}
	if m.Error != nil {
		resp.Error = m.Error
	}
	return resp, nil
}

// decodeID reads an id as the SDK's decoder does: absent or null, a
// string, or a number (taken as an integer).
func decodeID(raw json.RawMessage) (jsonrpc.ID, error) {
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return jsonrpc.ID{}, nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, fmt.Errorf("message id %s: %w", raw, err)
		}
		return jsonrpc.MakeID(s)
	default:
		n, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return jsonrpc.ID{}, fmt.Errorf("message id %s is not a number or a string", raw)
		}
		return jsonrpc.MakeID(n)
	}
}
