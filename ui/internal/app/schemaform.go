package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/jsonschema-go/jsonschema"
)

// fieldKind is the kind of input a [SchemaField] offers.
type fieldKind int

// The kinds of schema form input.
const (
	fieldString  fieldKind = iota // a text entry
	fieldNumber                   // a text entry that must hold a number
	fieldInteger                  // a text entry that must hold a whole number
	fieldBoolean                  // a check box
	fieldEnum                     // a select of the allowed values
	fieldMulti                    // check boxes: an array of enum values
	fieldJSON                     // a multi-line entry of raw JSON (objects, arrays, anything else)
)

// SchemaForm is a form generated from a JSON Schema of an object: one
// input per property, prefilled with its default, required ones marked
// with "*". It validates as the person types (required, minimum, maximum,
// minLength, maxLength, pattern, and the email, uri, date and date-time
// formats) and produces the object as a map of the right JSON types with
// [SchemaForm.Content].
//
// It serves both elicitation requests (flat objects of primitives) and
// tool arguments (where nested objects and arrays get a raw JSON entry).
type SchemaForm struct {
	widget.BaseWidget

	// onChanged is called on the main goroutine after any input changed.
	onChanged func()
	// onSubmit is called when the person presses Enter in a one-line
	// entry of the form.
	onSubmit func()

	fields  []*SchemaField
	content fyne.CanvasObject
}

// SchemaField is one property of a [SchemaForm] and its input widget:
// exactly one of Entry, Select, check and group is set, by kind.
type SchemaField struct {
	// name is the property's name, title what the form shows for it (the
	// schema's title, or the name); required fields are marked "*".
	name     string
	title    string
	kind     fieldKind
	required bool

	// The input: an entry (strings, numbers, raw JSON), a select (enums),
	// a check box (booleans) or a check group (arrays of enums).
	Entry  *widget.Entry
	Select *widget.Select
	check  *widget.Check
	group  *widget.CheckGroup

	schema  *jsonschema.Schema
	choices []choice // fieldEnum, fieldMulti
	message *widget.Label
	onEdit  func()
}

// choice is one allowed value of an enum and the label shown for it.
type choice struct {
	value any
	label string
}

// NewSchemaForm builds a form from schema, which must be a JSON Schema of
// type object (an empty schema gives a form without fields).
func NewSchemaForm(schema json.RawMessage) (*SchemaForm, error) {
	f := &SchemaForm{}
	f.ExtendBaseWidget(f)
	if len(bytes.TrimSpace(schema)) == 0 || string(bytes.TrimSpace(schema)) == "null" {
		f.content = widget.NewLabel("No fields.")
		return f, nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("the schema is not valid JSON Schema: %v", err)
	}
	if s.Type != "" && s.Type != "object" {
		return nil, fmt.Errorf("the schema's type is %q: a form needs an object schema", s.Type)
	}
	order := propertyOrder(schema, s.Properties)
	grid := container.New(layout.NewFormLayout())
	for _, name := range order {
		fs := s.Properties[name]
		if fs == nil {
			fs = &jsonschema.Schema{}
		}
		fld := newSchemaField(name, fs, slices.Contains(s.Required, name))
		fld.onEdit = func() {
			fld.validateShown()
			if f.onChanged != nil {
				f.onChanged()
			}
		}
		if fld.Entry != nil && !fld.Entry.MultiLine {
			fld.Entry.OnSubmitted = func(string) {
				if f.onSubmit != nil {
					f.onSubmit()
				}
			}
		}
		f.fields = append(f.fields, fld)
		label := widget.NewLabel(fld.title)
		if fld.required {
			label.SetText(fld.title + " *")
			label.TextStyle.Bold = true
		}
		var help fyne.CanvasObject = layout.NewSpacer()
		if fs.Description != "" {
			h := widget.NewLabel(fs.Description)
			h.Wrapping = fyne.TextWrapWord
			h.SizeName = theme.SizeNameCaptionText
			help = h
		}
		grid.Add(label)
		grid.Add(container.NewVBox(fld.input(), fld.message, help))
	}
	if len(f.fields) == 0 {
		f.content = widget.NewLabel("No fields.")
	} else {
		f.content = grid
	}
	return f, nil
}

// CreateRenderer implements [fyne.Widget].
func (f *SchemaForm) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(f.content)
}

// Fields returns the form's fields in display order.
func (f *SchemaForm) Fields() []*SchemaField { return f.fields }

