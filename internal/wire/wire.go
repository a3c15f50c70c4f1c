// Package wire is the one model of the JSON-RPC traffic between an MCP
// client and server that the inspector records: which tool call a server
// request belongs to ([Calls.Link]), what a tools/call answer says about
// its rounds ([ReadShape]), how an id is written in a span ([Key]), which
// protocol era has multi-round-trip calls ([RoundsEra]), what counts as a
// duplicate id and which answer refused it ([Pending]), and the words the
// recording uses for each of these.
//
// Two observers feed it: the client engine (package engine), with what
// it sends and receives, and the proxy (package engine/proxy), with what
// passes it in either direction. Because both ask this package, a run
// and the proxy in front of it link, count and word the same traffic the
// same way.
package wire

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// RoundsProtocol is the first protocol version with multi-round-trip
// requests (SEP-2322): a tools/call answered input_required is retried
// with the answers, each retry a round of one logical call, and the
// server sends no requests of its own while a call runs.
const RoundsProtocol = "2026-07-28"

// RoundsEra reports whether protocol has multi-round-trip tool calls.
// Versions are dates, so they compare as strings.
func RoundsEra(protocol string) bool { return protocol >= RoundsProtocol }

// Key is the text of a JSON-RPC id as spans carry it: a string id
// quoted, a number as written; "" for no id or null.
func Key(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		if s, err := strconv.Unquote(string(raw)); err == nil && !bytes.ContainsRune(raw, '\\') {
			return strconv.Quote(s)
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		return strconv.Quote(s)
	}
	if plainNumber(raw) {
		return string(raw)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return ""
	}
	return n.String()
}

// KeyOf is [Key] for an id the Go SDK decoded.
func KeyOf(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case string:
		return strconv.Quote(v)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return ""
}

// plainNumber reports whether raw is an optional minus and digits, the
// form ids take in practice, which needs no decoding.
func plainNumber(raw []byte) bool {
	if len(raw) > 0 && raw[0] == '-' {
		raw = raw[1:]
	}
	if len(raw) == 0 || len(raw) > 1 && raw[0] == '0' {
		return false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
