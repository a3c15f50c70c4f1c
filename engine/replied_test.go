package engine

import (
	"slices"
	"testing"

	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestRepliedKeepsInputKeys: a call without round spans (a session before
// 2026-07-28) skips reading its answers, except one that may ask for
// input: the input requests' keys must still be kept in the server's
// order, however the result spells input_required.
func TestRepliedKeepsInputKeys(t *testing.T) {
	for _, tc := range []struct {
		name, result string
		want         []string
	}{
		{"input required", `{"resultType":"input_required","inputRequests":{"z":{},"a":{},"m":{}}}`, []string{"z", "a", "m"}},
		{"escaped", `{"resultType":"input\u005frequired","inputRequests":{"b":{},"a":{}}}`, []string{"b", "a"}},
		{"a result", `{"content":[{"type":"text","text":"x"}]}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := recorder.New(recorder.Meta{})
			c := &call{rec: rec, span: rec.Begin(recorder.NewSpan("s1", recorder.Outgoing, "tools/call")), answered: recorder.Unset}
			id, _ := jsonrpc.MakeID(float64(7))
			c.sending(wire.KeyOf(id), nil, 1)
			c.replied(&jsonrpc.Response{ID: id, Result: []byte(tc.result)}, 2)
			_, answered, keys := c.roundAnswered(1)
			if answered != 2 || !slices.Equal(keys, tc.want) {
				t.Errorf("round 1 answered at %v with keys %q, want 2 and %q", answered, keys, tc.want)
			}
		})
	}
}
