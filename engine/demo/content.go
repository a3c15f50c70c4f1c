package demo

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo server's resources and prompts, which a load mix reads and
// gets beside its tool calls (`inspector init` lists them into a starter
// workload file).
const (
	// ReadmeURI is a static text resource.
	ReadmeURI = "demo://readme"
	// ItemTemplate is a resource template: any id is an item.
	ItemTemplate = "demo://item/{id}"
	// GreetPrompt is a prompt with a required argument, name, and an
	// optional one, style (plain or formal).
	GreetPrompt = "greet"
)

const readmeText = `Fanout Inspector demo server.
Tools: fanout, probe, echo, slow. Resources: demo://readme, demo://clock, demo://item/{id}. Prompts: greet.
`

// addContent adds the resources, the resource template and the prompt;
// clock serves demo://clock.
func addContent(srv *mcp.Server, clock *clock) {
	clock.srv = srv
	srv.AddResource(&mcp.Resource{
		URI: ClockURI, Name: "clock", Title: "A ticking clock",
		Description: "Changes every 2 seconds while subscribed to: subscribe to see notifications/resources/updated.", MIMEType: "text/plain",
	}, clock.read)
	srv.AddResource(&mcp.Resource{
		URI: ReadmeURI, Name: "readme", Title: "About the demo server",
		Description: "A short text about the demo server.", MIMEType: "text/plain",
	}, readReadme)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: ItemTemplate, Name: "item", Title: "An item",
		Description: "Item {id} as JSON: any id names an item.", MIMEType: "application/json",
	}, readItem)
	srv.AddPrompt(&mcp.Prompt{
		Name: GreetPrompt, Title: "Greet someone",
		Description: "A one-message prompt that greets name, plainly or formally.",
		Arguments: []*mcp.PromptArgument{
			{Name: "name", Description: "who to greet", Required: true},
			{Name: "style", Description: "plain (the default) or formal"},
		},
	}, greet)
}

func readReadme(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: readmeText}}}, nil
}

func readItem(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, "demo://item/")
	if !ok || id == "" || strings.Contains(id, "/") {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	text := fmt.Sprintf(`{"id":%q,"name":"item %s"}`, id, id)
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: text}}}, nil
}

func greet(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name := req.Params.Arguments["name"]
	if strings.TrimSpace(name) == "" {
		return nil, fmt.Errorf("greet: give the argument name, as in {\"name\": \"Ada\"}")
	}
	text := "Say hello to " + name + "."
	switch style := req.Params.Arguments["style"]; style {
	case "", "plain":
	case "formal":
		text = "Greet " + name + " formally, in one sentence."
	default:
		return nil, fmt.Errorf("greet: style %q: want plain or formal", style)
	}
	return &mcp.GetPromptResult{Description: "a greeting for " + name,
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
}
