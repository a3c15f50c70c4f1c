package wire

import (
	"encoding/json"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestReadNotification: what each notification's event says, as the
// engine and the proxy both record it.
func TestReadNotification(t *testing.T) {
	for _, tt := range []struct {
		from, method, params string
		want                 Notice
	}{
		{"server", "notifications/progress", `{"progressToken":7,"progress":3,"total":5,"message":"sampling"}`,
			Notice{Kind: recorder.EventProgress, Text: "3/5 sampling", Token: "7"}},
		{"server", "notifications/progress", `{"progressToken":"t1","progress":0.5}`,
			Notice{Kind: recorder.EventProgress, Text: "0.5", Token: "t1"}},
		{"server", "notifications/message", `{"level":"info","logger":"fanout","data":"started 5"}`,
			Notice{Kind: recorder.EventLog, Text: "info fanout: started 5", Level: "info", Logger: "fanout"}},
		{"server", "notifications/message", `{"level":"error","data":{ "n": 5,  "ok": false }}`,
			Notice{Kind: recorder.EventLog, Text: `error: {"n":5,"ok":false}`, Level: "error"}},
		{"client", "notifications/cancelled", `{"requestId":"a-1","reason":"the user stopped it"}`,
			Notice{Kind: recorder.EventCancelled, Text: `the client cancelled its request "a-1": the user stopped it`, Cancels: `"a-1"`}},
		{"server", "notifications/cancelled", `{"requestId":12}`,
			Notice{Kind: recorder.EventCancelled, Text: "the server cancelled its request 12", Cancels: "12"}},
		{"server", "notifications/tools/list_changed", ``,
			Notice{Kind: recorder.EventListChanged, Text: "tools changed"}},
		{"server", "notifications/progress", `{"progress":"not a number"}`,
			Notice{Kind: recorder.EventProgress}},
		{"server", "notifications/progress", `{"progressToken":1,"progress":2,"x":{"progress":"inner"},"message":null}`,
			Notice{Kind: recorder.EventProgress, Text: "2", Token: "1"}},
		{"server", "notifications/progress", `{"progressToken":1,"progress":1e3,"total":2000,"message":"\u00e9t\u00e9"}`,
			Notice{Kind: recorder.EventProgress, Text: "1000/2000 été", Token: "1"}},
		{"server", "notifications/progress", `{"progressToken":1,"progress":1,"message":5}`,
			Notice{Kind: recorder.EventProgress}},
		{"server", "notifications/custom/thing", `{}`,
			Notice{Kind: recorder.EventOther}},
	} {
		if got := ReadNotification(tt.from, tt.method, json.RawMessage(tt.params)); got != tt.want {
			t.Errorf("%s %s %s:\n got %+v\nwant %+v", tt.from, tt.method, tt.params, got, tt.want)
		}
	}
}
