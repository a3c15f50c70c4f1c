package engine

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// eraTargets are the demo server on both protocol eras: in process, as a
// stdio subprocess and over streamable HTTP.
func eraTargets(t *testing.T) map[string]Target {
	t.Helper()
	ts := httptest.NewServer(demo.NewHTTPHandler())
	t.Cleanup(ts.Close)
	out := map[string]Target{}
	for _, p := range []string{DefaultProtocol, "2026-07-28"} {
		out["in-process/"+p] = Target{Protocol: p}
		stdio := stdioTarget("demo")
		stdio.Protocol = p
		out["stdio/"+p] = stdio
		out["http/"+p] = Target{Transport: TransportHTTP, URL: ts.URL, Protocol: p}
	}
	return out
}

// TestResourcesAndPrompts lists, reads and gets what the demo server
// offers, on both eras and every transport: what a person sees in the
// Resources and Prompts tabs, and the spans the timeline shows.
func TestResourcesAndPrompts(t *testing.T) {
	for name, target := range eraTargets(t) {
		t.Run(name, func(t *testing.T) {
			s := connectTarget(t, target, AnswerPolicy{})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()

			res, err := s.ListResources(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var uris []string
			for _, r := range res {
				uris = append(uris, r.URI)
			}
			if !slices.Contains(uris, demo.ReadmeURI) || !slices.Contains(uris, demo.ClockURI) {
				t.Errorf("resources %v, want %s and %s", uris, demo.ReadmeURI, demo.ClockURI)
			}
			tmpls, err := s.ListResourceTemplates(ctx)
			if err != nil || len(tmpls) != 1 || tmpls[0].URITemplate != demo.ItemTemplate {
				t.Fatalf("templates %+v, %v; want %s", tmpls, err, demo.ItemTemplate)
			}

			read, err := s.ReadResource(ctx, demo.ReadmeURI)
			if err != nil || len(read.Contents) != 1 || !strings.HasPrefix(read.Contents[0].Text, "Fanout Inspector demo server.") ||
				read.Contents[0].MIMEType != "text/plain" {
				t.Errorf("reading %s: %+v, %v", demo.ReadmeURI, read, err)
			}
			vars, err := TemplateVariables(tmpls[0].URITemplate)
			if err != nil || !slices.Equal(vars, []string{"id"}) {
				t.Fatalf("variables of %s: %v, %v", tmpls[0].URITemplate, vars, err)
			}
			uri, err := ExpandTemplate(tmpls[0].URITemplate, map[string]string{"id": "a b"})
			if err != nil || uri != "demo://item/a%20b" {
				t.Fatalf("expanding: %q, %v", uri, err)
			}
			read, err = s.ReadResource(ctx, "demo://item/42")
			if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != `{"id":"42","name":"item 42"}` || read.Contents[0].MIMEType != "application/json" {
				t.Errorf("reading demo://item/42: %+v, %v", read, err)
			}
			if _, err := s.ReadResource(ctx, "demo://nothing"); err == nil || !strings.Contains(err.Error(), "reading demo://nothing") {
				t.Errorf("reading a resource that is not there: %v, want an error naming it", err)
			}

			prompts, err := s.ListPrompts(ctx)
			if err != nil || len(prompts) != 1 || prompts[0].Name != demo.GreetPrompt || len(prompts[0].Arguments) != 2 || !prompts[0].Arguments[0].Required {
				t.Fatalf("prompts %+v, %v", prompts, err)
			}
			if _, err := s.GetPrompt(ctx, "greet", map[string]string{"style": "formal"}, &prompts[0]); err == nil || !strings.Contains(err.Error(), "fill in the required argument name") {
				t.Errorf("getting greet without its required argument: %v", err)
			}
			got, err := s.GetPrompt(ctx, "greet", map[string]string{"name": "Ada", "style": "formal"}, &prompts[0])
			if err != nil || len(got.Messages) != 1 || got.Messages[0].Role != "user" || got.Messages[0].Content.Text != "Greet Ada formally, in one sentence." {
				t.Errorf("getting greet: %+v, %v", got, err)
			}

			snap := s.Recording().Snapshot()
			for _, want := range []struct{ method, name string }{
				{"resources/list", ""}, {"resources/templates/list", ""}, {"prompts/list", ""},
				{"resources/read", demo.ReadmeURI}, {"resources/read", "demo://item/42"}, {"prompts/get", "greet"},
			} {
				if !slices.ContainsFunc(snap.Spans, func(sp *recorder.Span) bool {
					return sp.Method == want.method && sp.Name == want.name && sp.Status == recorder.StatusOK
				}) {
					t.Errorf("no ok span %s %q in the recording", want.method, want.name)
				}
			}
		})
	}
}

// TestSubscribeBothEras subscribes to the demo server's ticking clock on
// both eras and every transport: an update arrives as an event on the
// subscription's span and through OnResourceUpdated; on 2026-07-28 the
// subscriptions/listen span stays open, acknowledged, until Unsubscribe
// ends it.
func TestSubscribeBothEras(t *testing.T) {
	for name, target := range eraTargets(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := connectTarget(t, target, AnswerPolicy{})
			updates := make(chan ResourceUpdate, 16)
			s.OnResourceUpdated(func(u ResourceUpdate) { updates <- u })
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := s.Subscribe(ctx, demo.ClockURI); err != nil {
				t.Fatal(err)
			}
			if got := s.Subscriptions(); !slices.Equal(got, []string{demo.ClockURI}) {
				t.Errorf("subscriptions %v", got)
			}
			var u ResourceUpdate
			select {
			case u = <-updates:
			case <-time.After(10 * demo.ClockPeriod):
				t.Fatalf("no update of %s within %v", demo.ClockURI, 10*demo.ClockPeriod)
			}
			if u.URI != demo.ClockURI || u.Span == 0 {
				t.Errorf("update %+v, want %s on the subscription's span", u, demo.ClockURI)
			}
			modern := s.Info().Protocol == "2026-07-28"
			method := "resources/subscribe"
			if modern {
				method = "subscriptions/listen"
			}
			sub := s.Recording().Span(u.Span)
			if sub == nil || sub.Method != method || sub.Name != demo.ClockURI {
				t.Fatalf("the update's span is %+v, want a %s span for %s", sub, method, demo.ClockURI)
			}
			if modern != sub.Open() {
				t.Errorf("%s span open: %v, want %v", method, sub.Open(), modern)
			}
			snap := s.Recording().Snapshot()
			if !slices.ContainsFunc(snap.Events, func(e recorder.Event) bool {
				return e.Method == "notifications/resources/updated" && e.Span == u.Span && e.Text == "resource updated: "+demo.ClockURI
			}) {
				t.Errorf("no update event on span %d", u.Span)
			}
			if modern && !slices.ContainsFunc(snap.Events, func(e recorder.Event) bool {
				return e.Method == "notifications/subscriptions/acknowledged" && e.Span == u.Span && strings.Contains(e.Text, demo.ClockURI)
			}) {
				t.Errorf("no acknowledgement on the listen's span %d", u.Span)
			}
			// in the transcript the update sits under its subscription
			msgs := recorder.TranscriptOf(snap)
			req := slices.IndexFunc(msgs, func(m recorder.Message) bool { return m.Span != nil && m.Span.ID == u.Span })
			upd := slices.IndexFunc(msgs, func(m recorder.Message) bool { return m.Method() == "notifications/resources/updated" })
			if req < 0 || upd < req || msgs[upd].Depth != msgs[req].Depth+1 ||
				!strings.Contains(msgs[upd].Line(), "←   notifications/resources/updated  resource updated: "+demo.ClockURI) {
				t.Errorf("the transcript's first update (line %d) is not indented under its %s (line %d):\n%s", upd, method, req, strings.Join(lines(msgs), "\n"))
			}

			if err := s.Unsubscribe(ctx, demo.ClockURI); err != nil {
				t.Fatal(err)
			}
			if err := s.Unsubscribe(ctx, demo.ClockURI); err == nil || !strings.Contains(err.Error(), "not subscribed") {
				t.Errorf("unsubscribing twice: %v", err)
			}
			waitFor(10*time.Second, func() bool {
				sub = s.Recording().Span(u.Span)
				return !sub.Open()
			})
			if sub.Open() || sub.Status != recorder.StatusOK {
				t.Errorf("after Unsubscribe the %s span is %v (open %v), want ended ok", method, sub.Status, sub.Open())
			}
			if !modern && !slices.ContainsFunc(s.Recording().Snapshot().Spans, func(sp *recorder.Span) bool {
				return sp.Method == "resources/unsubscribe" && sp.Name == demo.ClockURI && sp.Status == recorder.StatusOK
			}) {
				t.Error("no resources/unsubscribe span")
			}
		})
	}
}

