package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// Content is one piece of what a resource read or a prompt message
// holds, as the inspector shows it.
type Content struct {
	// Type is "text" or "blob" for a resource's contents; "text",
	// "image", "audio", "resource" (an embedded resource) or
	// "resource_link" for a prompt message's.
	Type string
	// URI names the resource the content is (a read's contents, an
	// embedded resource, a link).
	URI      string
	MIMEType string
	// Text is the content's text: a text content's, or an embedded
	// resource's when it is text.
	Text string
	// Data is the decoded bytes of a blob, an image or audio.
	Data []byte
	// Name is a resource link's name.
	Name string
}

// ReadResult is what reading a resource gave: its contents, one or more.
type ReadResult struct {
	Contents []Content
}

// PromptMessage is one message of a prompt as the server rendered it.
type PromptMessage struct {
	Role    string
	Content Content
}

// PromptResult is a prompt as the server rendered it for some arguments.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// ReadResource reads the resource at uri (resources/read), recorded as
// an outgoing span named after the URI.
func (s *Session) ReadResource(ctx context.Context, uri string) (ReadResult, error) {
	what := "reading " + uri
	if strings.TrimSpace(uri) == "" {
		return ReadResult{}, errors.New("reading a resource: give its URI (as the Resources list shows it, or a template filled in)")
	}
	if !s.info.hasCapability("resources") {
		return ReadResult{}, fmt.Errorf("%s: the server offers no resources (its capabilities have no resources)", what)
	}
	res, err := s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return ReadResult{}, s.explainCallError(what, err)
	}
	var out ReadResult
	for _, c := range res.Contents {
		if c != nil {
			out.Contents = append(out.Contents, resourceContent(c))
		}
	}
	return out, nil
}

// GetPrompt gets the prompt name rendered with args (prompts/get),
// recorded as an outgoing span named after the prompt. An argument the
// prompt requires and args lacks is refused before anything is sent,
// when the prompt is given (as [Session.ListPrompts] listed it).
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string, prompt *Prompt) (PromptResult, error) {
	what := "getting prompt " + name
	if strings.TrimSpace(name) == "" {
		return PromptResult{}, errors.New("getting a prompt: give its name (as the Prompts list shows it)")
	}
	if !s.info.hasCapability("prompts") {
		return PromptResult{}, fmt.Errorf("%s: the server offers no prompts (its capabilities have no prompts)", what)
	}
	if prompt != nil {
		var missing []string
		for _, a := range prompt.Arguments {
			if a.Required && strings.TrimSpace(args[a.Name]) == "" {
				missing = append(missing, a.Name)
			}
		}
		if len(missing) > 0 {
			return PromptResult{}, fmt.Errorf("%s: fill in the required argument %s", what, strings.Join(missing, ", "))
		}
	}
	res, err := s.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return PromptResult{}, s.explainCallError(what, err)
	}
	out := PromptResult{Description: res.Description}
	for _, m := range res.Messages {
		if m != nil {
			out.Messages = append(out.Messages, PromptMessage{Role: string(m.Role), Content: messageContent(m.Content)})
		}
	}
	return out, nil
}

// resourceContent is one of a read's contents.
func resourceContent(c *mcp.ResourceContents) Content {
	if c.Blob != nil {
		return Content{Type: "blob", URI: c.URI, MIMEType: c.MIMEType, Data: c.Blob}
	}
	return Content{Type: "text", URI: c.URI, MIMEType: c.MIMEType, Text: c.Text}
}

// messageContent is a prompt message's content.
func messageContent(c mcp.Content) Content {
	switch v := c.(type) {
	case *mcp.TextContent:
		return Content{Type: "text", Text: v.Text}
	case *mcp.ImageContent:
		return Content{Type: "image", MIMEType: v.MIMEType, Data: v.Data}
	case *mcp.AudioContent:
		return Content{Type: "audio", MIMEType: v.MIMEType, Data: v.Data}
	case *mcp.ResourceLink:
		return Content{Type: "resource_link", URI: v.URI, Name: v.Name, MIMEType: v.MIMEType}
	case *mcp.EmbeddedResource:
		if v.Resource == nil {
			return Content{Type: "resource"}
		}
		r := resourceContent(v.Resource)
		r.Type = "resource"
		return r
	case nil:
		return Content{Type: "text"}
	}
	b, _ := json.Marshal(c) // a kind the inspector does not show: its JSON
	return Content{Type: "text", Text: string(b)}
}

// TemplateVariables returns the names of the variables of an RFC 6570
// URI template, in the order they first appear.
func TemplateVariables(template string) ([]string, error) {
	t, err := uritemplate.New(template)
	if err != nil {
		return nil, fmt.Errorf("the URI template %q cannot be read: %v", template, err)
	}
	var names []string
	for _, n := range t.Varnames() {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}

// ExpandTemplate fills an RFC 6570 URI template's variables with values
// and returns the URI to read. Every variable needs a value: a template
// read with one left empty would name another resource than meant.
func ExpandTemplate(template string, values map[string]string) (string, error) {
	t, err := uritemplate.New(template)
	if err != nil {
		return "", fmt.Errorf("the URI template %q cannot be read: %v", template, err)
	}
	vars := uritemplate.Values{}
	var missing []string
	for _, n := range t.Varnames() {
		v := values[n]
		if v == "" {
			if !slices.Contains(missing, n) {
				missing = append(missing, n)
			}
			continue
		}
		vars.Set(n, uritemplate.String(v))
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("fill in %s to make a URI from %s", strings.Join(missing, ", "), template)
	}
	uri, err := t.Expand(vars)
	if err != nil {
		return "", fmt.Errorf("filling the URI template %s: %v", template, err)
	}
	return uri, nil
}
