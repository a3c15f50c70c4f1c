package proxy

import (
	"encoding/json"
	"reflect"
	"testing"
)

// messageSeeds are messages of every shape the scan takes or leaves to
// json.Unmarshal.
var messageSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`,
	`{"jsonrpc":"2.0","id":"a-1","result":{"content":[{"type":"text","text":"hi \"there\" \u00e9\n"}],"isError":false}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5e-3,"total":1E+2}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"nope"}}`,
	`{"jsonrpc":"2.0","id":7,"error":null}`,
	` { "id" : null , "method" : null , "params" : null , "result" : null } `,
	`{}`, `{ }`, `[]`, `null`, `"x"`, `1`, `{"id":1}x`, `{"id":1,}`, `{"id":01}`, `{"id":-}`, `{"id":1.}`, `{"id":1e}`,
	`{"ID":1,"method":"x"}`, `{"Method":"x"}`, `{"id":1,"id":2}`, `{"method":"a","method":"b"}`,
	`{"me\u0074hod":"x"}`, `{"method":"a\u0020b"}`, `{"method":"a\/b"}`, `{"method":"\xff"}`, `{"method":5}`, `{"method":{}}`,
	`{"méthod":"x","id":1}`, `{"metho\u212a":"x"}`, `{"x":"\u12"}`, `{"x":"\q"}`, "{\"x\":\"a\tb\"}", `{"x":[1,[2,[3,{}]]],"y":true,"z":false}`,
	`{"params":{"a":[tru]}}`, `{"params":nul}`, `{"result":"x"`, `{"result":"x`, `{"id":1 "method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"` + "\xc3\x28" + `"}}`,
}

// FuzzParseMessage: parseMessage reads every input as json.Unmarshal
// into a message does: the same fields, the same error.
func FuzzParseMessage(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var got, want message
		gerr := parseMessage(raw, &got)
		werr := json.Unmarshal(raw, &want)
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("%q: error %v, json.Unmarshal's %v", raw, gerr, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: read %+v, json.Unmarshal %+v", raw, got, want)
		}
	})
}

// TestScanMessageTakesTheCommonShapes: the messages the proxy sees
// most are read by the scan, not left to json.Unmarshal.
func TestScanMessageTakesTheCommonShapes(t *testing.T) {
	for _, s := range messageSeeds[:3] {
		var m message
		if !scanMessage([]byte(s), &m) {
			t.Errorf("%s: left to json.Unmarshal", s)
		}
	}
}