// Field returns the field of property name, or nil.
func (f *SchemaForm) Field(name string) *SchemaField {
	for _, fld := range f.fields {
		if fld.name == name {
			return fld
		}
	}
	return nil
}

// Messages returns the validation message of every field that has one,
// keyed by property name, and shows them under the inputs.
func (f *SchemaForm) Messages() map[string]string {
	out := map[string]string{}
	for _, fld := range f.fields {
		if _, msg := fld.value(); msg != "" {
			out[fld.name] = msg
		}
		fld.validateShown()
	}
	return out
}

// Content validates every field and returns the object the form
// describes: strings, float64 numbers, int64 integers, bools, enum values
// as the schema gives them, and decoded JSON for raw fields. Empty
// optional fields are left out. When a field is invalid it returns an
// error that lists each problem as "field: message".
func (f *SchemaForm) Content() (map[string]any, error) {
	out := map[string]any{}
	var problems []string
	for _, fld := range f.fields {
		v, msg := fld.value()
		fld.validateShown()
		if msg != "" {
			problems = append(problems, fld.title+": "+msg)
			continue
		}
		if v != nil {
			out[fld.name] = v
		}
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	return out, nil
}

// firstInvalid returns the first field, in display order, whose value is
// not valid (its message shown under it), or nil.
func (f *SchemaForm) firstInvalid() *SchemaField {
	for _, fld := range f.fields {
		if _, msg := fld.value(); msg != "" {
			fld.validateShown()
			return fld
		}
	}
	return nil
}

// Input returns the field's input widget (entry, select, check box or
// check group), the object to focus to take a person to the field.
func (fld *SchemaField) Input() fyne.CanvasObject { return fld.input() }

// Values returns what the fields hold now without validating: valid
// values in their JSON types, other text as typed. It is what the raw
// JSON view starts from.
func (f *SchemaForm) Values() map[string]any {
	out := map[string]any{}
	for _, fld := range f.fields {
		if v, msg := fld.value(); msg == "" {
			if v != nil {
				out[fld.name] = v
			}
		} else if fld.Entry != nil && fld.Entry.Text != "" {
			out[fld.name] = fld.Entry.Text
		}
	}
	return out
}

// setValues fills the fields from an object, as decoded from JSON;
// properties the form has no field for are ignored, fields missing from
// values are cleared.
func (f *SchemaForm) setValues(values map[string]any) {
	for _, fld := range f.fields {
		fld.set(values[fld.name])
	}
}

// newSchemaField makes the input for one property.
func newSchemaField(name string, s *jsonschema.Schema, required bool) *SchemaField {
	fld := &SchemaField{name: name, title: name, required: required, schema: s}
	if s.Title != "" {
		fld.title = s.Title
	}
	fld.message = widget.NewLabel("")
	fld.message.Importance = widget.DangerImportance
	fld.message.Wrapping = fyne.TextWrapWord
	fld.message.Hide()
	edited := func() {
		if fld.onEdit != nil {
			fld.onEdit()
		}
	}

	typ := s.Type
	if typ == "" && len(s.Types) > 0 {
		typ = s.Types[0]
	}
	switch {
	case len(enumChoices(s)) > 0:
		fld.kind = fieldEnum
		fld.choices = enumChoices(s)
		fld.Select = widget.NewSelect(choiceLabels(fld.choices), func(string) { edited() })
		fld.Select.PlaceHolder = "(choose one)"
	case typ == "array" && s.Items != nil && len(enumChoices(s.Items)) > 0:
		fld.kind = fieldMulti
		fld.choices = enumChoices(s.Items)
		fld.group = widget.NewCheckGroup(choiceLabels(fld.choices), func([]string) { edited() })
		fld.group.Horizontal = len(fld.choices) <= 4
	case typ == "boolean":
		fld.kind = fieldBoolean
		fld.check = widget.NewCheck("", func(bool) { edited() })
	case typ == "string":
		fld.kind = fieldString
		fld.Entry = widget.NewEntry()
		fld.Entry.PlaceHolder = formatHint(s.Format)
	case typ == "number":
		fld.kind = fieldNumber
		fld.Entry = widget.NewEntry()
		fld.Entry.PlaceHolder = "a number"
	case typ == "integer":
		fld.kind = fieldInteger
		fld.Entry = widget.NewEntry()
		fld.Entry.PlaceHolder = "a whole number"
	default:
		fld.kind = fieldJSON
		fld.Entry = widget.NewMultiLineEntry()
		fld.Entry.SetMinRowsVisible(3)
		fld.Entry.PlaceHolder = "JSON"
	}
	if fld.Entry != nil {
		fld.Entry.OnChanged = func(string) { edited() }
	}
	if len(s.Default) > 0 {
		var d any
		if json.Unmarshal(s.Default, &d) == nil {
			fld.set(d)
		}
	}
	return fld
}

// input is the field's input widget.
func (fld *SchemaField) input() fyne.CanvasObject {
	switch {
	case fld.Select != nil:
		return fld.Select
	case fld.check != nil:
		return fld.check
	case fld.group != nil:
		return fld.group
	}
	return fld.Entry
}

// Message returns the validation message shown under the field ("" when
// it is valid).
func (fld *SchemaField) Message() string {
	if !fld.message.Visible() {
		return ""
	}
	return fld.message.Text
}

// validateShown updates the message under the input.
func (fld *SchemaField) validateShown() {
	_, msg := fld.value()
	if msg == "" {
		fld.message.Hide()
		return
	}
	fld.message.SetText(msg)
	fld.message.Show()
}

// set puts a decoded JSON value into the input (nil clears it).
func (fld *SchemaField) set(v any) {
	switch fld.kind {
	case fieldEnum:
		fld.Select.ClearSelected()
		for _, c := range fld.choices {
			if sameJSON(c.value, v) {
				fld.Select.SetSelected(c.label)
			}
		}
	case fieldMulti:
		var sel []string
		items, _ := v.([]any)
		for _, c := range fld.choices {
			if slices.ContainsFunc(items, func(x any) bool { return sameJSON(c.value, x) }) {
				sel = append(sel, c.label)
			}
		}
		fld.group.SetSelected(sel)
	case fieldBoolean:
		b, _ := v.(bool)
		fld.check.SetChecked(b)
	case fieldJSON:
		if v == nil {
			fld.Entry.SetText("")
			return
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		fld.Entry.SetText(string(b))
	default:
		switch x := v.(type) {
		case nil:
			fld.Entry.SetText("")
		case string:
			fld.Entry.SetText(x)
		case float64:
			fld.Entry.SetText(strconv.FormatFloat(x, 'f', -1, 64))
		default:
			fld.Entry.SetText(fmt.Sprint(x))
		}
	}
}

// value reads the input: the value in its JSON type (nil when empty) and
// a message for the person when it is not valid.
func (fld *SchemaField) value() (any, string) {
	s := fld.schema
	switch fld.kind {
	case fieldEnum:
		i := fld.Select.SelectedIndex()
		if i < 0 {
			return nil, fld.requiredMessage()
		}
		return fld.choices[i].value, ""
	case fieldMulti:
		var out []any
		for _, c := range fld.choices {
			if slices.Contains(fld.group.Selected, c.label) {
				out = append(out, c.value)
			}
		}
		if len(out) == 0 {
			if fld.required {
				return nil, "Choose at least one."
			}
			return nil, ""
		}
		if s.MinItems != nil && len(out) < *s.MinItems {
			return nil, fmt.Sprintf("Choose at least %d.", *s.MinItems)
		}
		if s.MaxItems != nil && len(out) > *s.MaxItems {
			return nil, fmt.Sprintf("Choose at most %d.", *s.MaxItems)
		}
		return out, ""
	case fieldBoolean:
		return fld.check.Checked, ""
	}

	text := fld.Entry.Text
	if fld.kind != fieldString {
		text = strings.TrimSpace(text)
	}
	if text == "" {
		return nil, fld.requiredMessage()
	}
	switch fld.kind {
	case fieldNumber:
		n, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, "Enter a number, like 3.5."
		}
		if msg := boundsMessage(s, n); msg != "" {
			return nil, msg
		}
		return n, ""
	case fieldInteger:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, "Enter a whole number, like 3."
		}
		if msg := boundsMessage(s, float64(n)); msg != "" {
			return nil, msg
		}
		return n, ""
	case fieldJSON:
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return nil, "Enter valid JSON: " + err.Error() + "."
		}
		return v, ""
	}
	// fieldString
	n := len([]rune(text))
	if s.MinLength != nil && n < *s.MinLength {
		return nil, fmt.Sprintf("At least %d characters (now %d).", *s.MinLength, n)
	}
	if s.MaxLength != nil && n > *s.MaxLength {
		return nil, fmt.Sprintf("At most %d characters (now %d).", *s.MaxLength, n)
	}
	if msg := formatMessage(s.Format, text); msg != "" {
		return nil, msg
	}
	if s.Pattern != "" {
		if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(text) {
			return nil, fmt.Sprintf("Must match the pattern %s.", s.Pattern)
		}
	}
	return text, ""
}

