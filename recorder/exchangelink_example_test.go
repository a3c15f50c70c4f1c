package recorder_test

import (
	"fmt"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// A tool call POSTed over streamable HTTP, the server's sampling request
// on the POST's event stream and the client's answer POSTed back: each
// exchange is linked with the request it carried, and each request with
// its exchange.
func ExampleExchangeLinks() {
	rec := recorder.New(recorder.Meta{Title: "example"})
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }

	call := recorder.NewSpan("s1", recorder.Outgoing, "tools/call")
	call.RequestID, call.Name, call.Received = "3", "fanout", ms(10)
	callID := rec.Begin(call)
	post := rec.AddExchange(recorder.Exchange{Session: "s1", Method: "POST", RPC: "tools/call", Sent: ms(10), Responded: ms(12), Ended: recorder.Unset, Status: 200,
		RequestBody: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fanout"}}`})

	ask := recorder.NewSpan("s1", recorder.Incoming, "sampling/createMessage")
	ask.RequestID, ask.Received = "0", ms(13)
	askID := rec.Begin(ask)
	rec.AddExchangeEvent(post, recorder.StreamEvent{At: ms(13), Data: `{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{}}`})
	answer := rec.AddExchange(recorder.Exchange{Session: "s1", Method: "POST", RPC: "response", Sent: ms(20), Responded: ms(21), Ended: ms(21), Status: 202,
		RequestBody: `{"jsonrpc":"2.0","id":0,"result":{"model":"m"}}`})

	snap := rec.Snapshot()
	var links recorder.ExchangeLinks
	links.Update(snap, snap.HTTP)
	fmt.Println("the call's POST carried span", links.Span(post) == callID)
	fmt.Println("the answer's POST answers span", links.Span(answer) == askID)
	fmt.Println("the call went in exchange", links.Exchange(callID))
	fmt.Println("the sampling request came in exchange", links.Exchange(askID))
	// Output:
	// the call's POST carried span true
	// the answer's POST answers span true
	// the call went in exchange 1
	// the sampling request came in exchange 1
}
