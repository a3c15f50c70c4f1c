package interop

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestEverythingResources lists, reads, gets and subscribes against the
// TypeScript reference server over stdio and streamable HTTP (2025-11-25,
// all it speaks): its file resources, its text and blob templates filled
// in, its prompt with a required argument, and a subscription whose
// updates it sends once the toggle-subscriber-updates tool asks it to
// (one at once, then one every 5 s).
func TestEverythingResources(t *testing.T) {
	needEverything(t)
	targets := map[string]func(t *testing.T) engine.Target{
		"stdio": func(t *testing.T) engine.Target {
			return engine.Target{Transport: engine.TransportStdio, Command: "node " + shellQuote(everythingEntry) + " stdio"}
		},
		"http": func(t *testing.T) engine.Target {
			return engine.Target{Transport: engine.TransportHTTP, URL: startEverythingHTTP(t)}
		},
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			s, err := engine.Connect(ctx, target(t), engine.DefaultAnswerPolicy(), recorder.New(recorder.Meta{}))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()

			res, err := s.ListResources(ctx)
			if err != nil || len(res) == 0 {
				t.Fatalf("resources: %d, %v", len(res), err)
			}
			static := res[0].URI
			if !strings.HasPrefix(static, "demo://resource/static/document/") {
				t.Errorf("first resource %q, want one of the server's documents", static)
			}
			tmpls, err := s.ListResourceTemplates(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var text, blob string
			for _, tm := range tmpls {
				switch {
				case strings.Contains(tm.URITemplate, "/dynamic/text/"):
					text = tm.URITemplate
				case strings.Contains(tm.URITemplate, "/dynamic/blob/"):
					blob = tm.URITemplate
				}
			}
			if text == "" || blob == "" {
				t.Fatalf("templates %+v: want the dynamic text and blob ones", tmpls)
			}
			for _, tm := range []string{text, blob} {
				vars, err := engine.TemplateVariables(tm)
				if err != nil || !slices.Equal(vars, []string{"resourceId"}) {
					t.Fatalf("variables of %s: %v, %v", tm, vars, err)
				}
				uri, err := engine.ExpandTemplate(tm, map[string]string{"resourceId": "7"})
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.ReadResource(ctx, uri)
				if err != nil || len(got.Contents) != 1 {
					t.Fatalf("reading %s: %+v, %v", uri, got, err)
				}
				c := got.Contents[0]
				body := c.Text
				if tm == blob {
					if c.Type != "blob" {
						t.Errorf("%s read as %s, want a blob", uri, c.Type)
					}
					body = string(c.Data) // decoded from base64
				}
				if !strings.HasPrefix(body, "Resource 7") {
					t.Errorf("%s reads %q", uri, body)
				}
			}

			prompts, err := s.ListPrompts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(prompts, func(p engine.Prompt) bool { return p.Name == "args-prompt" })
			if i < 0 {
				t.Fatalf("no args-prompt among %+v", prompts)
			}
			if _, err := s.GetPrompt(ctx, "args-prompt", nil, &prompts[i]); err == nil || !strings.Contains(err.Error(), "fill in the required argument city") {
				t.Errorf("args-prompt without city: %v", err)
			}
			got, err := s.GetPrompt(ctx, "args-prompt", map[string]string{"city": "Paris", "state": "Texas"}, &prompts[i])
			if err != nil || len(got.Messages) != 1 || got.Messages[0].Content.Text != "What's weather in Paris, Texas?" {
				t.Errorf("args-prompt: %+v, %v", got, err)
			}

			updates := make(chan engine.ResourceUpdate, 16)
			s.OnResourceUpdated(func(u engine.ResourceUpdate) { updates <- u })
			if err := s.Subscribe(ctx, static); err != nil {
				t.Fatal(err)
			}
			toggle := func() {
				if out := s.CallTool(ctx, engine.ToolCall{Tool: "toggle-subscriber-updates"}); out.Failure != "" {
					t.Fatalf("toggle-subscriber-updates: %s", out.Failure)
				}
			}
			toggle()
			defer toggle() // stop them: the server keeps a timer per session
			select {
			case u := <-updates:
				sp := s.Recording().Span(u.Span)
				if u.URI != static || sp == nil || sp.Method != "resources/subscribe" || sp.Name != static {
					t.Errorf("update %+v on span %+v, want %s on its resources/subscribe span", u, sp, static)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("no update within 20s of toggle-subscriber-updates")
			}
			if err := s.Unsubscribe(ctx, static); err != nil {
				t.Fatal(err)
			}
		})
	}
}