// requiredMessage is the message for an empty field.
func (fld *SchemaField) requiredMessage() string {
	if fld.required {
		return "Required."
	}
	return ""
}

// boundsMessage checks minimum, maximum and their exclusive forms.
func boundsMessage(s *jsonschema.Schema, n float64) string {
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	switch {
	case s.Minimum != nil && n < *s.Minimum:
		return "At least " + num(*s.Minimum) + "."
	case s.Maximum != nil && n > *s.Maximum:
		return "At most " + num(*s.Maximum) + "."
	case s.ExclusiveMinimum != nil && n <= *s.ExclusiveMinimum:
		return "More than " + num(*s.ExclusiveMinimum) + "."
	case s.ExclusiveMaximum != nil && n >= *s.ExclusiveMaximum:
		return "Less than " + num(*s.ExclusiveMaximum) + "."
	}
	return ""
}

// formatHint is the placeholder of a string entry of a format.
func formatHint(format string) string {
	switch format {
	case "email":
		return "name@example.com"
	case "uri":
		return "https://example.com/path"
	case "date":
		return "YYYY-MM-DD"
	case "date-time":
		return "2006-01-02T15:04:05Z"
	}
	return ""
}

// formatMessage checks the string formats elicitation schemas may use.
func formatMessage(format, text string) string {
	switch format {
	case "email":
		a, err := mail.ParseAddress(text)
		if err != nil || a.Address != text || !strings.Contains(a.Address, "@") {
			return "Enter an email address, like name@example.com."
		}
	case "uri":
		u, err := url.Parse(text)
		if err != nil || u.Scheme == "" || (u.Host == "" && u.Opaque == "" && u.Path == "") {
			return "Enter a full URI with a scheme, like https://example.com/path."
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, text); err != nil {
			return "Enter a date as YYYY-MM-DD, like 2026-11-30."
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, text); err != nil {
			return "Enter a date and time as RFC 3339, like 2026-11-30T14:05:00Z."
		}
	}
	return ""
}

