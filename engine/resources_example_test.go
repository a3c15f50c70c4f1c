package engine_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// List the demo server's resources, templates and prompts, read a
// template filled in, get a prompt, and subscribe to the ticking clock
// on protocol 2026-07-28 until its first update; then print what the
// recording holds, as the timeline shows it.
func ExampleSession_Subscribe() {
	ctx := context.Background()
	rec := recorder.New(recorder.Meta{Title: "resources"})
	s, err := engine.Connect(ctx, engine.Target{Protocol: "2026-07-28"}, engine.DefaultAnswerPolicy(), rec)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	resources, _ := s.ListResources(ctx)
	templates, _ := s.ListResourceTemplates(ctx)
	prompts, _ := s.ListPrompts(ctx)
	for _, r := range resources {
		fmt.Println("resource", r.URI, r.MIMEType)
	}
	for _, t := range templates {
		fmt.Println("template", t.URITemplate)
	}
	for _, p := range prompts {
		fmt.Println("prompt", p.Name, len(p.Arguments), "arguments")
	}

	uri, _ := engine.ExpandTemplate(templates[0].URITemplate, map[string]string{"id": "7"})
	read, err := s.ReadResource(ctx, uri)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("read", uri, "->", read.Contents[0].Text)
	got, err := s.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"}, &prompts[0])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("prompt greet ->", got.Messages[0].Role+":", got.Messages[0].Content.Text)

	updates := make(chan engine.ResourceUpdate, 1)
	s.OnResourceUpdated(func(u engine.ResourceUpdate) {
		select {
		case updates <- u:
		default:
		}
	})
	if err := s.Subscribe(ctx, "demo://clock"); err != nil {
		log.Fatal(err)
	}
	u := <-updates // the clock ticks every 2 s
	if err := s.Unsubscribe(ctx, "demo://clock"); err != nil {
		log.Fatal(err)
	}
	fmt.Println("updated", u.URI)

	snap := rec.Snapshot()
	for _, sp := range snap.Spans {
		if strings.HasPrefix(sp.Method, "resources/") || strings.HasPrefix(sp.Method, "prompts/") || sp.Name == "demo://clock" {
			fmt.Printf("span %s %s %s\n", sp.Method, sp.Name, sp.Status)
		}
	}
	for _, e := range snap.Events {
		if e.Span == u.Span && e.Span != 0 {
			fmt.Printf("event %s: %s\n", e.Method, e.Text)
			if e.Method == "notifications/resources/updated" {
				break
			}
		}
	}
	// Output:
	// resource demo://clock text/plain
	// resource demo://readme text/plain
	// template demo://item/{id}
	// prompt greet 2 arguments
	// read demo://item/7 -> {"id":"7","name":"item 7"}
	// prompt greet -> user: Say hello to Ada.
	// updated demo://clock
	// span resources/list  ok
	// span resources/templates/list  ok
	// span prompts/list  ok
	// span resources/read demo://item/7 ok
	// span prompts/get greet ok
	// span subscriptions/listen demo://clock ok
	// event notifications/subscriptions/acknowledged: subscriptions acknowledged: updates of demo://clock
	// event notifications/resources/updated: resource updated: demo://clock
}
