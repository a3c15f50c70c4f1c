package app_test

import (
	"encoding/json"
	"fmt"

	"fyne.io/fyne/v2/test"
	"github.com/fanout-inspector/inspector/ui/internal/app"
)

// A form generated from an elicitation's requested schema: defaults are
// filled in, and Content refuses until the required fields are answered,
// then gives the object in JSON types.
func ExampleNewSchemaForm() {
	test.NewApp()
	form, err := app.NewSchemaForm(json.RawMessage(`{
		"type": "object",
		"properties": {
			"name":  {"type": "string", "title": "Name"},
			"count": {"type": "integer", "minimum": 1, "default": 3},
			"color": {"type": "string", "enum": ["red", "green"]}
		},
		"required": ["name", "color"]
	}`))
	if err != nil {
		panic(err)
	}
	_, err = form.Content()
	fmt.Println(err)

	form.Field("name").Entry.SetText("Ada")
	form.Field("color").Select.SetSelected("green")
	content, _ := form.Content()
	b, _ := json.Marshal(content)
	fmt.Println(string(b))
	// Output:
	// Name: Required.
	// color: Required.
	// {"color":"green","count":3,"name":"Ada"}
}