// enumChoices reads the allowed values of s: enum (labelled by
// enumNames when given) or oneOf/anyOf of const with titles.
func enumChoices(s *jsonschema.Schema) []choice {
	var out []choice
	if len(s.Enum) > 0 {
		names, _ := s.Extra["enumNames"].([]any)
		for i, v := range s.Enum {
			label := labelOf(v)
			if i < len(names) {
				if n, ok := names[i].(string); ok && n != "" {
					label = n
				}
			}
			out = append(out, choice{v, label})
		}
		return out
	}
	alts := s.OneOf
	if len(alts) == 0 {
		alts = s.AnyOf
	}
	for _, a := range alts {
		if a == nil || a.Const == nil {
			return nil
		}
		label := a.Title
		if label == "" {
			label = labelOf(*a.Const)
		}
		out = append(out, choice{*a.Const, label})
	}
	return out
}

// choiceLabels returns the labels, made unique so a select can tell them apart.
func choiceLabels(cs []choice) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		l := c.label
		for slices.Contains(out[:i], l) {
			l += " "
		}
		out[i] = l
	}
	for i := range cs {
		cs[i].label = out[i]
	}
	return out
}

// labelOf shows a JSON value as a person would read it.
func labelOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// sameJSON reports whether two decoded JSON values are equal.
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// propertyOrder returns the property names in the order the schema's
// JSON lists them (Go maps forget it), falling back to sorted names.
func propertyOrder(raw json.RawMessage, props map[string]*jsonschema.Schema) []string {
	var order []string
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) == nil {
		if p, ok := top["properties"]; ok {
			dec := json.NewDecoder(bytes.NewReader(p))
			if t, err := dec.Token(); err == nil && t == json.Delim('{') {
				for dec.More() {
					t, err := dec.Token()
					if err != nil {
						break
					}
					if k, ok := t.(string); ok {
						order = append(order, k)
					}
					var skip json.RawMessage
					if dec.Decode(&skip) != nil {
						break
					}
				}
			}
		}
	}
	var rest []string
	for k := range props {
		if !slices.Contains(order, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	order = slices.DeleteFunc(order, func(k string) bool { _, ok := props[k]; return !ok })
	return append(order, rest...)
}