// TestSubscribeRefused: a resource the server does not know is refused
// with the server's error, and a server without subscriptions is not
// asked at all.
func TestSubscribeRefused(t *testing.T) {
	for _, p := range []string{DefaultProtocol, "2026-07-28"} {
		t.Run(p, func(t *testing.T) {
			s := connectTarget(t, Target{Protocol: p}, AnswerPolicy{})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := s.Subscribe(ctx, "demo://nothing")
			if err == nil || !strings.Contains(err.Error(), "subscribing to demo://nothing") {
				t.Errorf("subscribing to an unknown resource: %v", err)
			}
			if got := s.Subscriptions(); len(got) != 0 {
				t.Errorf("subscriptions after a refusal: %v", got)
			}
		})
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "1"}, nil)
	srv.AddResource(&mcp.Resource{URI: "x://a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "x://a", Text: "a"}}}, nil
	})
	s := connectServer(t, srv, AnswerPolicy{})
	err := s.Subscribe(context.Background(), "x://a")
	if err == nil || !strings.Contains(err.Error(), "does not offer subscriptions") {
		t.Errorf("subscribing on a server without subscriptions: %v", err)
	}
}

// TestListAllPages follows nextCursor through every page of a Go SDK
// server that pages by two, and stops a server whose cursor never ends.
func TestListAllPages(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "paged", Version: "1"}, &mcp.ServerOptions{PageSize: 2})
	for i := range 5 {
		uri := fmt.Sprintf("x://r%d", i)
		srv.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
		srv.AddPrompt(&mcp.Prompt{Name: fmt.Sprintf("p%d", i)}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	}
	s := connectServer(t, srv, AnswerPolicy{})
	ctx := context.Background()
	res, err := s.ListResources(ctx)
	if err != nil || len(res) != 5 || res[4].URI != "x://r4" {
		t.Fatalf("resources over pages of 2: %+v, %v", res, err)
	}
	prompts, err := s.ListPrompts(ctx)
	if err != nil || len(prompts) != 5 {
		t.Fatalf("prompts over pages of 2: %+v, %v", prompts, err)
	}
	pages := 0
	for _, sp := range s.Recording().Snapshot().Spans {
		if sp.Method == "resources/list" {
			pages++
		}
	}
	if pages != 3 {
		t.Errorf("%d resources/list requests for 5 resources in pages of 2, want 3", pages)
	}

	// A server that hands back the same cursor for ever.
	loop := mcp.NewServer(&mcp.Implementation{Name: "loop", Version: "1"}, nil)
	loop.AddResource(&mcp.Resource{URI: "x://a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	loop.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.ListResourcesParams); ok && p != nil {
				p.Cursor = "" // every page is the first
			}
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.ListResourcesResult); ok && r != nil {
				r.NextCursor = "again"
			}
			return res, err
		}
	})
	s = connectServer(t, loop, AnswerPolicy{})
	res, err = s.ListResources(ctx)
	if err == nil || !strings.Contains(err.Error(), `gave the cursor "again" a second time`) || len(res) != 2 {
		t.Errorf("a cursor that never ends: %d resources, %v", len(res), err)
	}
}
