package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
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
	return collect(s, "listing resources", s.cs.Resources(ctx, nil), func(r *Resource, v *mcp.Resource) {
		*r = Resource{URI: v.URI, Name: v.Name, Title: v.Title, Description: v.Description, MIMEType: v.MIMEType}
	})
}

// ListResourceTemplates lists the server's resource templates, all pages
// (none when the server does not offer resources).
func (s *Session) ListResourceTemplates(ctx context.Context) ([]ResourceTemplate, error) {
	if !s.info.hasCapability("resources") {
		return nil, nil
	}
	return collect(s, "listing resource templates", s.cs.ResourceTemplates(ctx, nil), func(r *ResourceTemplate, v *mcp.ResourceTemplate) {
		*r = ResourceTemplate{URITemplate: v.URITemplate, Name: v.Name, Title: v.Title, Description: v.Description, MIMEType: v.MIMEType}
	})
}

// ListPrompts lists the server's prompts, all pages (none when the server
// does not offer prompts).
func (s *Session) ListPrompts(ctx context.Context) ([]Prompt, error) {
	if !s.info.hasCapability("prompts") {
		return nil, nil
	}
	return collect(s, "listing prompts", s.cs.Prompts(ctx, nil), func(p *Prompt, v *mcp.Prompt) {
		*p = Prompt{Name: v.Name, Title: v.Title, Description: v.Description}
		for _, a := range v.Arguments {
			if a != nil {
				p.Arguments = append(p.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
		}
	})
}

// collect reads every page of a listing (the SDK's iterators follow
// nextCursor), turning each entry with conv.
func collect[T, V any](s *Session, op string, seq iter.Seq2[*V, error], conv func(*T, *V)) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return out, s.explainCallError(op, err)
		}
		if v == nil {
			continue
		}
		var t T
		conv(&t, v)
		out = append(out, t)
	}
	return out, nil
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
