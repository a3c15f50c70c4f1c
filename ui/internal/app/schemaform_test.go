package app

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// formInput is what a person does to one field: type into an entry,
// choose in a select, tick a check box or check-group options.
type formInput struct {
	field  string
	text   string   // typed into the entry
	choose string   // selected in the select
	check  *bool    // check box
	group  []string // check-group options ticked
}

func tick(b bool) *bool { return &b }

func TestSchemaForm(t *testing.T) {
	test.NewTempApp(t)
	const contact = `{"type":"object","properties":{
		"name":{"type":"string","title":"Name","minLength":2,"maxLength":10},
		"email":{"type":"string","format":"email"},
		"site":{"type":"string","format":"uri"},
		"born":{"type":"string","format":"date"},
		"age":{"type":"integer","minimum":0,"maximum":130},
		"score":{"type":"number","exclusiveMaximum":1},
		"subscribe":{"type":"boolean","default":true},
		"plan":{"type":"string","enum":["free","pro"],"enumNames":["Free","Pro"],"default":"free"},
		"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},
		"tags":{"type":"array","items":{"enum":["a","b","c"]}},
		"extra":{"type":"object"}
	},"required":["name","age","size"]}`

	tests := []struct {
		name     string
		schema   string
		inputs   []formInput
		want     map[string]any    // content when valid
		messages map[string]string // field → message (substring) when invalid
	}{
		{
			name:   "defaults and required filled",
			schema: contact,
			inputs: []formInput{{field: "name", text: "Ada"}, {field: "age", text: "36"}, {field: "size", choose: "Large"}},
			want:   map[string]any{"name": "Ada", "age": int64(36), "size": "l", "subscribe": true, "plan": "free"},
		},
		{
			name:     "required missing",
			schema:   contact,
			inputs:   []formInput{{field: "name", text: "Ada"}},
			messages: map[string]string{"age": "Required.", "size": "Required."},
		},
		{
			name:   "enum names, number, boolean off, multi-select, raw JSON",
			schema: contact,
			inputs: []formInput{
				{field: "name", text: "Ada"}, {field: "age", text: "0"}, {field: "size", choose: "Small"},
				{field: "plan", choose: "Pro"}, {field: "score", text: "0.25"}, {field: "subscribe", check: tick(false)},
				{field: "tags", group: []string{"c", "a"}}, {field: "extra", text: `{"k":[1,2]}`},
			},
			want: map[string]any{
				"name": "Ada", "age": int64(0), "size": "s", "plan": "pro", "score": 0.25, "subscribe": false,
				"tags": []any{"a", "c"}, "extra": map[string]any{"k": []any{1.0, 2.0}},
			},
		},
		{
			name:   "bounds and lengths",
			schema: contact,
			inputs: []formInput{{field: "name", text: "A"}, {field: "age", text: "131"}, {field: "size", choose: "Small"}, {field: "score", text: "1"}},
			messages: map[string]string{
				"name": "At least 2 characters", "age": "At most 130.", "score": "Less than 1.",
			},
		},
		{
			name:     "integer and number syntax",
			schema:   contact,
			inputs:   []formInput{{field: "name", text: "Ada"}, {field: "age", text: "3.5"}, {field: "size", choose: "Small"}, {field: "score", text: "abc"}},
			messages: map[string]string{"age": "whole number", "score": "Enter a number"},
		},
		{
			name:   "formats rejected",
			schema: contact,
			inputs: []formInput{
				{field: "name", text: "Ada"}, {field: "age", text: "1"}, {field: "size", choose: "Small"},
				{field: "email", text: "not-an-address"}, {field: "site", text: "example.com"}, {field: "born", text: "30/11/2026"},
			},
			messages: map[string]string{"email": "email address", "site": "URI", "born": "YYYY-MM-DD"},
		},
		{
			name:   "formats accepted",
			schema: contact,
			inputs: []formInput{
				{field: "name", text: "Ada"}, {field: "age", text: "1"}, {field: "size", choose: "Small"},
				{field: "email", text: "ada@example.com"}, {field: "site", text: "https://example.com/x"}, {field: "born", text: "1815-12-10"},
			},
			want: map[string]any{
				"name": "Ada", "age": int64(1), "size": "s", "subscribe": true, "plan": "free",
				"email": "ada@example.com", "site": "https://example.com/x", "born": "1815-12-10",
			},
		},
		{
			name:   "defaults of every type",
			schema: `{"type":"object","properties":{"n":{"type":"number","default":2.5},"i":{"type":"integer","default":7},"s":{"type":"string","default":"hi"}}}`,
			want:   map[string]any{"n": 2.5, "i": int64(7), "s": "hi"},
		},
		{
			name:   "empty schema",
			schema: `{"type":"object"}`,
			want:   map[string]any{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := NewSchemaForm(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			w := test.NewWindow(f)
			defer w.Close()
			for _, in := range tt.inputs {
				fld := f.Field(in.field)
				if fld == nil {
					t.Fatalf("no field %q", in.field)
				}
				switch {
				case in.choose != "":
					fld.Select.SetSelected(in.choose)
				case in.check != nil:
					fld.check.SetChecked(*in.check)
				case in.group != nil:
					fld.group.SetSelected(in.group)
				default:
					fld.Entry.SetText("")
					test.Type(fld.Entry, in.text)
				}
			}
			got, err := f.Content()
			if tt.messages != nil {
				if err == nil {
					t.Fatalf("Content() = %v, want an error", got)
				}
				msgs := f.Messages()
				for field, want := range tt.messages {
					if !strings.Contains(msgs[field], want) {
						t.Errorf("message of %s = %q, want it to contain %q", field, msgs[field], want)
					}
					if shown := f.Field(field).Message(); !strings.Contains(shown, want) {
						t.Errorf("message shown under %s = %q, want %q", field, shown, want)
					}
				}
				if len(msgs) != len(tt.messages) {
					t.Errorf("messages = %v, want only %v", msgs, tt.messages)
				}
				return
			}
			if err != nil {
				t.Fatalf("Content(): %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Content() = %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestSchemaFormRequiredMarkAndOrder(t *testing.T) {
	test.NewTempApp(t)
	f, err := NewSchemaForm(json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"string"}},"required":["alpha"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fld := range f.Fields() {
		names = append(names, fld.name)
	}
	if !reflect.DeepEqual(names, []string{"zeta", "alpha"}) {
		t.Errorf("fields in order %v, want the schema's order [zeta alpha]", names)
	}
	w := test.NewWindow(f)
	defer w.Close()
	markup := test.RenderObjectToMarkup(f)
	if !strings.Contains(markup, "alpha *") || strings.Contains(markup, "zeta *") {
		t.Errorf("the required field should be marked with *, the optional one not:\n%s", markup)
	}
}

func TestSchemaFormValuesRoundTrip(t *testing.T) {
	test.NewTempApp(t)
	f, err := NewSchemaForm(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"kind":{"type":"string","enum":["sampling","roots"]},"on":{"type":"boolean"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	f.setValues(map[string]any{"n": 12.0, "kind": "roots", "on": true})
	got, err := f.Content()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": int64(12), "kind": "roots", "on": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after SetValues, Content() = %v, want %v", got, want)
	}
}

func TestSchemaFormRejectsBadSchema(t *testing.T) {
	test.NewTempApp(t)
	for _, s := range []string{`{"type":"string"}`, `{"properties":`} {
		if _, err := NewSchemaForm(json.RawMessage(s)); err == nil {
			t.Errorf("NewSchemaForm(%s) gave no error", s)
		}
	}
}

// TestSchemaFormOddSchemas builds forms from schemas servers really send
// that stray from the simple shapes: a type list, boolean schemas, oneOf
// without consts, titled multi-select items, and a property order to keep.
func TestSchemaFormOddSchemas(t *testing.T) {
	test.NewTempApp(t)
	f, err := NewSchemaForm(json.RawMessage(`{"type":"object","properties":{
		"maybe":{"type":["string","null"]},
		"any":true,
		"never":false,
		"mixed":{"oneOf":[{"const":1},{"title":"no const"}]},
		"picks":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]},"minItems":1},
		"emptyEnum":{"enum":[]}
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]fieldKind{}
	for _, fld := range f.Fields() {
		kinds[fld.name] = fld.kind
	}
	want := map[string]fieldKind{"maybe": fieldString, "any": fieldJSON, "never": fieldJSON, "mixed": fieldJSON, "picks": fieldMulti, "emptyEnum": fieldJSON}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("field kinds %v, want %v", kinds, want)
	}
	f.Field("picks").group.SetSelected([]string{"B"})
	typeInto(f.Field("any").Entry, `[1, "two"]`)
	got, err := f.Content()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, map[string]any{"picks": []any{"b"}, "any": []any{1.0, "two"}}) {
		t.Errorf("Content() = %#v", got)
	}
}
