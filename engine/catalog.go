package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource is a resource the server offers, as a load generator's
// starter file lists it.
type Resource struct {
	URI, Name, Title, Description, MIMEType string
}

// ResourceTemplate is a resource template the server offers: URITemplate
// is an RFC 6570 template such as demo://item/{id}.
type ResourceTemplate struct {
	URITemplate, Name, Title, Description, MIMEType string
}

// Prompt is a prompt the server offers, with its arguments.
type Prompt struct {
	Name, Title, Description string
	Arguments                []PromptArgument
}

// PromptArgument is one argument of a [Prompt].
type PromptArgument struct {
	Name, Description string
	Required          bool
}

// ListResources lists the server's resources, all pages (none when the
// server does not offer resources). Each request is recorded as an
// outgoing span.
func (s *Session) ListResources(ctx context.Context) ([]Resource, error) {
	if !s.info.hasCapability("resources") {
		return nil, nil
	}
	return listAll(s, ctx, "listing resources", func(ctx context.Context, cursor string) ([]Resource, string, error) {
		res, err := s.cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		out := make([]Resource, 0, len(res.Resources))
		for _, v := range res.Resources {
			if v != nil {
				out = append(out, Resource{URI: v.URI, Name: v.Name, Title: v.Title, Description: v.Description, MIMEType: v.MIMEType})
			}
		}
		return out, res.NextCursor, nil
	})
}

// ListResourceTemplates lists the server's resource templates, all pages
// (none when the server does not offer resources).
func (s *Session) ListResourceTemplates(ctx context.Context) ([]ResourceTemplate, error) {
	if !s.info.hasCapability("resources") {
		return nil, nil
	}
	return listAll(s, ctx, "listing resource templates", func(ctx context.Context, cursor string) ([]ResourceTemplate, string, error) {
		res, err := s.cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		out := make([]ResourceTemplate, 0, len(res.ResourceTemplates))
		for _, v := range res.ResourceTemplates {
			if v != nil {
				out = append(out, ResourceTemplate{URITemplate: v.URITemplate, Name: v.Name, Title: v.Title, Description: v.Description, MIMEType: v.MIMEType})
			}
		}
		return out, res.NextCursor, nil
	})
}

// ListPrompts lists the server's prompts, all pages (none when the server
// does not offer prompts).
func (s *Session) ListPrompts(ctx context.Context) ([]Prompt, error) {
	if !s.info.hasCapability("prompts") {
		return nil, nil
	}
	return listAll(s, ctx, "listing prompts", func(ctx context.Context, cursor string) ([]Prompt, string, error) {
		res, err := s.cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		out := make([]Prompt, 0, len(res.Prompts))
		for _, v := range res.Prompts {
			if v == nil {
				continue
			}
			p := Prompt{Name: v.Name, Title: v.Title, Description: v.Description}
			for _, a := range v.Arguments {
				if a != nil {
					p.Arguments = append(p.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
				}
			}
			out = append(out, p)
		}
		return out, res.NextCursor, nil
	})
}

// The bounds of a listing: a server whose nextCursor never ends, or
// whose lists are endless, is cut off there with an error.
const (
	maxListPages = 1000
	maxListItems = 100_000
)

// listAll follows a listing's nextCursor from page to page (page asks
// for the page at a cursor, "" the first), up to [maxListPages] pages
// and [maxListItems] entries. A cursor the server gave before, which
// would loop for ever, ends it with an error; so do the bounds. What was
// read before an error is returned with it.
func listAll[T any](s *Session, ctx context.Context, op string, page func(context.Context, string) ([]T, string, error)) ([]T, error) {
	var out []T
	seen := map[string]bool{}
	cursor := ""
	for n := 1; ; n++ {
		items, next, err := page(ctx, cursor)
		if err != nil {
			return out, s.explainCallError(op, err)
		}
		out = append(out, items...)
		switch {
		case next == "":
			return out, nil
		case seen[next]:
			return out, fmt.Errorf("%s: the server gave the cursor %q a second time (page %d), so the list would never end; shown are the %d entries read", op, clip(next, 40), n, len(out))
		case n >= maxListPages || len(out) >= maxListItems:
			return out, fmt.Errorf("%s: the list goes on past %d pages or %d entries; shown are the first %d", op, maxListPages, maxListItems, len(out))
		}
		seen[next] = true
		cursor = next
	}
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// ArgumentsFor builds arguments that satisfy a tool's input schema: each
// property with a default gets its default, each required one a value
// valid for its type, enum, format and bounds (as [ElicitationContent]
// picks them; a required object is filled the same way, recursively).
// Optional properties without a default are left out. An empty schema
// gives {}.
func ArgumentsFor(schema json.RawMessage) (map[string]any, error) {
	if len(schema) == 0 || string(schema) == "null" {
		return map[string]any{}, nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("the input schema is not a JSON Schema object: %v", err)
	}
	if t := typeOf(&s); t != "" && t != "object" {
		return nil, fmt.Errorf("the input schema must describe an object, not %q", t)
	}
	return objectFor(&s, 0)
}

// maxSchemaDepth bounds how deep required objects are filled: a schema
// may nest (or, with references, recurse) without end.
const maxSchemaDepth = 16

// objectFor fills an object schema's properties that have a default or
// are required.
func objectFor(s *jsonschema.Schema, depth int) (map[string]any, error) {
	out := map[string]any{}
	if depth > maxSchemaDepth {
		return out, nil
	}
	names := mapKeys(s.Properties)
	slices.Sort(names)
	for _, name := range names {
		p := s.Properties[name]
		if p == nil || (len(p.Default) == 0 && !slices.Contains(s.Required, name)) {
			continue
		}
		var v any
		var err error
		if len(p.Default) == 0 && typeOf(p) == "object" {
			v, err = objectFor(p, depth+1)
		} else {
			v, err = valueFor(p)
		}
		if err != nil {
			return nil, fmt.Errorf("argument %q: %v", name, err)
		}
		out[name] = v
	}
	for _, name := range s.Required {
		if _, ok := out[name]; !ok {
			out[name] = "example" // required but not described: a string is the likeliest
		}
	}
	return out, nil
}
